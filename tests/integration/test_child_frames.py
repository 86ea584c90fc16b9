"""The child and the doctor speak one frame format: the marker is defined once (child/mpsd_frame.py), the child's
entry point and its emit write it, and the doctor's ChildRun reads exactly that back as a ChildOutcome."""

import dataclasses
import json
import os
import signal
import sys

import pytest

from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.probe.target import CHILD_DIR, ChildOutcome, ChildRun
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
DEFINITION = os.path.join(ROOT, "mps_doctor", "child", "mpsd_frame.py")


def test_the_marker_is_spelled_out_only_where_it_is_defined():
    spelled = []
    for folder in ("mps_doctor", "tests"):
        for where, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                path = os.path.join(where, name)
                if name.endswith(".py") and path != DEFINITION:
                    with open(path, encoding="utf-8") as handle:
                        if FRAME_MARK.strip() in handle.read():
                            spelled.append(os.path.relpath(path, ROOT))
    with open(DEFINITION, encoding="utf-8") as handle:
        assert FRAME_MARK.strip() in handle.read()
    assert not spelled, "import FRAME_MARK from mps_doctor.child.mpsd_frame instead: %s" % spelled


def test_the_doctor_reads_what_the_childs_emit_writes():
    frames = []
    outcome = ChildRun([sys.executable, str(CHILD_DIR), "no-such-mode", "{}"], timeout=60).stream(frames.append)
    assert frames == [{"event": "error", "stage": "dispatch", "data": {"message": "unknown mode 'no-such-mode'"}}]
    assert outcome == ChildOutcome(results={}, begun=(), returncode=2, stderr="", timed_out=False)


def test_the_doctor_reads_the_too_old_answer_of_the_childs_entry_point():
    """__main__.py's answer on Python < 3.7, from this interpreter told it is 3.6.15."""
    pretend = "import runpy, sys; sys.version_info = (3, 6, 15, 'final', 0); runpy.run_path(sys.argv[1], run_name='__main__')"
    outcome = ChildRun([sys.executable, "-c", pretend, str(CHILD_DIR)], timeout=60).wait()
    described = {"too_old": True, "version": [3, 6, 15], "executable": sys.executable,
                 "executable_realpath": os.path.realpath(sys.executable), "prefix": sys.prefix,
                 "base_prefix": sys.base_prefix, "conda_meta": os.path.isdir(os.path.join(sys.prefix, "conda-meta"))}
    assert outcome.results == {"interpreter": described}, outcome.stderr
    assert outcome.begun == ("interpreter",) and outcome.returncode == 0 and not outcome.timed_out


def test_a_child_past_its_timeout_ends_in_an_outcome_that_says_so():
    begin = FRAME_MARK + json.dumps({"event": "begin", "stage": "torch", "data": None})
    hang = "import sys, time; sys.stdout.write(%r + '\\n'); sys.stdout.flush(); time.sleep(60)" % begin
    outcome = ChildRun([sys.executable, "-c", hang], timeout=1).wait()
    assert outcome.timed_out and outcome.returncode == -signal.SIGKILL
    assert outcome.results == {} and outcome.begun == ("torch",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.timed_out = False
