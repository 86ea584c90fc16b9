"""Hostile target interpreters: a fake `python` that answers the probe with frames of the wrong shape, escape
sequences, or crashes; the doctor turns each into a fact about the target, never a crash of its own."""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mps_doctor.child.mpsd_frame import FRAME_MARK
from tests.hostile.attack import TALLY, get, hostile_text, judge, odd_value, paths, put
from tests.machines import load_machine

FRAMES = load_machine("linux-h200-cuda")["target"]["frames"]


def fake_python(folder, frames, stderr="", code=0):
    """An executable `python` that prints FRAMES as the child would, then STDERR, and exits with CODE."""
    out = folder / "python.out"
    out.write_text("".join(line + "\n" for line in ["stray output"] + [FRAME_MARK + json.dumps(f) for f in frames]))
    (folder / "python.err").write_bytes(stderr.encode("utf-8", "surrogatepass"))
    script = folder / "python"
    script.write_text('#!/bin/sh\ncat "$0.out"\ncat "$0.err" >&2\nexit %d\n' % code)
    script.chmod(0o755)
    return str(script)


@st.composite
def hostile_frames(draw):
    """The recorded H200 child's frames with one to three values replaced by hostile text or odd values."""
    frames = FRAMES
    for _ in range(draw(st.integers(1, 3))):
        candidates = [p for p in paths(frames) if len(p) >= 2 and p[1] == "data"]
        strings = [p for p in candidates if isinstance(get(frames, p), str)]
        if strings and draw(st.booleans()):
            frames = put(frames, draw(st.sampled_from(strings)), draw(hostile_text))
        else:
            frames = put(frames, draw(st.sampled_from(candidates)), draw(odd_value))
    return frames


def test_hostile_target_interpreters(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("target")

    @settings(max_examples=50, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(hostile_frames(), hostile_text, st.sampled_from((0, 1, -11, 134)), st.sampled_from(("text", "markdown", "json")))
    def attack(frames, stderr, code, fmt):
        python = fake_python(folder, frames, stderr, code)
        judge(cli("check", "--python", python, "--device", "cpu", "--format", fmt, "-v", catch_exceptions=True),
              what=("target", fmt))
        TALLY["target interpreters"] += 1

    attack()


def test_a_torch_frame_of_the_wrong_shape_is_a_fact_not_a_crash(cli, tmp_path):
    """Issue 10 item 11: `"mps": "yes"` in the torch frame was an AttributeError, exit 3."""
    index = next(i for i, f in enumerate(FRAMES) if f["stage"] == "torch" and f["event"] == "result")
    python = fake_python(tmp_path, put(FRAMES, (index, "data", "cuda"), "yes"))
    result = cli("check", "--python", python, "--device", "cpu", "-v", catch_exceptions=True)
    assert result.exit_code == 1, result.output
    assert "answered the probe with malformed data" in result.output
    assert "malformed torch frame" in result.output
