"""A probe that runs out of --timeout is its own outcome (issue 24 item 8): neither passed nor failed, worded as a stop,
with what was still running and a longer --timeout as the remedy; never a broken torch to reinstall. check, fix,
policy init and bench say the same."""

import json
import os
import re
import subprocess
import sys

import jsonschema
import pytest

from mps_doctor.child.mpsd_frame import FRAME_MARK
from tests.helpers import TARGET_PYTHON, script
from tests.machines import load_machine
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
SCHEMAS = os.path.join(ROOT, "mps_doctor", "data")
# A Linux machine with a CPU torch, as its child answered: interpreter, torch, parity and smoke frames.
CPU_FRAMES = load_machine("linux-x86-cpu-torch")["target"]["frames"]


@pytest.fixture()
def slow_torch(tmp_path):
    """A PYTHONPATH whose installed `torch` (its metadata beside it, so no local shadow) takes 4 s to import."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("import time\ntime.sleep(4)\n__version__ = '2.13.0'\n")
    (tmp_path / "torch-2.13.0.dist-info").mkdir()
    (tmp_path / "torch-2.13.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0\n")
    return str(tmp_path)


def doctor(*args, pythonpath=None):
    env = dict(os.environ, NO_COLOR="1")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=180, cwd=ROOT)
    return done.returncode, done.stdout, done.stderr


def stalled_python(folder, frames, then="sleep 600"):
    """A target `python` that answers FRAMES as the child would, then runs THEN (hangs, by default)."""
    (folder / "python.out").write_text("".join(FRAME_MARK + json.dumps(frame) + "\n" for frame in frames))
    return script(folder / "python", 'cat "$0.out"\n' + then)


def until_begin(stage):
    """The recorded frames up to and including the `begin` frame of STAGE."""
    index = next(i for i, f in enumerate(CPU_FRAMES) if f["event"] == "begin" and f["stage"] == stage)
    return CPU_FRAMES[:index + 1]


def progress(**data):
    return {"event": "progress", "stage": "bench", "data": data}


def test_a_slow_import_is_a_timeout_with_what_was_running_and_how_to_raise_it(slow_torch):
    code, out, err = doctor("check", "--device", "cpu", "--timeout", "1", pythonpath=slow_torch)
    assert code == 1, err
    lines = out.splitlines()
    assert "[⏱] Timed out: stopped after the --timeout of 1 s while importing torch" in lines
    assert any(re.match(r"  \[⏱\] +\d+ torch\.import +stopped after the --timeout of 1 s while importing torch$", line)
               for line in lines), out
    assert any(re.match(r"  \[-\] +\d+ device\.parity +skipped: torch\.import timed out$", line) for line in lines), out
    assert "--timeout 61" in out
    assert lines[-1].startswith("timed out, so not shown ready: stopped after the --timeout of 1 s while importing "
                                "torch; 0 failures, 0 warnings, ")
    assert lines[-1].endswith(", 1 timed out")
    assert "Root cause" not in out and "[✗]" not in out
    assert "Nothing shows that it is broken" not in out
    assert "crash" not in out and "reinstall" not in out.lower()


def test_a_timeout_is_its_own_status_and_state_in_the_json_report(slow_torch):
    code, out, err = doctor("check", "--device", "cpu", "--timeout", "1", "--format", "json", pythonpath=slow_torch)
    assert code == 1, err
    doc = json.loads(out)
    with open(os.path.join(SCHEMAS, "report.schema.json")) as handle:
        jsonschema.validate(doc, json.load(handle))
    assert doc["verdict"]["state"] == "timed-out" and doc["verdict"]["ready"] is False
    assert doc["verdict"]["root_cause"] == "torch.import"
    assert doc["verdict"]["counts"]["timeout"] == 1 and doc["verdict"]["counts"]["fail"] == 0
    result = next(r for r in doc["results"] if r["id"] == "torch.import")
    assert result["status"] == "timeout" and result["remedy"]["key"] == "probe-timeout"
    assert result["remedy"]["commands"][-1].endswith("--timeout 61")


def test_the_fix_plan_for_a_slow_import_checks_again_with_more_time_and_installs_nothing(slow_torch):
    code, out, err = doctor("fix", "--print-commands", "--device", "cpu", "--timeout", "1", "--shell", "bash",
                            pythonpath=slow_torch)
    assert code == 0, err
    commands = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert commands == ["%s -m mps_doctor check --python %s --device cpu --timeout 61" % (sys.executable, TARGET_PYTHON)]


def test_policy_init_says_the_import_was_stopped_not_that_torch_is_missing(slow_torch):
    code, out, err = doctor("policy", "init", "--device", "cpu", "--timeout", "1", pythonpath=slow_torch)
    assert code == 0, err
    assert ("# no torch version here: stopped after the --timeout of 1 s while importing torch; run again with a "
            "longer --timeout;") in out
    assert "torch is not installed" not in out


@pytest.mark.parametrize(("stage", "doing"), [
    ("interpreter", "starting the target Python"),
    ("parity", "running the parity operations on cpu"),
    ("smoke", "running the smoke training step on cpu"),
])
def test_each_stage_that_runs_out_of_time_is_named(tmp_path, stage, doing):
    python = stalled_python(tmp_path, until_begin(stage))
    code, out, err = doctor("check", "--python", python, "--device", "cpu", "--timeout", "2")
    assert code == 1, err
    assert "[⏱] Timed out: stopped after the --timeout of 2 s while %s" % doing in out
    assert "mps-doctor stopped %s after the --timeout of 2 s, while it was still %s." % (python, doing) in out.replace(
        "\n    ", " ")
    assert "$ %s -m mps_doctor check --python %s --device cpu --timeout 62" % (sys.executable, python) in out


def test_markdown_heads_a_timeout_as_one(cli, tmp_path):
    python = stalled_python(tmp_path, until_begin("parity"))
    result = cli("check", "--python", python, "--device", "cpu", "--timeout", "1", "--format", "markdown")
    assert result.exit_code == 1
    assert "**Timed out** (`device.parity`): stopped after the --timeout of 1 s while running the parity operations " \
           "on cpu" in result.stdout
    assert "| ⏱️ timed out |" in result.stdout


def bench_frames(*after):
    """The bench child's frames on the recorded CPU machine up to its torch stage, then AFTER."""
    return until_begin("parity")[:-1] + [progress(phase="data"), {"event": "begin", "stage": "bench-cpu", "data": None}] \
        + list(after)


def test_bench_stopped_in_a_timing_window_says_which_and_asks_for_more_time(cli, tmp_path):
    python = stalled_python(tmp_path, bench_frames(
        progress(device="cpu", phase="cold-step"), progress(device="cpu", phase="warm-up", steps=10),
        progress(device="cpu", phase="window", window=1, windows=5),
        progress(device="cpu", phase="window", window=3, windows=5)))
    result = cli("bench", "--python", python, "--device", "cpu", "--timeout", "2", "--format", "json", "--no-progress")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    with open(os.path.join(SCHEMAS, "bench.schema.json")) as handle:
        jsonschema.validate(doc, json.load(handle))
    assert doc["status"] == "timeout"
    assert doc["runs"][0]["timed_out"] is True
    assert doc["runs"][0]["error"] == "stopped after the --timeout of 2 s while timing window 3 of 5 on cpu"
    assert doc["message"] == ("cpu: stopped after the --timeout of 2 s while timing window 3 of 5 on cpu. Nothing "
                              "shows whether it is slow or hangs; run again with more time (--timeout 62).")
    text = cli("bench", "--python", python, "--device", "cpu", "--timeout", "2", "--no-progress")
    assert text.exit_code == 1
    assert "timed out: cpu: stopped after the --timeout of 2 s while timing window 3 of 5 on cpu." in text.stdout
    assert "failed" not in text.stdout


def test_bench_that_crashes_in_a_window_is_described_as_check_describes_a_crash(cli, tmp_path):
    python = stalled_python(tmp_path, bench_frames(progress(device="cpu", phase="window", window=2, windows=5)),
                            then="echo 'Fatal Python error: Segmentation fault' >&2\nkill -SEGV $$")
    result = cli("bench", "--python", python, "--device", "cpu", "--timeout", "60", "--format", "json", "--no-progress")
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["status"] == "fail" and doc["runs"][0]["timed_out"] is False
    assert doc["runs"][0]["error"] == ("the benchmark crashed with SIGSEGV while timing window 2 of 5 on cpu: Fatal "
                                       "Python error: Segmentation fault")


def test_bench_stopped_while_importing_torch_measures_nothing_and_asks_for_more_time(slow_torch):
    code, out, err = doctor("bench", "--device", "cpu", "--timeout", "1", pythonpath=slow_torch)
    assert code == 1, err
    assert out == ""
    assert err == ("mps-doctor: error: nothing was measured: %s stopped after the --timeout of 1 s while importing "
                   "torch; run again with more time (--timeout 61)\n" % TARGET_PYTHON)


@pytest.mark.slow
def test_a_real_bench_that_runs_out_of_time_names_its_step(tmp_path):
    """The real child and torch: the clock runs out during the cold step or one of 1,000 windows of 1,000 steps."""
    code, out, err = doctor("bench", "--device", "cpu", "--timeout", "25", "--warmup", "0", "--windows", "1000",
                            "--steps", "1000", "--format", "json")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["status"] == "timeout" and doc["runs"][0]["timed_out"] is True
    assert re.fullmatch(r"stopped after the --timeout of 25 s while (timing window \d+ of 1000|running the cold first "
                        r"step|setting up the network and data) on cpu", doc["runs"][0]["error"]), doc["runs"][0]
    assert doc["message"].endswith("run again with more time (--timeout 85).")
