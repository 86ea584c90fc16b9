"""A small reader for MNIST's IDX files (gzip or plain), stdlib only, Python 3.7+.

Format: http://yann.lecun.com/exdb/mnist/ ("THE IDX FILE FORMAT"): a big-endian magic of two zero bytes, a
type code (0x08 = unsigned byte) and the number of dimensions, then one big-endian uint32 per dimension,
then the data.
"""
import gzip
import os
import struct

UBYTE = 0x08
TRAIN_IMAGES, TRAIN_LABELS = "train-images-idx3-ubyte", "train-labels-idx1-ubyte"
TEST_IMAGES, TEST_LABELS = "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"


class IdxError(ValueError):
    """An IDX file is missing, corrupt or not what was expected."""


class IdxArray(object):
    """The decoded content of one IDX file: its shape and the raw unsigned bytes."""

    def __init__(self, shape, data):
        self.shape = tuple(shape)
        self.data = data

    def __len__(self):
        return self.shape[0]


def parse_idx(raw, name="<bytes>"):
    """Decode IDX bytes; raise IdxError naming the file on a bad magic, type or length."""
    if len(raw) < 4:
        raise IdxError("%s: truncated IDX header (%d bytes)" % (name, len(raw)))
    zero, dtype, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or ndim == 0:
        raise IdxError("%s: not an IDX file (magic %s)" % (name, raw[:4].hex()))
    if dtype != UBYTE:
        raise IdxError("%s: IDX type 0x%02x is not unsigned byte (0x08)" % (name, dtype))
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise IdxError("%s: truncated IDX header" % name)
    shape = struct.unpack(">" + "I" * ndim, raw[4:header])
    count = 1
    for size in shape:
        count *= size
    body = raw[header:]
    if len(body) != count:
        raise IdxError("%s: expected %d data bytes for shape %s, found %d" % (name, count, "x".join(map(str, shape)), len(body)))
    return IdxArray(shape, body)


def read_idx(path):
    """Read one IDX file, gunzipping it when its name ends in .gz or its bytes start with the gzip magic."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise IdxError("%s: %s" % (path, exc.strerror or exc))
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise IdxError("%s: corrupt gzip data (%s)" % (path, exc))
    return parse_idx(raw, os.path.basename(path))


def find_idx(root, stem):
    """Return the path of STEM under ROOT, as given or in torchvision's `MNIST/raw/` layout, plain or .gz."""
    for folder in (root, os.path.join(root, "raw"), os.path.join(root, "MNIST", "raw")):
        for suffix in ("", ".gz"):
            candidate = os.path.join(folder, stem + suffix)
            if os.path.isfile(candidate):
                return candidate
    raise IdxError("no %s[.gz] under %s (looked in ., raw/ and MNIST/raw/)" % (stem, root))


def load_split(root, train=True):
    """Load (images, labels) of one split from ROOT and check that they pair up as MNIST does."""
    images = read_idx(find_idx(root, TRAIN_IMAGES if train else TEST_IMAGES))
    labels = read_idx(find_idx(root, TRAIN_LABELS if train else TEST_LABELS))
    if len(images.shape) != 3 or images.shape[1:] != (28, 28):
        raise IdxError("%s: images have shape %s, expected Nx28x28" % (root, images.shape))
    if len(labels.shape) != 1 or labels.shape[0] != images.shape[0]:
        raise IdxError("%s: %d labels for %d images" % (root, labels.shape[0], images.shape[0]))
    if max(bytearray(labels.data)) > 9:
        raise IdxError("%s: a label is outside 0-9" % root)
    return images, labels
