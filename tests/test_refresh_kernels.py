"""The MPS kernel table's reader (tools/refresh/kernels.py), on the hand-written headers of tests/data/aten_ops, served
as a wheel by range requests; and, marked network, on real torch wheels."""

import io
import json
import os
import urllib.request
import zipfile

import pytest
from packaging.version import Version

from mps_doctor import mps_ops
from tests.test_refresh import FakeServer, Response, simple_entry
from tools.refresh import derive, index, kernels

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "data", "aten_ops")
WHEEL = "torch-2.4.1-cp312-none-macosx_11_0_arm64.whl"
SHA256 = "ab" * 32
EXPECTED = {
    "wheel": WHEEL, "sha256": SHA256,
    # A kernel for the MPS key: a structured _mps kernel (isin, add), one that shares its CPU name (abs_out), an
    # MPS-only operator (_mps_convolution), one whose kernel has mps inside its name (batch_norm_mps).
    "mps": ["_mps_convolution", "abs", "add", "isin", "native_batch_norm"],
    # Composite kernels and no CPU one: dropout (CompositeImplicitAutograd), _foreach_mul (CompositeExplicitAutograd
    # beside a CUDA kernel). Not _cudnn_rnn nor _coalesce, whose composite headers hold only out= variants.
    "composite": ["_foreach_mul", "dropout"],
    # add_out_sparse_mps is SparseMPS's; structured_isin_Tensor_Tensor_out, without a suffix, is CPU and CUDA's.
    "mps_kernels": {"_mps_convolution": ["_mps_convolution", "_mps_convolution_out_symint"],
                    "add": ["structured_add_out_mps"], "isin": ["structured_isin_Tensor_Tensor_out_mps"],
                    "native_batch_norm": ["batch_norm_mps"]},
}


def fixture_members():
    members = {}
    for name in sorted(os.listdir(FIXTURES)):
        with open(os.path.join(FIXTURES, name), "rb") as handle:
            members[kernels.OPS_FOLDER + name] = handle.read()
    return members


def zipped(members, padding=1 << 20):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("torch/lib/libtorch_cpu.dylib", bytes(range(256)) * (padding // 256))
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def served(body, name=WHEEL):
    page = {"files": [dict(simple_entry(name), size=len(body), hashes={"sha256": SHA256})]}
    return index.parse_simple_json(page, "https://index.example/simple/torch/")


def test_operator_headers_are_read_from_the_member_names():
    kinds = kernels.operator_headers([
        "torch/include/ATen/ops/native_batch_norm_native.h", "torch/include/ATen/ops/native_batch_norm_mps_dispatch.h",
        "torch/include/ATen/ops/_foreach_mul_compositeexplicitautograd_dispatch.h", "torch/include/ATen/ops/isin_ops.h",
        "torch/include/ATen/ops/isin_meta_dispatch.h", "torch/include/ATen/ops/../ops/evil_native.h",
        "torch/include/ATen/ops/sub/dir_native.h", "torch/include/ATen/Functions.h", "torch/include/ATen/ops/_native.h"])
    assert kinds == {"native_batch_norm": {"native", "mps_dispatch"},
                     "_foreach_mul": {"compositeexplicitautograd_dispatch"}}


def test_declared_kernels_and_which_say_mps():
    with open(os.path.join(FIXTURES, "add_native.h"), encoding="utf-8") as handle:
        declared = kernels.declared_kernels(handle.read())
    assert declared == ["structured_ufunc_add_CPU", "structured_add_out_mps", "add_out_sparse_cpu", "add_out_sparse_mps",
                        "add"]
    assert kernels.declared_kernels("TORCH_API ::std::tuple<at::Tensor &,at::Tensor &> max_out(at::Tensor & a);\n"
                                    "  TORCH_API int not_at_the_start(int);\nstruct TORCH_API structured_x : y {\n") == [
        "max_out", "structured_x"]
    said = [n for n in ("mps_equal", "resize_mps_", "structured_log_softmax_mps_out", "_mps_convolution", "add_out_sparse_mps",
                        "abs_out", "mpsgraph_thing", "lamps_on") if kernels.is_mps_kernel(n)]
    assert said == ["mps_equal", "resize_mps_", "structured_log_softmax_mps_out", "_mps_convolution"]


def test_a_wheel_of_fixture_headers_gives_the_entry_by_range_requests():
    body = zipped(fixture_members())
    server = FakeServer(body)
    wheel, = served(body)
    assert kernels.read_release(wheel, server) == EXPECTED
    assert all(r and r.startswith("bytes=") for r in server.requests)
    assert len(server.requests) <= 4  # the directory, then the headers in one read-ahead block: not one per member


def test_the_document_has_one_release_a_line_oldest_first_and_loads_back(tmp_path):
    entries = {"2.10": dict(EXPECTED, wheel="torch-2.10.0-cp312-none-macosx_11_0_arm64.whl"), "2.9": EXPECTED,
               "1.12": dict(EXPECTED, mps=["abs"], mps_kernels={})}
    text = kernels.render_document(entries)
    lines = text.splitlines()
    assert [line.split(":")[0].strip() for line in lines[4:7]] == ['"1.12"', '"2.9"', '"2.10"']
    assert json.loads(text)["releases"] == entries
    path = tmp_path / "mps_kernels.json"
    path.write_text(text)
    table = mps_ops.load_kernels(str(path))
    assert [row.release for row in table] == ["1.12", "2.9", "2.10"]
    assert mps_ops.first_native_release("aten::isin.Tensor_Tensor_out", table) == "2.9"
    assert mps_ops.kernels_for("2.9.1", table) == frozenset(EXPECTED["mps"] + EXPECTED["composite"])


def test_changes_name_the_operators_gained_and_lost():
    old = dict(EXPECTED, mps=["abs", "add", "cumsum"])
    assert kernels.changes(old, EXPECTED) == ["mps +_mps_convolution +isin +native_batch_norm", "mps -cumsum"]
    assert kernels.changes(EXPECTED, EXPECTED) == []
    assert kernels.changes(None, EXPECTED) == ["new release"]


def routed(body):
    """An opener that serves an index page listing one wheel and, by ranges, that wheel: BODY."""
    page = {"files": [dict(simple_entry(WHEEL), size=len(body), hashes={"sha256": SHA256})]}
    wheel = FakeServer(body)

    def opener(request, timeout=None):
        if request.full_url.endswith("/simple/torch/"):
            return Response(200, json.dumps(page).encode())
        return wheel(request, timeout)
    return opener


def test_the_command_writes_the_file_only_when_every_release_was_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(kernels, "table_releases", lambda: ["2.4", "2.5"])
    output = tmp_path / "mps_kernels.json"
    argv = ["--index", "https://index.example/simple", "--output", str(output)]
    assert kernels.main(argv, routed(zipped(fixture_members()))) == 0
    assert json.loads(output.read_text())["releases"] == {"2.4": EXPECTED}
    assert oct(output.stat().st_mode & 0o777) == "0o644"
    printed = capsys.readouterr().out
    assert "torch 2.4: %s: 5 with an MPS kernel, 2 composite; new release" % WHEEL in printed
    assert "skipped 2.5: no macOS arm64 wheel on the index" in printed
    # A header that is not UTF-8: that release cannot be read, and the file stays as it was.
    broken = fixture_members()
    broken[kernels.OPS_FOLDER + "isin_native.h"] += b"\xff"
    assert kernels.main(argv, routed(zipped(broken))) == 1
    assert json.loads(output.read_text())["releases"] == {"2.4": EXPECTED}
    assert "refresh: 2.4: %s: 'utf-8' codec can't decode" % WHEEL in capsys.readouterr().err


def test_caps_on_what_a_wheel_can_make_the_reader_do(monkeypatch):
    members = fixture_members()
    body = zipped(members)
    monkeypatch.setattr(kernels, "MAX_OPERATORS", 3)
    with pytest.raises(index.TooLarge, match="operators, over the cap of 3"):
        kernels.read_release(served(body)[0], FakeServer(body))
    monkeypatch.setattr(kernels, "MAX_OPERATORS", 1 << 14)
    monkeypatch.setattr(index, "MAX_TEXT_MEMBER_BYTES", 100)
    with pytest.raises(index.TooLarge, match=r"\.h: \d+ bytes uncompressed, over the 100-byte cap"):
        kernels.read_release(served(body)[0], FakeServer(body))
    bare = zipped({"torch/version.py": b"cuda = None\n"})
    with pytest.raises(ValueError, match="no per-operator headers under torch/include/ATen/ops/"):
        kernels.read_release(served(bare)[0], FakeServer(bare))


@pytest.mark.parametrize("hashes", [{"sha256": "not hex"}, {"sha256": "ab" * 31}, ["ab" * 32], {"sha256": 7}])
def test_an_index_entry_with_a_malformed_hash_is_a_value_error(hashes):
    page = {"files": [dict(simple_entry(WHEEL), hashes=hashes)]}
    with pytest.raises(ValueError, match="has the hashes .*, not a sha256 hex digest"):
        index.parse_simple_json(page, "https://index.example/simple/torch/")
    assert served(b"x")[0].sha256 == SHA256


# Real wheels. isin.Tensor_Tensor_out gained its MPS kernel in torch 2.4 (pytorch/pytorch#124896, April 2024, for
# #124518; huggingface/transformers#33099: "torch.isin is not supported on mps devices on torch<2.4"), and
# isin.Scalar_Tensor_out in 2.8 (pytorch/pytorch#154010, May 2025: "[MPS] Add support for two more isin variants").
@pytest.mark.network
def test_real_wheels_say_when_isin_gained_its_mps_kernels():
    groups = derive.group_by_minor(index.fetch_project(index.PYPI_SIMPLE, "torch"))
    read = {}
    for release in ("2.3", "2.4", "2.7", "2.8"):
        wheel = derive.pick_wheel(groups[derive.minor_key(Version(release))], derive.is_macos_arm64)
        read[release] = kernels.read_release(wheel, urllib.request.urlopen)
    assert "isin" not in read["2.3"]["mps"] and "isin" in read["2.4"]["mps"]
    assert read["2.4"]["mps_kernels"]["isin"] == ["structured_isin_Tensor_Tensor_out_mps"]
    assert "structured_isin_Scalar_Tensor_out_mps" not in read["2.7"]["mps_kernels"]["isin"]
    assert "structured_isin_Scalar_Tensor_out_mps" in read["2.8"]["mps_kernels"]["isin"]
    # The shipped table is what the wheels say.
    with open(mps_ops.DATA_FILE, encoding="utf-8") as handle:
        shipped = json.load(handle)["releases"]
    assert all(read[release] == shipped[release] for release in read)
