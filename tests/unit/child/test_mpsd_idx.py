"""The IDX reader: shipped files, torchvision's layout (gzip and plain), and corrupt input."""

import gzip
import os
import shutil
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mps_doctor.child.mpsd_idx import IdxError, load_split, parse_idx, read_idx
from mps_doctor.probe.target import DATA_DIR


def test_shipped_sample_loads_with_the_documented_counts():
    images, labels = load_split(str(DATA_DIR), train=True)
    assert images.shape == (2000, 28, 28) and labels.shape == (2000,)
    test_images, test_labels = load_split(str(DATA_DIR), train=False)
    assert test_images.shape == (500, 28, 28) and len(test_labels) == 500
    assert set(bytearray(labels.data)) == set(range(10))


def test_shipped_sample_is_the_start_of_the_shared_subset():
    images, _ = load_split(str(DATA_DIR), train=True)
    assert sum(bytearray(images.data[:784])) > 0  # a real digit, not blank


@pytest.fixture()
def torchvision_root(tmp_path):
    """A torchvision-style root: ROOT/MNIST/raw/ with the train split plain and the test split gzipped."""
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in os.listdir(str(DATA_DIR)):
        source = os.path.join(str(DATA_DIR), name)
        if name.startswith("train"):
            with gzip.open(source, "rb") as packed, open(str(raw / name[:-3]), "wb") as plain:
                shutil.copyfileobj(packed, plain)
        elif name.endswith(".gz"):
            shutil.copy(source, str(raw / name))
    return tmp_path


def test_torchvision_layout_plain_and_gzip(torchvision_root):
    images, labels = load_split(str(torchvision_root), train=True)
    test_images, _ = load_split(str(torchvision_root), train=False)
    shipped, _ = load_split(str(DATA_DIR), train=True)
    assert images.data == shipped.data and len(labels) == 2000
    assert len(test_images) == 500


def write(path, raw, packed=False):
    path.write_bytes(gzip.compress(raw) if packed else raw)
    return str(path)


def test_wrong_magic_is_a_clear_error(tmp_path):
    with pytest.raises(IdxError, match="not an IDX file"):
        read_idx(write(tmp_path / "x-idx3-ubyte", b"\x12\x34\x08\x03" + b"\0" * 20))


def test_wrong_type_is_a_clear_error(tmp_path):
    with pytest.raises(IdxError, match="is not unsigned byte"):
        read_idx(write(tmp_path / "x-idx1-ubyte", struct.pack(">HBBI", 0, 0x0D, 1, 1) + b"\0\0\0\0"))


def test_truncated_data_is_a_clear_error(tmp_path):
    raw = struct.pack(">HBBIII", 0, 8, 3, 10, 28, 28) + b"\0" * 100
    with pytest.raises(IdxError, match="expected 7840 data bytes .* found 100"):
        read_idx(write(tmp_path / "x-idx3-ubyte.gz", raw, packed=True))


def test_truncated_gzip_is_a_clear_error(tmp_path):
    packed = gzip.compress(struct.pack(">HBBI", 0, 8, 1, 3) + b"\1\2\3")
    with pytest.raises(IdxError, match="corrupt gzip"):
        read_idx(write(tmp_path / "x-idx1-ubyte.gz", packed[:-6]))


def test_missing_split_names_where_it_looked(tmp_path):
    with pytest.raises(IdxError, match="MNIST/raw"):
        load_split(str(tmp_path))


def test_labels_and_images_must_pair(tmp_path):
    write(tmp_path / "train-images-idx3-ubyte", struct.pack(">HBBIII", 0, 8, 3, 2, 28, 28) + b"\0" * 1568)
    write(tmp_path / "train-labels-idx1-ubyte", struct.pack(">HBBI", 0, 8, 1, 3) + b"\1\2\3")
    with pytest.raises(IdxError, match="3 labels for 2 images"):
        load_split(str(tmp_path))


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_never_crash_the_parser(raw):
    try:
        parsed = parse_idx(raw)
    except IdxError:
        return
    assert len(parsed.data) == len(raw) - 4 - 4 * len(parsed.shape)
