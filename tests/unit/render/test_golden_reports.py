"""What a user sees: `mps-doctor check` (text, text -v, Markdown) on a handful of recorded machines, against golden files.

The CLI runs in-process with the probes replaced by the recorded machine's facts (no probing); colour is off and
the width fixed (tests/conftest.py). Regenerate with the command in tests/goldens.py.
"""

import os
import re
import sys

import pytest

from mps_doctor import __version__
from tests.goldens import CHECKOUT, GOLDEN_DIR, assert_golden, golden_path, normalized, updating
from tests.machines import load_machine, machine_names, replay_facts

NAMES = machine_names()
# The machines whose whole reports are golden, chosen for coverage; every machine's verdict, root cause, remedy and
# warnings are held by tests/unit/checks/test_recorded_machines.py, and every machine's fix plan by tests/unit/remedies/test_plan.py.
GOLDEN_MACHINES = {
    "m2-native-torch213": "a ready Mac: every layer passes, the smoke step's figures",
    "intel-mac-torch222": "a root cause early in the layers: the later layers skipped with its name",
    "m1-hosted-runner-wrong-results": "a failing device layer beside three warnings and a hosted runner",
    "linux-cu130-on-driver-128": "CUDA on Linux: a driver too old for the wheel, the NVIDIA rows",
}
# Output variant: (golden file suffix, extra command-line arguments).
VARIANTS = {"text": (".txt", ()), "verbose": (".verbose.txt", ("-v",)), "markdown": (".md", ("--format", "markdown"))}


def check_output(cli, monkeypatch, tmp_path, name, *args):
    """(exit code, stdout) of `mps-doctor check ARGS` on machine NAME, run in an empty folder without a policy."""
    machine = load_machine(name)
    facts = replay_facts(machine)

    probed = []

    def recorded_facts(python, device, **_):
        probed.append((python, device))
        return facts

    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", recorded_facts)
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    device = machine["expect"].get("requested", "auto")
    result = cli("check", "--device", device, *args)
    assert probed == [(None, device)], "the recorded facts replaced the probe"
    return result.exit_code, result.stdout


@pytest.mark.parametrize("name", sorted(GOLDEN_MACHINES))
def test_check_reports_match_their_golden_files(cli, monkeypatch, tmp_path, name):
    """Text, text -v and Markdown of one machine; every variant is compared (and rewritten) before any fails."""
    failures = []
    for variant in sorted(VARIANTS):
        suffix, args = VARIANTS[variant]
        code, out = check_output(cli, monkeypatch, tmp_path, name, *args)
        assert code == load_machine(name)["expect"]["exit_code"]
        try:
            assert_golden(golden_path("check", name + suffix), out, working_directory=str(tmp_path))
        except AssertionError as failure:
            failures.append("%s: %s" % (variant, failure))
    assert not failures, "\n".join(failures)


def owners(folder):
    """The machines whose golden files FOLDER holds: every machine's fix plan, the chosen machines' check reports."""
    return set(GOLDEN_MACHINES) if folder == "check" else set(NAMES)


def test_the_golden_machines_are_recorded_machines():
    assert set(GOLDEN_MACHINES) <= set(NAMES)


def test_every_golden_file_belongs_to_a_recorded_machine():
    """A golden file of a machine that was renamed or removed fails here instead of lingering unchecked."""
    if updating():
        for folder in ("check", "fix"):
            for file_name in os.listdir(os.path.join(GOLDEN_DIR, folder)):
                if file_name.split(".", 1)[0] not in owners(folder):
                    os.unlink(os.path.join(GOLDEN_DIR, folder, file_name))
    orphans = [os.path.join(folder, file_name) for folder in ("check", "fix")
               for file_name in sorted(os.listdir(os.path.join(GOLDEN_DIR, folder)))
               if file_name.split(".", 1)[0] not in owners(folder)]
    assert orphans == []


def test_normalization_replaces_what_varies_and_keeps_recorded_paths():
    text = ('"created": "2026-11-30T09:06:36+00:00", mps-doctor %s: %s -m mps_doctor --from /w/report.json; '
            'data %s/mps_doctor/data; recorded %s.11 and /usr/bin/python3 and /Users/alex/proj/.venv/bin/python'
            % (__version__, sys.executable, CHECKOUT, sys.executable))
    # Only like the doctor's python, so kept; still a path under the checkout where the venv lives in it (.ci/run).
    recorded = re.sub("^" + re.escape(CHECKOUT) + "/", "<checkout>/", sys.executable + ".11")
    assert normalized(text, "/w") == (
        '"created": "<created>", mps-doctor <version>: <doctor-python> -m mps_doctor --from <cwd>/report.json; '
        'data <checkout>/mps_doctor/data; recorded %s and /usr/bin/python3 and /Users/alex/proj/.venv/bin/python'
        % recorded)
