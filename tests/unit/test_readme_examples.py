"""The README's examples are the program's real output.

An example is a fenced block whose first line is `$ mps-doctor ...`; the rest of the block is what that command
prints on stdout. Each one runs here, in-process, on the recorded machine that the prose above it names
(`tests/machines/NAME`): its probe replaced by the machine's recorded facts, its bench child by the machine's
recorded bench frames. Only a command whose input is a file it names (`triage FILE`, `--from FILE`) names no
machine. The block must equal the output exactly; the one thing put in is the doctor's own command, `mps-doctor`,
as pipx and `uv tool` put it on PATH. After an intended change of the output, rewrite the examples with
MPS_DOCTOR_UPDATE_GOLDENS=1 (as the golden files, tests/goldens.py) and review `git diff README.md`.
"""

import difflib
import json
import os
import re
import shlex

import pytest

from mps_doctor.probe.target import ChildOutcome, parse_frames
from tests.goldens import UPDATE_COMMAND, updating
from tests.machines import MACHINES_DIR, child_stdout, load_machine, replay_facts
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
README = os.path.join(ROOT, "README.md")
FENCE = re.compile(r"^```")
MACHINE = re.compile(r"`tests/machines/([\w.-]+)`")
PROMPT = "$ mps-doctor "


def examples(text):
    """(index of the block's first line, its lines, the machine its prose names or None) of every example."""
    lines = text.split("\n")
    found, opened, prose_from = [], None, 0
    for index, line in enumerate(lines):
        if not FENCE.match(line):
            continue
        if opened is None:
            opened = index
            continue
        block = lines[opened + 1:index]
        if block and block[0].startswith(PROMPT):
            named = MACHINE.findall("\n".join(lines[prose_from:opened]))
            found.append((opened + 1, block, named[-1] if named else None))
        opened, prose_from = None, index + 1
    return found


def read_readme():
    with open(README, encoding="utf-8") as handle:
        return handle.read()


EXAMPLES = examples(read_readme())


class RecordedBench:
    """The bench child of a recorded machine: answers with the machine's frames, for the options they were
    recorded with only."""

    machine = None

    def __init__(self, argv, timeout):
        options = json.loads(argv[-1])
        options.pop("data_dir")
        recorded = self.machine["bench"]
        assert options == recorded["options"], "the example asks the bench child for what was not recorded"
        self.frames = [f for f in self.machine["target"]["frames"] if f["stage"] in ("interpreter", "torch")]
        self.frames += recorded["frames"]

    def stream(self, on_frame):
        for frame in self.frames:
            on_frame(frame)
        results, begun = parse_frames(child_stdout(self.frames))
        return ChildOutcome(results=results, begun=tuple(begun), returncode=0, stderr="", timed_out=False)


def run_example(cli, monkeypatch, tmp_path, command, name):
    """(exit code, stdout) of COMMAND (the words after `mps-doctor`) on recorded machine NAME, or on nothing but
    its input files (NAME None), run from the checkout then."""
    if name is None:
        monkeypatch.chdir(ROOT)
    else:
        machine = load_machine(name)
        facts = replay_facts(machine)

        def recorded_facts(python, device, **_):
            assert python is None, "the example names its Python: record how it was chosen instead"
            return facts

        monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", recorded_facts)
        if "bench" in machine:
            RecordedBench.machine = machine
            monkeypatch.setattr("mps_doctor.bench.ChildRun", RecordedBench)
            monkeypatch.setattr("mps_doctor.bench.validate_python", lambda python: python)
            monkeypatch.setattr("mps_doctor.probe.default_target.default_python",
                                lambda: (machine["target"]["python"], machine["target"].get("chosen_because")))
        (tmp_path / ".git").mkdir()  # a project folder without a policy
        monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("mps_doctor.remedies.plan.doctor_command", lambda: ("mps-doctor",))
    result = cli(*command)
    return result.exit_code, result.stdout


def rewrite_example(old, new):
    """Replace the example whose block is OLD in README.md by the lines NEW (where it is now: an example rewritten
    before it may have moved it)."""
    text = read_readme()
    first_line = next(first for first, block, _ in examples(text) if block == old)
    lines = text.split("\n")
    lines[first_line:first_line + len(old)] = new
    with open(README, "w", encoding="utf-8", newline="") as handle:
        handle.write("\n".join(lines))


def test_the_readme_has_its_examples():
    commands = [block[0] for _, block, _ in EXAMPLES]
    for command in ("$ mps-doctor check", "$ mps-doctor fix --print-commands", "$ mps-doctor bench",
                    "$ mps-doctor triage "):
        assert any(line.startswith(command) for line in commands), command


@pytest.mark.parametrize(("first_line", "block", "name"), EXAMPLES,
                         ids=["README.md:%d %s" % (first + 1, block[0]) for first, block, _ in EXAMPLES])
def test_a_readme_example_is_the_real_output(cli, monkeypatch, tmp_path, first_line, block, name):
    command = shlex.split(block[0][len(PROMPT):])
    if name is None:
        assert command[0] == "triage" or "--from" in command, "%s: name the recorded machine it ran on" % block[0]
    else:
        assert os.path.isfile(os.path.join(MACHINES_DIR, name, "machine.json")), name
    code, out = run_example(cli, monkeypatch, tmp_path, command, name)
    assert code in (0, 1), (code, out)
    produced = [block[0]] + out.rstrip("\n").split("\n")
    if updating():
        rewrite_example(block, produced)
        return
    if produced != block:
        diff = "\n".join(difflib.unified_diff(block, produced, "README.md:%d" % (first_line + 1), "produced now",
                                              lineterm=""))
        pytest.fail("README.md:%d: the example is not what `%s` prints on %s:\n%s\n(after an intended change: %s, "
                    "then review `git diff README.md`)" % (first_line + 1, block[0][2:], name or "its input", diff,
                                                           UPDATE_COMMAND), pytrace=False)
