"""mps_doctor.mps_ops: the MPS kernel table's loader and its two questions (which operators run on MPS in a release,
and since which release an operator does)."""

import json

import pytest

from mps_doctor import mps_ops
from mps_doctor.versions import load_releases


def table_file(tmp_path, releases, **top):
    path = tmp_path / "mps_kernels.json"
    path.write_text(json.dumps(dict({"format": 1, "source": "test", "releases": releases}, **top)))
    return str(path)


def entry(mps=(), composite=(), kernels=None):
    return {"wheel": "torch.whl", "sha256": None, "mps": list(mps), "composite": list(composite),
            "mps_kernels": kernels or {}}


@pytest.mark.parametrize("name, root", [
    ("aten::isin.Tensor_Tensor_out", "isin"), ("aten.add_.Tensor", "add"), ("add", "add"), ("_foreach_mul_", "_foreach_mul"),
    ("aten::__iand__.Tensor", "and"), ("__and__.Scalar", "and"), ("__rshift__", "rshift"), ("__irshift__", "rshift"),
    ("aten::_native_batch_norm_legit_functional", "_native_batch_norm_legit"), ("_functional_assert_async", "_functional_assert_async"),
    ("  aten::nonzero  ", "nonzero"), ("aten::", ""), ("", ""), ("rm -rf /", ""), ("isin\x1b[31m", ""), ("<b>isin</b>", ""),
])
def test_operator_names_are_read_as_torchgen_roots_them(name, root):
    assert mps_ops.operator_name(name) == root


def test_a_release_runs_its_mps_and_composite_operators(tmp_path):
    table = mps_ops.load_kernels(table_file(tmp_path, {
        "2.10": entry(["isin"], ["dropout"]), "2.9": entry([], ["dropout"]), "2.4": entry(["isin"], ["dropout"]),
        "2.3": entry([], ["dropout"], {})}))
    assert [row.release for row in table] == ["2.3", "2.4", "2.9", "2.10"]
    assert mps_ops.kernels_for("2.4.1+cpu", table) == frozenset({"isin", "dropout"})
    assert mps_ops.kernels_for("2.9", table) == frozenset({"dropout"})
    assert mps_ops.kernels_for("2.11", table) is None and mps_ops.kernels_for("not a version", table) is None
    # isin left MPS in 2.9 and came back in 2.10: from 2.10 on, every release runs it.
    assert mps_ops.first_native_release("aten::isin.Tensor_Tensor_out", table) == "2.10"
    assert mps_ops.first_native_release("dropout", table) == "2.3"
    assert mps_ops.first_native_release("cumsum", table) is None
    assert mps_ops.first_native_release("", table) is None


@pytest.mark.parametrize("doc", [
    {"format": 2, "releases": {}},
    {"format": 1, "releases": []},
    {"format": 1, "releases": {"2.4": entry(["isin", "<script>"])}},
    {"format": 1, "releases": {"2.4": entry(["isin"], kernels={"isin": ["a b"]})}},
    {"format": 1, "releases": {"2.4": entry(["isin"], kernels={"\x1b]8;;": ["x"]})}},
    {"format": 1, "releases": {"2.4": dict(entry(), mps="isin")}},
    {"format": 1, "releases": {"not a release": entry()}},
    {"format": 1, "releases": {"2.4": ["isin"]}},
])
def test_a_table_of_another_shape_is_a_value_error(tmp_path, doc):
    path = tmp_path / "mps_kernels.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError):
        mps_ops.load_kernels(str(path))


def test_the_shipped_table_has_a_row_for_every_release_of_the_release_table():
    kernel_releases = [row.release for row in mps_ops.load_kernels()]
    assert kernel_releases == [row.torch for row in load_releases().releases]
    for row in mps_ops.load_kernels():
        assert row.wheel.startswith("torch-%s" % row.release) and row.wheel.endswith("arm64.whl")
        assert len(row.sha256) == 64 and row.mps and row.composite and not row.mps & row.composite


def test_the_shipped_table_knows_when_isin_and_foreach_mul_came_to_mps():
    # isin.Tensor_Tensor_out: MPS kernel in 2.4 (pytorch/pytorch#124896; transformers#33099: "not supported on mps
    # devices on torch<2.4"). The _foreach_ ops moved from CPU kernels to composite ones in 2.4, so MPS runs them since
    # (in 2.3 a #77764 comment reports aten::_foreach_mul_.Scalar not implemented for MPS).
    assert "isin" not in mps_ops.kernels_for("2.3") and "isin" in mps_ops.kernels_for("2.4")
    assert mps_ops.first_native_release("aten::isin.Tensor_Tensor_out") == "2.4"
    assert mps_ops.first_native_release("aten::_foreach_mul_.Scalar") == "2.4"
    assert "structured_isin_Tensor_Tensor_out_mps" in mps_ops.release_kernels("2.4").kernels_of("aten::isin.Tensor_Tensor_out")
    assert mps_ops.first_native_release("aten::_cudnn_rnn") is None
