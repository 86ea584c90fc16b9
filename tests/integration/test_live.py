"""mps-doctor for real on this machine: real torch, real venvs, real child interpreters, real exit codes."""

import json
import os
import re

import pytest

from mps_doctor.child.mpsd_frame import FRAME_MARK
from tests.helpers import TARGET_PYTHON, doctor, fake_torch, make_venv, script
from tests.paths import ROOT_DIR, TESTS_DIR

SCHEMA = os.path.join(ROOT_DIR, "mps_doctor", "data", "report.schema.json")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cpu_report(tmp_path_factory):
    """One real `check --device cpu --format json` of the target interpreter (which has torch 2.13.0)."""
    path = tmp_path_factory.mktemp("report") / "report.json"
    code, out, err = doctor("check", "--python", TARGET_PYTHON, "--device", "cpu", "--format", "json", "--output",
                            str(path))
    return code, out, err, path


def test_cpu_is_ready_with_torch(cpu_report):
    code, out, err, path = cpu_report
    assert code == 0, err
    assert out == ""  # --output: nothing on stdout
    doc = json.loads(path.read_text())
    assert doc["verdict"]["state"] == "ready"
    statuses = {r["id"]: r["status"] for r in doc["results"]}
    assert statuses["torch.import"] == "pass"
    assert statuses["device.parity"] == "pass"
    assert statuses["device.smoke"] == "pass"


def test_real_smoke_step_lowered_the_loss_and_recorded_timing(cpu_report):
    doc = json.loads(cpu_report[3].read_text())
    smoke = doc["facts"]["target"]["smoke"]
    assert smoke["device"] == "cpu" and smoke["reference"] == "cpu-float64"
    assert smoke["loss_after"] < smoke["loss_before"]
    assert smoke["cold_step_ms"] > 0 and smoke["warm_step_ms"] > 0
    assert len(smoke["grad_parity"]) == 8


def test_report_validates_against_the_documented_schema(cpu_report):
    with open(SCHEMA) as handle:
        schema = json.load(handle)
    import jsonschema

    jsonschema.validate(json.loads(cpu_report[3].read_text()), schema)


def test_from_a_fresh_report_gives_identical_results(cpu_report, tmp_path):
    again = tmp_path / "again.json"
    code, _, err = doctor("check", "--from", str(cpu_report[3]), "--format", "json", "--output", str(again))
    assert code == 0, err
    first, second = json.loads(cpu_report[3].read_text()), json.loads(again.read_text())
    assert first["results"] == second["results"]
    assert first["verdict"] == second["verdict"]
    assert first["facts"] == second["facts"]


def test_json_on_stdout_is_one_document_and_nothing_else():
    code, out, err = doctor("check", "--device", "cpu", "--quick", "--format", "json")
    assert code == 0, err
    json.loads(out)


def test_mps_on_linux_fails_at_the_os_layer_with_a_device_hint():
    code, out, _ = doctor("check", "--device", "mps", "--quick")
    assert code == 1
    assert "Root cause: this is Linux: the MPS backend exists only on macOS" in out
    assert re.search(r"\$ .+ check --python \S+ --device cpu\n", out), out
    assert out.rstrip().splitlines()[-1].startswith("not ready: this is Linux")


def test_venv_without_torch_is_diagnosed_through_python(tmp_path):
    python = make_venv(tmp_path / "bare", TARGET_PYTHON)
    code, out, err = doctor("check", "--python", python, "--device", "cpu")
    assert code == 1, err
    assert "torch is not installed in %s" % python in out
    assert "$ %s -m pip install 'torch==2.15.*' 'torchvision==0.29.*' --index-url https://download.pytorch.org/whl/cpu" % python in out


def test_broken_torch_import_is_classified(tmp_path):
    python = make_venv(tmp_path / "broken")
    fake_torch(python, "raise ImportError(\"libtorch_cpu.so: cannot open shared object file: No such file or directory\")")
    code, out, _ = doctor("check", "--python", python, "--device", "cpu")
    assert code == 1
    assert "`import torch` fails: a shared library of torch is missing or broken" in out


@pytest.mark.parametrize(("signal_name", "expected"), [("SIGSEGV", "crashed with SIGSEGV"),
                                                       ("SIGILL", "crashed with SIGILL (Illegal instruction)")])
def test_torch_that_crashes_on_import_is_a_check_result(tmp_path, signal_name, expected):
    python = make_venv(tmp_path / "crash")
    fake_torch(python, "import os, signal\nos.kill(os.getpid(), signal.%s)\n" % signal_name)
    code, out, err = doctor("check", "--python", python, "--device", "cpu")
    assert code == 1, err
    assert "`import torch` %s" % expected in out
    assert "Traceback" not in out + err


def test_torch_that_hangs_on_import_times_out_as_a_check_result(tmp_path):
    python = make_venv(tmp_path / "hang")
    fake_torch(python, "import time\ntime.sleep(600)\n")
    code, out, err = doctor("check", "--python", python, "--device", "cpu", "--timeout", "3")
    assert code == 1, err
    assert "Timed out: stopped after the --timeout of 3 s while importing torch" in out


def test_python_that_hangs_before_answering_is_a_check_result(tmp_path):
    python = script(tmp_path / "python3", "sleep 600")
    code, out, err = doctor("check", "--python", python, "--device", "cpu", "--timeout", "2")
    assert code == 1, err
    assert "Timed out: stopped after the --timeout of 2 s while starting the target Python" in out


def plain_file(path):
    path.write_text("x")
    return str(path)


@pytest.mark.parametrize(("make", "message"), [
    (lambda d: str(d / "missing"), "no such file"),
    (lambda d: str(d), "is a directory"),
    (lambda d: plain_file(d / "plain"), "not executable"),
    (lambda d: script(d / "fake", "echo hello"), "not a Python interpreter"),
])
def test_bad_python_is_a_one_line_usage_error(tmp_path, make, message):
    code, out, err = doctor("check", "--python", make(tmp_path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"),
    ("not json at all", "neither an mps-doctor JSON report nor pasted text it recognizes"),
    ('{"hello": 1}', "not an mps-doctor report"),
    ('{"format": "mps-doctor-report", "schema_version": 99, "options": {}, "facts": {}}', "newer than this mps-doctor"),
    ('{"format": "mps-doctor-report", "schema_version": 1, "options": {}, "facts": {"host": 3}}', "facts.host: expected an object"),
    ('[1, 2]', "not an mps-doctor report"),
])
def test_bad_report_is_a_one_line_usage_error(tmp_path, content, message):
    path = tmp_path / "report.json"
    if content is not None:
        path.write_text(content)
    code, out, err = doctor("check", "--from", str(path))
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and "Traceback" not in err, err


def test_output_into_a_missing_folder_is_a_usage_error_and_writes_nothing(tmp_path):
    code, _, err = doctor("check", "--device", "cpu", "--quick", "--output", str(tmp_path / "no" / "r.json"))
    assert code == 2 and "does not exist" in err
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(("args", "message"), [
    (("check", "--frobnicate"), "No such option"),
    (("check", "--device", "tpu"), "Invalid value for '--device'"),
    (("chek",), "No such command 'chek'"),
    (("bench", "--batch", "0"), "Invalid value for '--batch'"),
    (("fix", "--shell", "tcsh"), "Invalid value for '--shell'"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    code, out, err = doctor(*args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and message in err and err.startswith("mps-doctor: error: ")


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("check", "--help"), ("list-checks",)])
def test_help_and_version_never_import_torch(args):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mps_doctor"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]


def test_check_itself_never_imports_torch_in_the_doctor_process():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mps_doctor", "check", "--device", "cpu", "--quick"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert "click" in imported  # the import log is real
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]


def test_help_documents_the_exit_codes():
    code, out, _ = doctor("check", "--help")
    assert code == 0
    for line in ("0  ready", "1  not ready", "2  usage error", "3  the doctor itself failed"):
        assert line in out


def test_markdown_is_redacted_by_default(tmp_path):
    home = os.path.expanduser("~")
    code, out, _ = doctor("check", "--device", "cpu", "--quick", "--format", "markdown")
    assert code == 0
    assert out.startswith("<details><summary>mps-doctor")
    if home not in ("/", ""):
        assert home not in out
    doc = json.loads(out.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert doc["format"] == "mps-doctor-report"


def test_the_real_h200_report_replays_ready_with_every_cuda_layer_passing():
    """The report `check --device cuda --format json` produced on the H200 (paths redacted)."""
    path = os.path.join(TESTS_DIR, "machines", "linux-h200-cuda", "report.json")
    code, out, err = doctor("check", "--from", path, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    layers = [r for r in doc["results"] if r["layer"] is not None]
    assert [r["id"] for r in layers][:2] == ["os.linux", "cuda.driver"]
    assert all(r["status"] == "pass" for r in layers)
    smoke = doc["facts"]["target"]["smoke"]
    assert smoke["device"] == "cuda" and smoke["loss_after"] < smoke["loss_before"]


def nvidia_hardware_here():
    """Whether this machine shows NVIDIA hardware: a /dev/nvidia* file or a PCI device of vendor 0x10de."""
    import glob

    vendors = []
    for path in glob.glob("/sys/bus/pci/devices/*/vendor"):
        with open(path) as handle:
            vendors.append(handle.read().strip())
    return bool(glob.glob("/dev/nvidia*")) or "0x10de" in vendors


def test_cuda_on_this_machine_stops_at_the_driver_layer_with_a_remedy():
    code, out, _ = doctor("check", "--device", "cuda", "--quick")
    assert code == 1
    assert "$ nvidia-smi" not in out
    if nvidia_hardware_here():
        assert "Root cause: no NVIDIA driver" in out or "but the driver's device files exist" in out
    else:
        assert "Root cause: this machine has no NVIDIA GPU (no /dev/nvidia*, no PCI device of vendor 0x10de)" in out
        assert re.search(r"^    \$ .* check --python \S+ --device cpu$", out, flags=re.M), out


def test_python_too_old_for_the_probe_is_a_check_result(tmp_path):
    """What the child's __main__ prints on Python < 3.7 (it parses on any Python), from a stand-in interpreter."""
    frame = FRAME_MARK + '{"event": "result", "stage": "interpreter", "data": {"too_old": true, "version": [2, 7, 18]}}'
    python = script(tmp_path / "python2", "echo '%s'" % frame)
    code, out, err = doctor("check", "--python", python, "--device", "cpu")
    assert code == 1, err
    assert "Python 2.7.18 is too old for mps-doctor's probe" in out


@pytest.mark.parametrize("name", ["mac-rosetta", "mac-macos13-torch29", "mac-intel-conda", "linux-cpu-torch-on-gpu"])
def test_example_reports_replay_to_their_recorded_verdict(name):
    path = os.path.join(ROOT_DIR, "docs", "examples", name + ".json")
    with open(path) as handle:
        saved = json.load(handle)
    code, out, err = doctor("check", "--from", path, "--format", "json")
    assert code == 1, err
    assert json.loads(out)["verdict"]["root_cause"] == saved["verdict"]["root_cause"]
    code, script, _ = doctor("fix", "--print-commands", "--from", path)
    assert code == 0 and "# 1/" in script
