"""The progress line: what a long step is doing, on stderr, only on a terminal and never in CI or a pipe."""

import io
import os
import pty
import select
import subprocess
import sys

import pytest

from mps_doctor.ci import CI_MARKERS
from mps_doctor.probe.target import CHILD_DIR
from mps_doctor.render import progress
from mps_doctor.render.progress import ERASE, StatusLine, describe, status_line, wanted
from tests.helpers import TARGET_PYTHON

sys.path.insert(0, str(CHILD_DIR))  # the child's modules; those that import torch are imported inside tests


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        if self.closed:
            raise ValueError("I/O operation on closed file")
        return True


@pytest.mark.parametrize(("env", "tty", "expected"), [
    ({}, True, True),
    ({}, False, False),
    ({"TERM": "dumb"}, True, False),
    ({"CI": "true"}, True, False),
    ({"CI": "1"}, True, False),
    ({"GITHUB_ACTIONS": "true"}, True, False),
    ({"BUILDKITE": "true"}, True, False),
    ({"CI": "false"}, True, True),
])
def test_progress_only_on_a_terminal_outside_ci(env, tty, expected):
    assert wanted(Terminal() if tty else io.StringIO(), env) is expected


def test_a_closed_or_missing_stderr_wants_no_progress():
    closed = Terminal()
    closed.close()
    assert wanted(closed, {}) is False and wanted(None, {}) is False


@pytest.mark.parametrize(("frame", "text"), [
    ({"event": "begin", "stage": "interpreter", "data": None}, "starting the target Python"),
    ({"event": "begin", "stage": "torch", "data": None}, "importing torch"),
    ({"event": "begin", "stage": "parity", "data": {"device": "mps"}}, "running the parity operations on mps"),
    ({"event": "begin", "stage": "smoke", "data": {"device": "cuda"}}, "running the smoke training step on cuda"),
    ({"event": "progress", "stage": "smoke", "data": {"device": "cpu", "phase": "reference-step"}},
     "training one step on cpu against the CPU reference"),
    ({"event": "progress", "stage": "smoke", "data": {"device": "cpu", "phase": "steps", "step": 1, "last": 1,
                                                      "steps": 6}}, "training step 1 of 6 on cpu"),
    ({"event": "progress", "stage": "smoke", "data": {"device": "cpu", "phase": "steps", "step": 2, "last": 6,
                                                      "steps": 6}}, "training steps 2-6 of 6 on cpu"),
    ({"event": "begin", "stage": "bench-mps", "data": None}, "setting up the network and data on mps"),
    ({"event": "progress", "stage": "bench", "data": {"phase": "data"}}, "loading the MNIST data"),
    ({"event": "progress", "stage": "bench", "data": {"device": "mps", "phase": "cold-step"}},
     "running the cold first step on mps"),
    ({"event": "progress", "stage": "bench", "data": {"device": "mps", "phase": "warm-up", "steps": 10}},
     "running 10 warm-up steps on mps"),
    ({"event": "progress", "stage": "bench", "data": {"device": "mps", "phase": "window", "window": 3, "windows": 5}},
     "timing window 3 of 5 on mps"),
    ({"event": "progress", "stage": "bench", "data": {"device": "cpu", "phase": "epoch", "epoch": 1, "epochs": 2,
                                                      "step": 9, "steps": 20}},
     "training epoch 1 of 2 on cpu (step 10 of 20)"),
    # The epoch frame of an older child, without a phase.
    ({"event": "progress", "stage": "bench", "data": {"device": "cpu", "epoch": 1, "epochs": 1, "step": 19,
                                                      "steps": 20}},
     "training epoch 1 of 1 on cpu (step 20 of 20)"),
])
def test_each_long_step_is_named(frame, text):
    assert describe(frame) == text


@pytest.mark.parametrize("data", [
    {"phase": "data"},
    {"device": "cpu", "phase": "cold-step"},
    {"device": "cpu", "phase": "warm-up", "steps": 10},
    {"device": "cpu", "phase": "window", "window": 3, "windows": 5},
    {"device": "cpu", "phase": "epoch", "epoch": 1, "epochs": 2, "step": 9, "steps": 20},
])
def test_the_progress_line_and_a_stopped_bench_read_a_frame_in_the_same_words(data):
    """One frame kind, one reading: what the line shows while a step runs is what a --timeout or crash in it reports."""
    from mps_doctor.bench import running

    assert running(data) == describe({"event": "progress", "stage": "bench", "data": data})
    assert running(data, "cpu") == running(data) if data.get("device") else running(data, "cpu") == describe(
        {"event": "begin", "stage": "bench-cpu", "data": None})


@pytest.mark.parametrize("frame", [
    {"event": "result", "stage": "torch", "data": {}},
    {"event": "progress", "stage": "bench", "data": {"device": "mps", "phase": "window", "window": "3", "windows": 5}},
    {"event": "progress", "stage": "bench", "data": {"device": "mps", "phase": "window", "window": True, "windows": 5}},
    {"event": "progress", "stage": "smoke", "data": {"phase": "steps", "step": -1, "steps": 6}},
    {"event": "progress", "stage": "smoke", "data": {"device": "cpu", "phase": "steps", "step": -1, "steps": 6}},
    {"event": "progress", "stage": "bench", "data": {"device": "\x1b]0;pwned\x07", "phase": "cold-step"}},
    {"event": "progress", "stage": "bench", "data": "not a mapping"},
    {"event": "begin", "stage": "unknown", "data": None},
    "not a frame",
])
def test_frames_of_the_wrong_shape_change_nothing(frame):
    assert describe(frame) is None


def test_a_device_name_from_the_child_is_made_safe_and_short():
    text = describe({"event": "begin", "stage": "smoke", "data": {"device": "\x1b]0;pwned\x07" + "x" * 50}})
    assert "\x1b" not in text and "\x07" not in text and text.startswith("running the smoke training step on \\x1b")
    assert len(text) < 60


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_the_status_line_is_redrawn_in_place_with_the_seconds_and_erased_at_the_end(monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    stream, clock = Terminal(), Clock()
    line = StatusLine(stream, clock=clock)
    line({"event": "begin", "stage": "torch", "data": None})
    clock.now += 3.4
    line.draw()
    line({"event": "result", "stage": "torch", "data": {}})  # says nothing new: nothing is drawn
    clock.now += 1
    line.draw()
    line({"event": "begin", "stage": "parity", "data": {"device": "cpu"}})
    line({"event": "progress", "stage": "bench", "data": {"device": "cpu", "phase": "epoch", "epoch": 1,
                                                          "epochs": 2, "step": 9, "steps": 20}})
    line.close()
    drawn = stream.getvalue().split("\r")[1:]
    assert drawn[:3] == ["mps-doctor: importing torch..." + ERASE, "mps-doctor: importing torch... 3 s" + ERASE,
                         "mps-doctor: importing torch... 4 s" + ERASE]
    # Within the terminal's width (49 columns, one left for the cursor), cut at a word.
    assert drawn[3] == "mps-doctor: running the parity operations on..." + ERASE
    assert drawn[4] == "mps-doctor: training epoch 1 of 2 on cpu (step..." + ERASE
    assert all(len(text) - len(ERASE) <= 49 for text in drawn)
    assert drawn[-1] == ERASE and "\n" not in stream.getvalue()


def test_the_status_line_ticks_while_nothing_arrives(monkeypatch):
    monkeypatch.setattr(progress, "TICK", 0.01)
    stream = Terminal()
    with status_line(stream, {}) as line:
        assert line is not None
        for _ in range(500):
            if stream.getvalue().count("\r") >= 3:
                break
            line.stopped.wait(0.01)
    assert stream.getvalue().count("mps-doctor: starting...") >= 3 and stream.getvalue().endswith("\r" + ERASE)


def test_no_status_line_in_ci_or_a_pipe_or_when_asked_not_to():
    for stream, env, enabled in ((Terminal(), {"CI": "true"}, True), (io.StringIO(), {}, True), (Terminal(), {}, False)):
        with status_line(stream, env, enabled) as line:
            assert line is None
        assert stream.getvalue() == ""


@pytest.mark.torch_in_process
def test_a_timing_window_is_announced_before_its_first_sync_never_inside_it():
    import mpsd_bench

    calls = []
    ticks = iter(range(1000))
    mpsd_bench.time_windows(lambda: calls.append("step"), lambda: calls.append("sync"), windows=3, steps=2,
                            clock=lambda: calls.append("clock") or next(ticks),
                            on_window=lambda number: calls.append("window %d" % number))
    window = ["sync", "clock", "step", "step", "sync", "clock"]
    assert calls == ["window 1"] + window + ["window 2"] + window + ["window 3"] + window


def run_on_a_terminal(args, env):
    """(exit code, stdout, what the terminal on stderr showed) of `python -m mps_doctor ARGS`, stderr a pty."""
    master, slave = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "mps_doctor"] + args, stdout=subprocess.PIPE, stderr=slave,
                             env=env)
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 300)
        if not ready:
            child.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every writer of the terminal has closed it
            break
        if not data:
            break
        shown += data
    os.close(master)
    out = child.stdout.read()
    child.stdout.close()
    return child.wait(), out.decode(), shown.decode("utf-8", "replace")


def outside_ci(**extra):
    env = {name: value for name, value in os.environ.items() if name not in CI_MARKERS}
    env.update(NO_COLOR="1", TERM="xterm", **extra)
    return env


@pytest.mark.slow
def test_check_shows_what_runs_on_a_terminal_and_nothing_in_ci():
    args = ["check", "--python", TARGET_PYTHON, "--device", "cpu"]
    code, out, shown = run_on_a_terminal(args, outside_ci())
    assert code == 0, out + shown
    for step in ("importing torch", "running the parity operations on cpu", "training step 1 of 6 on cpu",
                 "training steps 2-6 of 6 on cpu"):
        assert "mps-doctor: " + step in shown, shown
    assert shown.endswith("\r" + ERASE) and "\r" not in out and "mps-doctor: importing" not in out
    code, out, shown = run_on_a_terminal(args, outside_ci(CI="true"))
    assert code == 0 and shown == "", shown


@pytest.mark.slow
def test_bench_shows_each_timing_window_on_a_terminal_and_nothing_in_a_pipe():
    args = ["bench", "--python", TARGET_PYTHON, "--device", "cpu", "--warmup", "1", "--windows", "3", "--steps", "1"]
    code, out, shown = run_on_a_terminal(args, outside_ci())
    assert code == 0, out + shown
    for step in ("importing torch", "loading the MNIST data", "setting up the network and data on cpu",
                 "running the cold first step on cpu", "running 1 warm-up steps on cpu", "timing window 1 of 3 on cpu",
                 "timing window 3 of 3 on cpu"):
        assert "mps-doctor: " + step in shown, shown
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=outside_ci(), timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
