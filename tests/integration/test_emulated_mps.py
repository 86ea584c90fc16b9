"""The MPS code paths of the child, run for real under an emulated MPS torch for every API generation.

The host is a recorded Mac replayed through the real parsers; the child is a real interpreter whose CPU torch
presents itself as that Mac's (tests/emulated_mps). See docs/architecture.md for what this proves and what
only a real Mac can.
"""

import json
import os
import subprocess

import pytest

from mps_doctor.checking.registry import layers_for
from tests.emulation import BENCH_RELEASES, CHECK_RELEASES, child_frames, emulate, emulation_env, frame_data
from tests.helpers import TARGET_PYTHON
from tests.machines import load_machine

# The work here is torch in the target interpreter; the Python 3.8 pass of .ci/run leaves it out (pyproject.toml).
pytestmark = [pytest.mark.slow, pytest.mark.target_work]

BENCH_WINDOWS = 2
QUICK_BENCH = ("--batch", "16", "--steps", "2", "--windows", str(BENCH_WINDOWS), "--warmup", "1", "--format", "json")


def release_of(text):
    return tuple(int(part) for part in text.split("."))


def statuses(doc):
    return {r["id"]: r["status"] for r in doc["results"]}


def check_json(cli, *args):
    result = cli("check", "--device", "mps", "--format", "json", *args)
    return result.exit_code, json.loads(result.output)


@pytest.mark.parametrize("release", CHECK_RELEASES)
def test_check_on_mps_is_ready_under_every_generation(cli, monkeypatch, tmp_path, release):
    counters = emulate(monkeypatch, tmp_path, release)
    code, doc = check_json(cli)
    layers = statuses(doc)
    assert code == 0, doc["verdict"]
    assert doc["facts"]["target"]["torch"]["version"] == release
    for layer in layers_for("mps", "Darwin"):
        # Python 3.11 is outside the range of the 1.x wheels (3.7-3.10): a warning, since torch imported.
        assert layers[layer] == ("warn" if layer == "python.version" and release_of(release) < (2, 0) else "pass"), layer
    smoke = doc["facts"]["target"]["smoke"]
    assert smoke["device"] == "mps" and smoke["loss_after"] < smoke["loss_before"]
    seen = counters()
    assert seen["ops"] > 0 and seen["unsynced_clock_reads"] == 0 and seen["host_reads"] >= 4
    # Twice around the cold smoke step, after the warm steps, and after the parity ops (mpsd_probe).
    assert seen["synchronize_calls"] == (0 if release_of(release) < (2, 0) else 4)


@pytest.mark.parametrize("release", BENCH_RELEASES)
def test_bench_on_mps_completes_and_syncs_before_every_clock_read(cli, monkeypatch, tmp_path, release):
    counters = emulate(monkeypatch, tmp_path, release)
    newest = release == BENCH_RELEASES[-1]
    result = cli("bench", "--device", "mps", *(QUICK_BENCH if newest else ("--no-cpu",) + QUICK_BENCH))
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [r["device"] for r in doc["runs"]] == (["cpu", "mps"] if newest else ["mps"])
    if newest:
        assert doc["runs"][0]["name"].startswith("arm64 CPU") and doc["speedup"] > 0
    run = doc["runs"][-1]
    assert run["device"] == "mps" and run["error"] is None and len(run["window_ms_per_step"]) == BENCH_WINDOWS
    # torch.backends.mps.get_name() and get_core_count() arrived in 2.9; before them the bench names the device
    # generically and cannot look up the chip's peak.
    named = release_of(release) >= (2, 9)
    assert run["name"] == ("Apple M2 Pro" if named else "Apple GPU")
    assert run["peak_fp32_tflops"] == (6.8 if named else None)
    seen = counters()
    assert seen["unsynced_clock_reads"] == 0
    # Around the cold step, then around each window (mpsd_bench.bench_device, time_windows).
    syncs = 2 + 2 * BENCH_WINDOWS
    if release_of(release) < (2, 0):
        assert seen["synchronize_calls"] == 0 and seen["host_reads"] >= syncs
    else:
        assert seen["synchronize_calls"] == syncs


EMULATED_DEVICE_SCRIPT = """
import time, torch
x = torch.ones(4, device="mps")
model = torch.nn.Linear(4, 2).to("mps")
assert x.device == model.weight.device == torch.device("mps", 0) and isinstance(model.weight, torch.nn.Parameter)
model(x).sum().backward()
assert model.weight.grad.device.type == "mps" and (x + torch.tensor(2.0)).device.type == "mps"
try:
    x + torch.ones(4)
except RuntimeError as error:
    assert "Expected all tensors to be on the same device" in str(error)
else:
    raise AssertionError("mixing mps and cpu tensors did not fail")
assert x.cpu().device.type == "cpu" and x.to("cpu").device.type == "cpu"
y = x * 2
time.perf_counter()
torch.mps.synchronize()
time.perf_counter()
"""


def test_the_emulated_device_behaves_like_mps_and_counts_a_missing_sync(tmp_path):
    """Devices of tensors, parameters and gradients, the same-device rule, and a clock read while work is queued."""
    log = tmp_path / "log.json"
    env = dict(os.environ, **emulation_env("2.13.0", log_path=log))
    done = subprocess.run([TARGET_PYTHON, "-c", EMULATED_DEVICE_SCRIPT], env=env, stderr=subprocess.PIPE, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(log.read_text())
    assert seen["unsynced_clock_reads"] == 1 and seen["synchronize_calls"] == 1


def test_mps_built_but_not_available_fails_at_its_layer(cli, monkeypatch, tmp_path):
    emulate(monkeypatch, tmp_path, "2.13.0", available="0")
    code, doc = check_json(cli, "--quick")
    assert code == 1
    assert doc["verdict"]["root_cause"] == "torch.mps-available"
    assert statuses(doc)["torch.mps-built"] == "pass"
    assert doc["facts"]["target"]["torch"]["mps_built"] is True


def test_wrong_results_fail_the_parity_layer(cli, monkeypatch, tmp_path):
    emulate(monkeypatch, tmp_path, "2.13.0", wrong_op="matmul")
    code, doc = check_json(cli, "--quick")
    assert code == 1
    assert doc["verdict"]["root_cause"] == "device.parity"
    assert "matmul-batch16" in next(r for r in doc["results"] if r["id"] == "device.parity")["summary"]


def test_out_of_memory_fails_the_parity_layer(cli, monkeypatch, tmp_path):
    emulate(monkeypatch, tmp_path, "2.13.0", max_memory=str(1 << 20))
    code, doc = check_json(cli, "--quick")
    assert code == 1
    assert doc["verdict"]["root_cause"] == "device.parity"
    error = doc["facts"]["target"]["parity"]["error"]
    assert error["type"] == "RuntimeError" and error["message"].startswith("MPS backend out of memory")
    parity = next(r for r in doc["results"] if r["id"] == "device.parity")
    assert "ran out of memory" in parity["summary"]


def test_a_memory_limit_too_low_for_the_parity_ops_is_named_with_its_variable(cli, monkeypatch, tmp_path):
    """The emulated allocator enforces PYTORCH_MPS_HIGH_WATERMARK_RATIO like MPSAllocator: 0.00005 x 22 GiB < 2 MiB."""
    monkeypatch.setenv("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.00005")
    monkeypatch.setenv("PYTORCH_MPS_LOW_WATERMARK_RATIO", "0.00005")
    emulate(monkeypatch, tmp_path, "2.13.0")
    code, doc = check_json(cli, "--quick")
    assert code == 1 and doc["verdict"]["root_cause"] == "device.parity"
    parity = next(r for r in doc["results"] if r["id"] == "device.parity")
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.00005" in parity["summary"]
    assert parity["remedy"]["commands"] == ["unset PYTORCH_MPS_HIGH_WATERMARK_RATIO", "unset PYTORCH_MPS_LOW_WATERMARK_RATIO",
                                            "# also remove them from your shell profile if they are set there"]


@pytest.mark.parametrize(("release", "issue"), [("2.5.1", "issues/77764"), ("2.15.0", "issues/141287")])
def test_an_operator_missing_on_mps_fails_the_parity_layer_with_the_fallback_remedy(cli, monkeypatch, tmp_path, release,
                                                                                    issue):
    monkeypatch.delenv("PYTORCH_ENABLE_MPS_FALLBACK", raising=False)
    emulate(monkeypatch, tmp_path, release, missing_op="addcdiv_")
    code, doc = check_json(cli, "--quick")
    assert code == 1
    assert doc["verdict"]["root_cause"] == "device.parity"
    parity = next(r for r in doc["results"] if r["id"] == "device.parity")
    assert "NotImplementedError" in parity["summary"] and issue in parity["remedy"]["problem"] + " ".join(parity["details"])
    assert parity["remedy"]["commands"] == ["export PYTORCH_ENABLE_MPS_FALLBACK=1"]


def test_an_operator_missing_on_mps_fails_the_smoke_layer_with_the_fallback_remedy(cli, monkeypatch, tmp_path):
    monkeypatch.delenv("PYTORCH_ENABLE_MPS_FALLBACK", raising=False)
    emulate(monkeypatch, tmp_path, "2.13.0", missing_op="max_pool2d")
    code, doc = check_json(cli)
    assert code == 1
    assert doc["verdict"]["root_cause"] == "device.smoke"
    smoke = next(r for r in doc["results"] if r["id"] == "device.smoke")
    assert "NotImplementedError" in smoke["summary"]
    assert smoke["remedy"]["commands"] == ["export PYTORCH_ENABLE_MPS_FALLBACK=1"]


def test_fallback_to_the_cpu_warns_at_the_smoke_layer_and_fails_strict(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("PYTORCH_ENABLE_MPS_FALLBACK", "1")
    counters = emulate(monkeypatch, tmp_path, "2.13.0", missing_op="max_pool2d")
    code, doc = check_json(cli, "--strict")
    assert code == 1
    smoke = next(r for r in doc["results"] if r["id"] == "device.smoke")
    assert smoke["status"] == "warn" and "fell back to the CPU" in smoke["summary"]
    assert "aten::max_pool2d" in doc["facts"]["target"]["smoke"]["fallback_warnings"][0]
    assert counters()["fallbacks"] > 0


def shape(value):
    """VALUE's JSON shape: key names and value types, recursively (lists by their first item)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    if isinstance(value, bool) or value is None:
        return type(value).__name__
    return "number" if isinstance(value, (int, float)) else type(value).__name__


# Mappings whose keys are whatever the file they were read from holds (a venv's pyvenv.cfg).
FREE_FORM = (".interpreter.pyvenv_cfg",)
# Fields the child sends that are newer than these recordings (the environment summary, shadowing): absent from
# the recorded frames, so only the emulated side has them. Facts treat a missing field as unknown.
ADDED_SINCE_RECORDING = {
    ".interpreter": ("platform", "libc", "cpu_model"),
    ".torch": ("shadows", "build"),
    ".torch.packages": ("transformers", "accelerate", "lightning", "pytorch-lightning"),
}


def nullable_equal(recorded, emulated, path=""):
    """Assert both shapes have the same keys and types; a null on either side matches any type (unknown)."""
    if "NoneType" in (recorded, emulated):
        return
    if path in FREE_FORM:
        assert set(recorded.values()) == set(emulated.values()) == {"str"}, path
        return
    if isinstance(recorded, dict):
        newer = [key for key in ADDED_SINCE_RECORDING.get(path, ()) if key not in recorded]
        emulated = {k: v for k, v in emulated.items() if k not in newer} if isinstance(emulated, dict) else emulated
        assert isinstance(emulated, dict) and sorted(recorded) == sorted(emulated), path
        for key in recorded:
            nullable_equal(recorded[key], emulated[key], path + "." + key)
    elif isinstance(recorded, list):
        assert isinstance(emulated, list), path
        if recorded and emulated:
            nullable_equal(recorded[0], emulated[0], path + "[]")
    else:
        assert recorded == emulated, path


@pytest.mark.parametrize(("machine_name", "release"), [("m2-native-torch213", "2.13.0"), ("m1-macos126-torch24", "2.4.1")])
def test_the_child_sends_what_a_recorded_mac_sends_field_for_field(machine_name, release):
    machine = load_machine(machine_name)
    frames, stderr = child_frames(emulation_env(release, machine_name))
    recorded = [(f["event"], f["stage"]) for f in machine["target"]["frames"]]
    # Progress frames say what runs (the progress line) and are no facts; these recordings predate them.
    assert [(f["event"], f["stage"]) for f in frames if f["event"] != "progress"] == recorded, stderr
    assert [f["data"]["phase"] for f in frames if f["event"] == "progress"] == ["reference-step", "steps", "steps"]
    for frame in frames:
        if frame["event"] == "result":
            nullable_equal(shape(frame_data(machine, frame["stage"])), shape(frame["data"]), "." + frame["stage"])
    emulated = {f["stage"]: f["data"] for f in frames if f["event"] == "result"}
    recorded_torch = frame_data(machine, "torch")
    assert emulated["torch"]["mps"] == recorded_torch["mps"]
    interpreter = frame_data(machine, "interpreter")
    for key in ("machine", "sys_platform", "mac_ver", "proc_translated", "pointer_bits", "implementation"):
        assert emulated["interpreter"][key] == interpreter[key], key


def test_fallback_of_a_parity_operator_is_reported(cli, monkeypatch, tmp_path):
    """torch warns once per process (TORCH_WARN_ONCE): a fallback first met in the parity ops must not be lost."""
    monkeypatch.setenv("PYTORCH_ENABLE_MPS_FALLBACK", "1")
    emulate(monkeypatch, tmp_path, "2.13.0", missing_op="addcdiv_")
    code, doc = check_json(cli, "--quick", "--strict")
    assert code == 1
    parity = next(r for r in doc["results"] if r["id"] == "device.parity")
    assert parity["status"] == "warn" and "fell back to the CPU" in parity["summary"]
    assert parity["remedy"]["commands"] == ["%s -m pip install 'torch==2.15.*' 'torchvision==0.29.*'" % TARGET_PYTHON]
    assert "PYTORCH_ENABLE_MPS_FALLBACK=1 moved ops" in parity["remedy"]["problem"]


@pytest.mark.parametrize(("settings", "env", "expected"), [
    ({"missing_op": "addcdiv_"}, {}, "export PYTORCH_ENABLE_MPS_FALLBACK=1"),
    ({}, {"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.00005", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.00005"},
     "unset PYTORCH_MPS_HIGH_WATERMARK_RATIO"),
])
def test_fix_plans_the_remedy_of_a_parity_failure(cli, monkeypatch, tmp_path, settings, env, expected):
    monkeypatch.delenv("PYTORCH_ENABLE_MPS_FALLBACK", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    emulate(monkeypatch, tmp_path, "2.13.0", **settings)
    result = cli("fix", "--device", "mps", "--quick", "--print-commands", "--shell", "zsh")
    assert result.exit_code == 0, result.output
    assert expected in result.output
    assert "install 'torch" not in result.output
