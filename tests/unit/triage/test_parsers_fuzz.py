"""Hypothesis feeds the triage parsers random and mangled text: exit 0, 1 or 2, never a traceback."""

import glob
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from mps_doctor.errors import UsageError  # noqa: E402
from mps_doctor.triage.engine import triage  # noqa: E402
from mps_doctor.triage.parsers import PARSERS  # noqa: E402
from mps_doctor.triage.text import clean  # noqa: E402
from tests.paths import TESTS_DIR  # noqa: E402

HERE = TESTS_DIR
SAMPLES = [open(path, encoding="utf-8").read() for path in
           sorted(glob.glob(os.path.join(HERE, "pasted", "*.txt")) + glob.glob(os.path.join(HERE, "triage", "collect_env", "*.txt")))]
# Pieces that steer random text into the parsers' paths.
FRAGMENTS = ["PyTorch version: ", "OS: macOS ", " (arm64)", "CPU:\n", "Python version: 3.", "ProductVersion:\t",
             "BuildVersion:\t25", "from versions: ", "2.2.2)", "torch==", "+cu118", ">>> torch.backends.mps.is_available()\n",
             "\x1b[31m", "```", "<details>", "\r\n", "- processor:         ", "platform : osx-64", "__archspec=1=m1",
             "Driver Version: ", "CUDA Version: ", "macOS-14.1-arm64-arm-64bit", "-linuxkit-aarch64", "cp313",
             "torch-2.2.2-cp311-none-macosx_10_9_x86_64.whl", "found version 11040)", "MPS backend out of memory"]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def triage_or_usage_error(text):
    """triage's outcome: a report, or a UsageError (exit 2); anything else fails the test."""
    try:
        return triage(text)
    except UsageError:
        return None


@SETTINGS
@given(st.text())
def test_random_text(text):
    for parser in PARSERS:
        parser(clean(text))
    triage_or_usage_error(text)


@SETTINGS
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40))
def test_fragments_of_every_format(pieces):
    report = triage_or_usage_error("".join(pieces))
    if report is not None:
        assert report.verdict.state in ("problem-found", "no-problem-found")


@SETTINGS
@given(st.sampled_from(SAMPLES), st.data())
def test_mangled_real_pastes(sample, data):
    lines = sample.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(0, 6))):
        action = data.draw(st.sampled_from(["cut", "swap", "insert", "duplicate", "truncate"]))
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        if action == "cut":
            del lines[i]
        elif action == "swap":
            j = data.draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif action == "insert":
            lines.insert(i, data.draw(st.text(max_size=40)))
        elif action == "duplicate":
            lines.insert(i, lines[i])
        else:
            lines[i] = lines[i][:data.draw(st.integers(0, len(lines[i])))]
    triage_or_usage_error("".join(lines))


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=300))
def test_cli_exit_codes_on_random_bytes(cli, raw):
    result = cli("triage", "-", input=raw, catch_exceptions=True)
    assert result.exit_code in (0, 1, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
