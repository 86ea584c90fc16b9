"""`mps-doctor model` without a child: TARGET parsing, predictions from a kernel table, dtype rules, results, the
verdict, remedies through the fix plan, the JSON schema and the renderers (issue 22)."""

import json
import os
from dataclasses import replace

import jsonschema
import pytest

from mps_doctor.checking.model import Status
from mps_doctor.errors import UsageError
from mps_doctor.facts import Comparison, ErrorInfo, ProbeFailure
from mps_doctor.model import dtypes as rules
from mps_doctor.model.facts import (
    InputInfo,
    Loaded,
    Memory,
    MemoryPoint,
    ModelFacts,
    ModelParity,
    Observed,
    Op,
    Refusal,
    ScanPoint,
    Speed,
    Timing,
    Trace,
    base_name,
)
from mps_doctor.model.predict import load_table, predict
from mps_doctor.model.report import build_report, report_document
from mps_doctor.model.run import ModelRequest, fallback_enabled
from mps_doctor.model.target import parse_target
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.model_markdown import render_model_markdown
from mps_doctor.render.model_text import render_model_text
from mps_doctor.versions import load_releases
from tests.machines import load_machine, replay_facts
from tests.paths import TESTS_DIR
from tests.rendered import live_problems

HERE = TESTS_DIR
FIXTURE = os.path.join(HERE, "data", "mps_kernels_fixture.json")
SCHEMA = os.path.join(os.path.dirname(HERE), "mps_doctor", "data", "model.schema.json")
TABLE = load_table(FIXTURE)


def op(name, *dtypes, phases=("forward",), first=None):
    return Op(name=name, count=1, phases=phases, dtypes=dtypes or ("float32",),
              self_dtypes=(first or (dtypes or ("float32",))[0],), devices=("cpu",))


STEP = (op("aten::convolution.default"), op("aten::relu.default"), op("aten::lerp_.Scalar", phases=("optimizer",)),
        op("aten::isin.Tensor_Tensor", "int64", "bool"), op("profiler::_record_function_enter_new.default"),
        op("torchvision::nms.default"))
LOADED = Loaded(class_name="Net", module="tests", parameters=1000, parameter_bytes=4000,
                parameter_dtypes={"float32": 1000}, batch=8, batch_argument=True, loss="given",
                inputs=(InputInfo((8, 3), "float32"),), trace_available=True)


def mac_facts(machine="m2-native-torch213", env=None):
    facts = replay_facts(load_machine(machine))
    if env:
        facts = replace(facts, host=replace(facts.host, env=dict(facts.host.env, **env)))
    return facts


def linux_facts():
    return replay_facts(load_machine("linux-x86-cpu-torch"))


def model_facts(facts, device="mps", **stages):
    stages.setdefault("loaded", LOADED)
    stages.setdefault("trace", Trace(available=True, ops=STEP, loss=1.0))
    return ModelFacts(target=facts.target, device=device, **stages)


def request(text="mps-doctor:mnist", **fields):
    return ModelRequest(target=parse_target(text), device=fields.pop("device", "mps"), **fields)


def statuses(report):
    return {r.id: r.status.value for r in report.results}


# TARGET


def test_targets_builtin_file_and_module(tmp_path):
    assert parse_target("torchvision:resnet18").kind == "builtin"
    assert parse_target("torchvision:resnet18").default_batch == 16
    (tmp_path / "net.py").write_text("def make():\n    pass\n")
    spec = parse_target("net.py:make", cwd=str(tmp_path))
    assert (spec.kind, spec.path, spec.factory) == ("file", str(tmp_path / "net.py"), "make")
    assert parse_target("pkg.models:build.small").child_options() == {"kind": "module", "module": "pkg.models",
                                                                     "factory": "build.small"}


@pytest.mark.parametrize("text, words", [
    ("resnet18", "expected path/to/file.py:factory"), ("missing.py:make", "no such file"),
    ("torchvision:resnet50", "not a built-in"), ("pkg.mod:make-it", "not a Python name"),
    ("dir/notes.txt:make", "not a .py file"), ("pkg..mod:make", "neither a .py file"), (":make", "expected"),
    ("pkg.mod:\u0430make", "not a Python name"),
])
def test_bad_targets_are_usage_errors_naming_the_problem(tmp_path, text, words):
    with pytest.raises(UsageError) as caught:
        parse_target(text, cwd=str(tmp_path))
    assert words in str(caught.value) and caught.value.exit_code == 2


# Prediction


def test_base_names_are_the_kernel_tables_operator_names():
    assert [base_name(n) for n in ("aten::add_.Tensor", "aten::_foreach_add_.List", "aten::__iand__.Scalar",
                                   "aten::isin.Tensor_Tensor")] == ["add", "_foreach_add", "and", "isin"]


def test_prediction_names_missing_operators_per_release_and_where_all_are_native():
    prediction = predict(STEP, "2.9.1", TABLE)
    assert prediction.ops == ("convolution", "relu", "lerp", "isin")
    assert prediction.other == ("torchvision::nms.default",)
    assert prediction.release == "2.9" and prediction.in_table
    assert prediction.missing == ("lerp", "isin")
    assert [(row.release, row.missing) for row in prediction.coverage] == [
        ("2.3", ("lerp", "isin")), ("2.9", ("lerp", "isin")), ("2.11", ()), ("2.13", ()), ("2.15", ())]
    assert prediction.native_from == "2.11"
    assert prediction.first_native == {"lerp": "2.11", "isin": "2.11"}


def test_an_operator_native_only_in_the_newest_release_and_one_never():
    ops = (op("aten::upsample_bicubic2d.default"), op("aten::_linalg_solve_ex.default"))
    prediction = predict(ops, "2.13.0", TABLE)
    assert prediction.missing == ("upsample_bicubic2d", "_linalg_solve_ex")
    assert prediction.first_native == {"upsample_bicubic2d": "2.15", "_linalg_solve_ex": None}
    assert prediction.native_from is None


def test_a_release_outside_the_table_and_a_missing_table(tmp_path):
    assert not predict(STEP, "2.10.0", TABLE).in_table
    empty = load_table(str(tmp_path / "none.json"))
    prediction = predict(STEP, "2.9.1", empty)
    assert prediction.coverage == () and prediction.native_from is None


# Dtype rules


def test_float64_fails_on_mps_in_every_release():
    ops = (op("aten::mm.default", "float64"),)
    for torch in ((1, 12), (2, 9), (2, 15)):
        found = rules.mps_findings(ops, LOADED, torch, "15.1", load_releases())
        assert [(f.rule, f.status) for f in found] == [("float64", "fail")]
        assert "aten::mm.default" in found[0].summary and "float64" in found[0].message


def test_bfloat16_before_23_gated_on_macos14_in_23_to_28_and_free_after():
    ops = (op("aten::mm.default", "bfloat16"),)
    table = load_releases()
    assert [f.status for f in rules.mps_findings(ops, LOADED, (2, 2), "15.1", table)] == ["fail"]
    assert [f.rule for f in rules.mps_findings(ops, LOADED, (2, 5), "13.6", table)] == ["macos14-features"]
    assert rules.mps_findings(ops, LOADED, (2, 5), "14.1", table) == ()
    assert rules.mps_findings(ops, LOADED, (2, 9), "14.1", table) == ()
    unknown = rules.mps_findings(ops, LOADED, (2, 5), None, table)
    assert [(f.rule, f.status) for f in unknown] == [("macos14-features", "warn")]


def test_fft_and_complex_are_gated_like_bfloat16():
    ops = (op("aten::_fft_r2c.default", "float32", "complex64"),)
    found = rules.mps_findings(ops, LOADED, (2, 4), "13.5", load_releases())
    assert found[0].rule == "macos14-features" and "complex tensors and FFT" in found[0].summary


def test_int64_reductions_before_macos_133_and_torch_21():
    ops = (op("aten::cumsum.default", "int64"), op("aten::argmax.default", "float32", "int64", first="float32"))
    table = load_releases()
    found = rules.mps_findings(ops, LOADED, (2, 2), "13.2", table)
    assert [f.rule for f in found] == ["int64-reductions"] and found[0].ops == ("aten::cumsum.default",)
    assert rules.mps_findings(ops, LOADED, (2, 2), "13.3", table) == ()
    assert [f.rule for f in rules.mps_findings(ops, LOADED, (2, 0), "14.0", table)] == ["int64-reductions"]


def test_scatter_reduce_on_int64_needs_macos_15_from_213():
    ops = (op("aten::scatter_reduce.two", "int64"),)
    table = load_releases()
    assert rules.mps_findings(ops, LOADED, (2, 5), "14.0", table) == ()
    assert "refuses its min and max" in rules.mps_findings(ops, LOADED, (2, 9), "14.0", table)[0].summary
    assert "macOS 15" in rules.mps_findings(ops, LOADED, (2, 13), "14.6", table)[0].summary
    assert rules.mps_findings(ops, LOADED, (2, 13), "15.0", table) == ()
    # 2.15's binary no longer carries the macOS 15 refusal (mps.op-needs-macos15, read from the wheels).
    assert "macOS 15" in rules.mps_findings(ops, LOADED, (2, 14), "14.6", table)[0].summary
    assert rules.mps_findings(ops, LOADED, (2, 15), "14.6", table) == ()


def test_cuda_bfloat16_below_sm80_and_the_tf32_state():
    ops = (op("aten::mm.default", "bfloat16"),)
    found = rules.cuda_findings(ops, LOADED, (7, 5), {"matmul": False, "cudnn": True})
    assert [(f.rule, f.status) for f in found] == [("cuda-bfloat16", "warn"), ("tf32", "pass")]
    assert "matmuls off" in found[1].summary and "convolutions on" in found[1].summary
    assert [f.rule for f in rules.cuda_findings(ops, LOADED, (9, 0), None)] == []


# Results and verdict


@pytest.mark.parametrize("value, enabled", [("1", True), (" 2", True), ("-1", True), ("0", False), ("", False),
                                            (None, False), ("yes", False), ("١", False)])
def test_the_fallback_variable_reads_as_torch_reads_it(value, enabled):
    assert fallback_enabled(value) is enabled


def test_predicted_missing_operators_without_the_fallback_will_fail_with_both_remedies():
    facts = linux_facts()
    report = build_report(request(torch="2.9"), facts, model_facts(facts), TABLE)
    assert report.verdict.state == "will-fail" and report.verdict.basis == "predicted"
    assert report.verdict.root_cause == "model.operators" and report.exit_code() == 1
    operators = report.results[1]
    assert "aten::lerp_.Scalar" in operators.summary and "aten::isin.Tensor_Tensor" in operators.summary
    assert any("torch 2.11" in d for d in operators.details)
    commands = remedy_commands(report.plan_report(), "bash")["model.operators"]
    # Not a Mac: the release is named for the Mac, the variable is set here.
    assert commands[0].startswith("# on the Mac: install torch 2.11 or newer")
    assert commands[-1] == "export PYTORCH_ENABLE_MPS_FALLBACK=1"
    assert remedy_commands(report.plan_report(), "fish")["model.operators"][-1] == \
        "set -gx PYTORCH_ENABLE_MPS_FALLBACK 1"


def test_observed_fallbacks_with_the_flag_set_run_with_fallbacks():
    facts = mac_facts(env={"PYTORCH_ENABLE_MPS_FALLBACK": "1"})
    observed = Observed(device="mps", fallback_env="1", traced=True, ops=STEP, loss=1.0, fallback_warnings=(
        "UserWarning: The operator 'aten::lerp_.Scalar' is not currently supported on the MPS backend and will fall "
        "back to run on the CPU. This may have performance implications.",))
    report = build_report(request(), facts, model_facts(facts, observed=observed), TABLE)
    assert report.verdict.state == "runs-with-fallbacks" and report.verdict.basis == "observed"
    assert statuses(report)["model.operators"] == "warn" and report.exit_code() == 1
    assert "aten::lerp_.Scalar" in report.results[1].summary


def test_observed_fallbacks_without_the_flag_name_the_first_notimplementederror_and_install_the_native_release():
    facts = mac_facts()
    warning = ("UserWarning: The operator 'aten::isin.Tensor_Tensor_out' is not currently supported on the MPS backend "
               "and will fall back to run on the CPU.")
    observed = Observed(device="mps", fallback_env="1", traced=True, ops=STEP, loss=1.0, fallback_warnings=(warning,))
    without = Observed(device="mps", fallback_env="0", traced=True, refused=(
        Refusal("aten::isin.Tensor_Tensor", "NotImplementedError", "The operator ... not currently implemented"),))
    installed = replace(facts.target, torch=replace(facts.target.torch, version="2.9.1"))
    facts = replace(facts, target=installed)
    mf = model_facts(facts, observed=observed, observed_without_fallback=without)
    report = build_report(request(), facts, mf, TABLE)
    assert report.verdict.state == "will-fail" and report.verdict.basis == "observed"
    operators = report.results[1]
    assert "aten::isin.Tensor_Tensor_out" in operators.summary
    assert "aten::isin.Tensor_Tensor raises NotImplementedError first" in " ".join(operators.details)
    commands = remedy_commands(report.plan_report(), "zsh")["model.operators"]
    assert any("'torch==2.11.*'" in c and "'torchvision==0.26.*'" in c for c in commands), commands
    assert commands[-1] == "export PYTORCH_ENABLE_MPS_FALLBACK=1"


def test_a_fully_measured_mac_run_is_ready_with_memory_speed_and_parity():
    facts = mac_facts()
    clean = (op("aten::convolution.default"), op("aten::relu.default"))
    memory = Memory(device="mps", points=(MemoryPoint(8, 2 ** 30), MemoryPoint(4, 2 ** 29 + 2 ** 28)),
                    limit_bytes=16 * 2 ** 30, limit_source="torch.mps.recommended_max_memory()")
    speed = Speed(device="mps", batch=8, runs={"mps": Timing(300.0, (10.0, 11.0, 10.5)), "cpu": Timing(90.0, (40.0, 42.0, 41.0))},
                  scan=(ScanPoint(1, 5.0, 4.0), ScanPoint(2, 6.0, 8.0), ScanPoint(4, 8.0, 20.0), ScanPoint(8, 10.5, 41.0)),
                  scan_complete=True)
    parity = ModelParity(device="mps", reference="cpu-float32", loss=Comparison("loss", True, 1e-6, 2.3),
                         grads=(Comparison("w", True, 1e-5, 0.1),))
    mf = model_facts(facts, trace=Trace(available=True, ops=clean), observed=Observed(device="mps", traced=True, ops=clean),
                     memory=memory, speed=speed, parity=parity)
    report = build_report(request(), facts, mf, TABLE)
    assert report.verdict.state == "ready" and report.exit_code() == 0, report.results
    assert set(statuses(report).values()) == {"pass"}
    summaries = {r.id: r.summary for r in report.results}
    # A line through (4, 0.75 GiB) and (8, 1 GiB): 0.5 GiB fixed, 64 MiB per sample, 16 GiB recommended.
    assert "about 248 fit" in summaries["model.memory"]
    assert "3.90x" in summaries["model.speed"] and "faster from batch 2" in summaries["model.speed"]


def test_memory_near_the_limit_warns_with_a_smaller_batch_and_the_watermark_in_the_users_shell():
    facts = mac_facts()
    memory = Memory(device="mps", points=(MemoryPoint(8, 14 * 2 ** 30),), limit_bytes=16 * 2 ** 30,
                    limit_source="torch.mps.recommended_max_memory()")
    mf = model_facts(facts, trace=Trace(available=True, ops=(op("aten::mm.default"),)),
                     observed=Observed(device="mps", traced=True, ops=(op("aten::mm.default"),)), memory=memory)
    report = build_report(request(), facts, mf, TABLE)
    result = next(r for r in report.results if r.id == "model.memory")
    assert result.status == Status.WARN and "88%" in result.summary
    # 64 KiB of parameters (times four: weights, gradients, AdamW's moments) and 1.75 GiB per sample: 7 fit in 80%.
    assert remedy_commands(report.plan_report(), "fish")["model.memory"] == (
        "# batch 7 or less keeps the peak under 80% of the limit",)
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO (default 1.7)" in result.remedy.why


def test_out_of_memory_on_mps_raises_the_watermark_just_above_what_the_step_asked_for():
    facts = mac_facts()
    message = ("MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.00 GB, max allowed: 18.13 GB). "
               "Tried to allocate 2.00 GB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper "
               "limit for memory allocations (may cause system failure).")
    observed = Observed(device="mps", traced=True, error=ErrorInfo("RuntimeError", message), where="the training step")
    report = build_report(request(), facts, model_facts(facts, observed=observed), TABLE)
    assert report.verdict.root_cause == "model.memory"
    # 20 GB asked of 18.13 GB allowed at ratio 1.7: 1.7 * 20 / 18.13 = 1.875, so 2.0 with a tenth to spare.
    assert remedy_commands(report.plan_report(), "zsh")["model.memory"] == (
        "# a smaller batch: --batch 4", "export PYTORCH_MPS_HIGH_WATERMARK_RATIO=2.0")
    # Past 2.0, which torch refuses (MPSAllocator.h), only a smaller batch is offered.
    larger = message.replace("Tried to allocate 2.00 GB", "Tried to allocate 6.00 GB")
    observed = replace(observed, error=ErrorInfo("RuntimeError", larger))
    report = build_report(request(), facts, model_facts(facts, observed=observed), TABLE)
    assert remedy_commands(report.plan_report(), "zsh")["model.memory"] == ("# a smaller batch: --batch 4",)


def test_an_observed_float64_refusal_fails_the_dtypes_with_the_float32_remedy():
    facts = mac_facts()
    error = ErrorInfo("TypeError", rules.FLOAT64_MESSAGE.split(": ", 1)[1])
    observed = Observed(device="mps", traced=True, error=error, where="moving the model to mps")
    report = build_report(request(), facts, model_facts(facts, observed=observed), TABLE)
    assert report.verdict.state == "will-fail" and report.verdict.root_cause == "model.dtypes"
    assert "moving the model to mps" in report.results[2].summary
    assert remedy_commands(report.plan_report(), "bash")["model.dtypes"][0].startswith("# replace .double()")
    assert statuses(report)["model.memory"] == "skip"


def test_wrong_gradients_fail_parity_and_a_timeout_is_its_own_state():
    facts = mac_facts()
    clean = (op("aten::mm.default"),)
    parity = ModelParity(device="mps", reference="cpu-float32", loss=Comparison("loss", True, 1e-6, 2.3),
                         grads=(Comparison("fc.weight", True, 0.5, 1.0),))
    mf = model_facts(facts, trace=Trace(available=True, ops=clean), observed=Observed(device="mps", ops=clean),
                     parity=parity)
    report = build_report(request(), facts, mf, TABLE)
    assert report.verdict.root_cause == "model.parity" and "fc.weight" in report.results[5].summary
    stopped = model_facts(facts, failure=ProbeFailure(stage="model-memory", kind="timeout", timeout_seconds=30.0),
                          trace=Trace(available=True, ops=clean), observed=Observed(device="mps", ops=clean))
    report = build_report(request(), facts, stopped, TABLE)
    assert report.verdict.state == "timed-out" and report.exit_code() == 1
    assert statuses(report)["model.memory"] == "timeout" and statuses(report)["model.parity"] == "skip"


def test_a_target_that_does_not_load_is_a_target_error():
    facts = linux_facts()
    loaded = Loaded(error=ErrorInfo("ModuleNotFoundError", "No module named 'mymodels'"), where="import")
    report = build_report(request(), facts, ModelFacts(target=facts.target, device="mps", loaded=loaded), TABLE)
    assert report.verdict.state == "target-error" and report.exit_code() == 1
    assert "No module named 'mymodels'" in report.results[0].summary
    assert set(statuses(report)[i] for i in ("model.operators", "model.dtypes")) == {"skip"}


# The document and its renderers


HOSTILE = "x\x1b[31m\u202e`|<b>@team</b>"


def hostile_report():
    facts = mac_facts()
    evil = (op("aten::" + "lerp_.Scalar"), op("custom::" + HOSTILE))
    loaded = replace(LOADED, class_name=HOSTILE, module=HOSTILE)
    observed = Observed(device="mps", traced=True, error=ErrorInfo("RuntimeError", HOSTILE + "\nsecond line"),
                        where="the training step on mps", op="aten::" + HOSTILE)
    return build_report(request(), facts, model_facts(facts, loaded=loaded, trace=Trace(available=True, ops=evil),
                                                      observed=observed), TABLE)


def test_the_json_document_validates_and_carries_the_exact_values():
    report = hostile_report()
    document = report_document(report, remedy_commands(report.plan_report(), "bash"))
    with open(SCHEMA) as handle:
        jsonschema.validate(document, json.load(handle))
    assert document["facts"]["model"]["loaded"]["class_name"] == HOSTILE
    assert json.loads(json.dumps(document))["verdict"]["basis"] == "observed"


def test_text_and_markdown_show_untrusted_strings_escaped():
    report = hostile_report()
    text = render_model_text(report, verbose=True)
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b" in text
    markdown = render_model_markdown(report)
    assert "\x1b" not in markdown and "\u202e" not in markdown
    assert live_problems(markdown) == []


def test_the_cpus_own_attention_kernel_is_predicted_as_the_operator_the_model_called():
    ops = (op("aten::_scaled_dot_product_flash_attention_for_cpu.default"),
           op("aten::_scaled_dot_product_flash_attention_for_cpu_backward.default", phases=("backward",)))
    table = load_table(os.path.join(os.path.dirname(HERE), "mps_doctor", "data", "mps_kernels.json"))
    prediction = predict(ops, "2.11.0", table)
    assert prediction.ops == ("scaled_dot_product_attention",) and prediction.missing == ()


def test_half_precision_parity_is_judged_against_the_cpus_own_error_in_that_dtype():
    facts = mac_facts()
    clean = (op("aten::mm.default", "bfloat16"),)
    loaded = replace(LOADED, parameter_dtypes={"bfloat16": 1000})

    def run(device_error, cpu_error):
        parity = ModelParity(device="mps", reference="cpu-float32", dtype="bfloat16",
                             loss=Comparison("loss", True, 1e-4, 2.0), grads=(Comparison("w", True, device_error, 1.0),),
                             baseline_loss=Comparison("loss", True, 1e-4, 2.0),
                             baseline_grads=(Comparison("w", True, cpu_error, 1.0),))
        mf = model_facts(facts, loaded=loaded, trace=Trace(available=True, ops=clean),
                         observed=Observed(device="mps", ops=clean), parity=parity)
        return next(r for r in build_report(request(), facts, mf, TABLE).results if r.id == "model.parity")

    # Within bfloat16's tolerance (1e-1 of the scale), or no further than twice what the CPU strays in bfloat16.
    assert run(0.05, 0.2).status == Status.PASS
    assert run(0.3, 0.2).status == Status.PASS
    failing = run(0.5, 0.2)
    assert failing.status == Status.FAIL and "w: 5.0e-01 of its scale (the CPU in bfloat16: 2.0e-01)" in failing.details


def test_the_largest_batch_follows_the_backwards_peak_not_the_optimizer_steps():
    facts = mac_facts()
    mib = 2 ** 20
    # The optimizer step's temporaries make the whole peak nearly flat; the backward's grows 64 MiB a sample.
    memory = Memory(device="mps", points=(MemoryPoint(8, 1024 * mib, 640 * mib), MemoryPoint(4, 1000 * mib, 384 * mib)),
                    limit_bytes=16384 * mib, limit_source="torch.mps.recommended_max_memory()")
    clean = (op("aten::mm.default"),)
    mf = model_facts(facts, trace=Trace(available=True, ops=clean), observed=Observed(device="mps", ops=clean),
                     memory=memory)
    result = next(r for r in build_report(request(), facts, mf, TABLE).results if r.id == "model.memory")
    # 128 MiB fixed, 64 MiB a sample: (16384 - 128) / 64 = 254 samples.
    assert "about 254 fit" in result.summary, result.summary


def test_the_progress_line_names_each_model_stage_and_scan_step():
    from mps_doctor.model.command import model_work

    assert model_work({"event": "begin", "stage": "model-observe", "data": {"device": "mps"}}) == \
        "running one training step on mps"
    assert model_work({"event": "begin", "stage": "model-trace", "data": {"device": "cpu"}}) == \
        "tracing one training step on the CPU"
    assert model_work({"event": "progress", "stage": "model", "data": {"phase": "scan", "device": "cuda", "batch": 8}}) \
        == "timing batch 8 on cuda"
    # Frames come from the user's code's interpreter: an unknown device or a hostile batch is not shown as given.
    assert model_work({"event": "progress", "stage": "model", "data": {"phase": "scan", "device": "\x1b[2J",
                                                                        "batch": "x"}}) == "timing batch ? on the device"


def test_no_model_run_reads_its_target_from_a_file(cli):
    result = cli("model", "mps-doctor:mnist", "--from", "report.json")
    assert result.exit_code == 2 and "--from" in result.output


def test_a_builtin_whose_torchvision_does_not_import_is_fixed_by_installing_it_with_torch():
    from mps_doctor.checking.model import InstallTorch, Status
    from mps_doctor.facts import ErrorInfo, Target
    from mps_doctor.model.facts import Loaded, ModelFacts
    from mps_doctor.model.results import load_outcome, not_traced

    failed = ModelFacts(Target(python="python3", device="mps"), "mps",
                        loaded=Loaded(error=ErrorInfo("ModuleNotFoundError", "No module named 'torchvision'"),
                                      where="factory"))
    outcome = load_outcome(failed, "torchvision:vit_b_16")
    assert outcome.status == Status.FAIL and "needs torchvision" in outcome.summary
    assert outcome.remedy.actions == (InstallTorch(),)
    assert not_traced(failed) == "no operators traced: the TARGET did not load"
    own = load_outcome(failed, "models.py:make")
    assert own.remedy.key == "model-target"


@pytest.mark.parametrize("timeout, given, expected", [(900, None, 60.0), (120, None, 20.0), (900, 0, 0), (300, 1.5, 1.5),
                                                     (900, 100, 100), (25, 1000, 25 / 6)])
def test_the_scan_budget_is_given_or_a_minute_and_never_more_than_a_sixth_of_the_timeout(timeout, given, expected):
    from mps_doctor.model.command import model_request
    assert model_request("mps-doctor:mnist", "mps", None, None, None, timeout, scan_seconds=given).scan_seconds == expected
