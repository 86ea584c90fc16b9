"""The probe child and everything it started die with the doctor, and --timeout holds against escaped descendants.

Real doctor processes and real fake targets: a Python script that starts a grandchild in a new session (as a
daemonizing library would) and then sleeps.
"""

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from mps_doctor import exit_codes
from mps_doctor.probe import target

FAKE_TARGET = '''#!%s
import os, subprocess, sys, time
grandchild = subprocess.Popen(["sleep", "300"], start_new_session=True)
with open(%r, "w") as handle:
    handle.write("%%d %%d" %% (os.getpid(), grandchild.pid))
time.sleep(300)
'''


def fake_target(tmp_path):
    """(path of a target that escapes its process group, file where it writes 'its pid, grandchild pid')."""
    pids = tmp_path / "pids"
    path = tmp_path / "python"
    path.write_text(FAKE_TARGET % (sys.executable, str(pids)))
    path.chmod(0o755)
    return str(path), pids


def alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def wait_for(predicate, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def default_signals():
    """SIGINT and SIGHUP as a terminal session has them: a test run under nohup, or as a background job of a shell,
    inherits them ignored, and the doctor rightly keeps an ignored signal ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def start_doctor(*args):
    env = dict(os.environ, NO_COLOR="1")
    return subprocess.Popen([sys.executable, "-m", "mps_doctor"] + list(args), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, preexec_fn=default_signals)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_the_child_and_its_descendants_die_with_the_doctor(tmp_path, signum):
    target, pids = fake_target(tmp_path)
    doctor = start_doctor("check", "--python", target, "--timeout", "300")
    try:
        assert wait_for(lambda: pids.exists() and pids.read_text().count(" ") == 1, 60), "the target never started"
        child, grandchild = map(int, pids.read_text().split())
        assert alive(child) and alive(grandchild)
        doctor.send_signal(signum)
        doctor.communicate(timeout=30)
        assert doctor.returncode == exit_codes.KILLED_BY_SIGNAL_BASE + signum, doctor.returncode
        assert wait_for(lambda: not alive(child) and not alive(grandchild), 10), "the probe outlived the doctor"
    finally:
        doctor.kill()
        for pid in map(int, pids.read_text().split()) if pids.exists() else ():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_timeout_holds_when_a_grandchild_in_a_new_session_keeps_stdout_open(tmp_path):
    target, pids = fake_target(tmp_path)
    started = time.monotonic()
    doctor = start_doctor("check", "--python", target, "--timeout", "2", "--format", "json")
    try:
        out, err = doctor.communicate(timeout=30)
    finally:
        doctor.kill()
        for pid in map(int, pids.read_text().split()) if pids.exists() else ():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    took = time.monotonic() - started
    assert took < 15, "the doctor waited %.1f s on a pipe held open by an escaped grandchild" % took
    assert doctor.returncode == 1, err
    assert b'"kind": "timeout"' in out
    child, grandchild = map(int, pids.read_text().split())
    assert not alive(child) and not alive(grandchild)


class SwallowsItsException:
    """An object whose finalizer runs the signal handler, as Python does when a signal lands inside a `__del__`."""

    def __del__(self):
        target.on_fatal_signal(signal.SIGTERM, None)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_signal_whose_exception_a_finalizer_swallowed_still_ends_the_doctor(tmp_path, monkeypatch):
    monkeypatch.setattr(target, "FATAL_SIGNALS", [])
    script = tmp_path / "sleeper.py"
    script.write_text("import time\ntime.sleep(300)\n")
    child = target.ChildRun([sys.executable, str(script)], timeout=300)
    try:
        SwallowsItsException()  # "Exception ignored in ...": the doctor would have gone on
        assert target.FATAL_SIGNALS == [signal.SIGTERM]
        started = time.monotonic()
        with pytest.raises(SystemExit) as ended:
            child.wait()
        assert ended.value.code == exit_codes.KILLED_BY_SIGNAL_BASE + signal.SIGTERM
        assert time.monotonic() - started < 10, "the killed child was waited for as if alive"
        assert child.process.returncode == -signal.SIGKILL
    finally:
        if child.process.poll() is None:
            child.process.kill()
        child.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_no_child_starts_after_a_signal_whose_exception_was_swallowed(tmp_path, monkeypatch):
    monkeypatch.setattr(target, "FATAL_SIGNALS", [])
    SwallowsItsException()
    marker = tmp_path / "started"
    with pytest.raises(SystemExit) as ended:
        target.ChildRun([sys.executable, "-c", "open(%r, 'w').close()" % str(marker)], timeout=30)
    assert ended.value.code == exit_codes.KILLED_BY_SIGNAL_BASE + signal.SIGTERM
    time.sleep(0.5)
    assert not marker.exists() and not target.LIVE_CHILDREN
