"""Golden files under tests/golden/: compared after normalization, shown as a unified diff when they differ.

Regenerate every golden file (fix plans and check reports) and the README's examples, with the recorded machines and
the generated docs tables, with:

    python -m tools.regenerate

and review the change with `git diff tests/golden/ README.md`.
"""

import difflib
import os
import re
import sys

import pytest

from mps_doctor import __version__

GOLDEN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UPDATE_VARIABLE = "MPS_DOCTOR_UPDATE_GOLDENS"
UPDATE_COMMAND = "python -m tools.regenerate"

# The report's creation time, wherever it is printed (the JSON report inside the Markdown block).
CREATED = re.compile(r'("created": )"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"')
# The doctor's own version, where the output names the tool: "mps-doctor 0.1.0" and the JSON report's tool block.
TOOL_VERSION = re.compile(r'(mps-doctor |"name": "mps-doctor",\s*"version": ")' + re.escape(__version__) + r'(?![\w.])')


# A path stands alone: no path character before it, none after it that would continue its last name.
PATH_BEFORE, PATH_AFTER = r"(?<![\w.~/-])", r"(?![\w.-])"


def normalized(text: str, working_directory: str = None) -> str:
    """TEXT with what differs between runs and checkouts replaced by a placeholder; the one place that does it.

    <created>        the report's creation time (UTC, to the second)
    <version>        mps-doctor's own version, where the output names the tool (a release rewrites no golden file)
    <cwd>            the working directory the test ran the doctor in (a fresh temporary folder), when given
    <doctor-python>  the interpreter running the tests, which is the doctor's own (`python -m mps_doctor` in a plan)
    <checkout>       the absolute path of this source tree (the doctor's data files live under it)

    Paths are replaced only where they stand alone, so that a recorded machine's path that merely starts like one
    of them (/usr/bin/python3.11 against /usr/bin/python3) is kept.
    """
    text = CREATED.sub(r'\1"<created>"', text)
    text = TOOL_VERSION.sub(r"\1<version>", text)
    for path, placeholder in ((working_directory, "<cwd>"), (sys.executable, "<doctor-python>"),
                              (CHECKOUT, "<checkout>")):
        if path:
            text = re.sub(PATH_BEFORE + re.escape(path) + PATH_AFTER, placeholder, text)
    return text


def updating() -> bool:
    """Whether this run rewrites the golden files instead of comparing with them."""
    return bool(os.environ.get(UPDATE_VARIABLE))


def golden_path(*parts: str) -> str:
    """The path of a golden file, relative to tests/golden/."""
    return os.path.join(GOLDEN_DIR, *parts)


def assert_golden(path: str, text: str, working_directory: str = None) -> None:
    """TEXT, normalized, equals the golden file at PATH; under MPS_DOCTOR_UPDATE_GOLDENS=1 the file is written."""
    text = normalized(text, working_directory)
    if updating():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        return
    relative = os.path.relpath(path, CHECKOUT)
    if not os.path.exists(path):
        pytest.fail("%s: no golden file (run %s, then review it)" % (relative, UPDATE_COMMAND), pytrace=False)
    with open(path, encoding="utf-8", newline="") as handle:
        expected = handle.read()
    if text != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True),
                                            "golden/" + os.path.relpath(path, GOLDEN_DIR), "produced now"))
        pytest.fail("%s differs from its golden file (to accept the new output: %s)\n%s"
                    % (relative, UPDATE_COMMAND, diff), pytrace=False)


def assert_no_golden(path: str) -> None:
    """No golden file at PATH (one is not needed); under MPS_DOCTOR_UPDATE_GOLDENS=1 a stale one is removed."""
    if updating():
        if os.path.exists(path):
            os.unlink(path)
        return
    assert not os.path.exists(path), "%s is not needed any more (run %s)" % (os.path.relpath(path, CHECKOUT),
                                                                           UPDATE_COMMAND)
