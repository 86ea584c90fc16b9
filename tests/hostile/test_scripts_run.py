"""The fix scripts printed for hostile reports, executed for real under bash, zsh and fish with a PATH of stub
commands that log their argv: only the commands the plan intended run, with exactly its arguments, and no payload
hidden in a report field ever runs."""

import json
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mps_doctor.checking.model import Options
from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.script import render_script
from mps_doctor.report import facts_from_report, run_checks
from tests.hostile.attack import BASES, TALLY, put
from tests.hostile.shells import SHELLS, execute, shells

# Payloads that end a comment, substitute a command or break out of quotes in one of the three shells; each tries
# to create PWNED through the `touch` stub (or /usr/bin/touch).
INJECTIONS = ("\ntouch PWNED\n", "\r\ntouch PWNED\n", "x\n/usr/bin/touch PWNED #", "$(touch PWNED)", "`touch PWNED`",
              "'; touch PWNED; '", "\"; touch PWNED; \"", "(touch PWNED)", "\\'; touch PWNED #", "\x0btouch PWNED",
              "\u2028touch PWNED", "\x1b[2J\ntouch PWNED", "a\\\ntouch PWNED", "{touch,PWNED}")
# Fields whose text reaches a script: the header, step titles and reasons, notes, and command arguments.
FIELDS = (("facts", "target", "python"), ("facts", "target", "interpreter", "prefix"),
          ("facts", "target", "interpreter", "executable_realpath"), ("facts", "target", "interpreter", "executable"),
          ("facts", "target", "interpreter", "base_prefix"), ("facts", "host", "env", "CONDA_PREFIX"),
          ("facts", "host", "env", "CUDA_VISIBLE_DEVICES"), ("facts", "host", "env", "PYTORCH_MPS_HIGH_WATERMARK_RATIO"),
          ("facts", "host", "env", "PYTORCH_ENABLE_MPS_FALLBACK"), ("facts", "host", "cpu_brand"),
          ("facts", "target", "torch", "version"), ("facts", "target", "torch", "import_error", "message"),
          ("facts", "host", "macos_version"))


def intended(plan):
    """The argv of every command the plan runs through PATH lookup, in order."""
    calls = []
    for step in plan.steps:
        for cmd in step.commands:
            if cmd.kind == "run":
                calls.append(list(cmd.argv))
            elif cmd.kind == "activate" and cmd.name:
                calls.append(["conda", "activate", cmd.name])
    return [call for call in calls if "/" not in call[0]]


def is_subsequence(calls, plan_calls):
    remaining = iter(plan_calls)
    return all(any(call == wanted for wanted in remaining) for call in calls)


def plan_for(doc, shell):
    facts, options = facts_from_report(json.loads(json.dumps(doc)))
    device = options.get("requested_device", "auto")
    report = run_checks(facts, Options(device=device, requested_device=device, policy=options["policy"]))
    # The stubs stand in for `mps-doctor` on PATH; by default the plan names this doctor by its absolute path.
    return build_plan(report, shell=shell, doctor=("mps-doctor",))


def assert_only_intended(doc, shell, stub_bin, folder, what):
    plan = plan_for(doc, shell)
    script = render_script(plan)
    calls = execute(script, shell, stub_bin, folder)
    pwned = (folder / "PWNED").exists()
    assert not pwned, (what, shell, script)
    assert is_subsequence(calls, intended(plan)), (what, shell, calls, intended(plan), script)
    return calls


def cases(rotation):
    """(machine, field, payload): every field with four payloads (rotated per shell), each in the first machine
    (rotated too) whose report has the field, so that every plan shape is hit."""
    names = sorted(BASES)
    found = []
    for index, field in enumerate(FIELDS):
        for k in range(4):
            payload = INJECTIONS[(index * 4 + k + rotation * 5) % len(INJECTIONS)]
            for offset in range(len(names)):
                name = names[(index * 4 + k + rotation + offset) % len(names)]
                try:
                    parent = BASES[name]
                    for key in field[:-1]:
                        parent = parent[key]
                except (KeyError, TypeError):
                    continue
                if isinstance(parent, dict):
                    found.append((name, field, payload))
                    break
    return found


@pytest.mark.parametrize("shell", SHELLS)
def test_payloads_in_report_fields_never_run(shell, stub_bin, tmp_path):
    if shell not in shells():
        pytest.skip("%s is not installed here" % shell)
    ran_something = 0
    for name, field, payload in cases(SHELLS.index(shell)):
        doc = BASES[name]
        value = payload if field[-2] == "env" else "/x/y" + payload
        calls = assert_only_intended(put(doc, field, value), shell, stub_bin, tmp_path, (name, field, payload))
        ran_something += bool(calls)
        TALLY["fix scripts executed"] += 1
    assert ran_something > 10, "the stubs were never called: the test would not see an injected command"


SCRIPT_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


def test_generated_values_reach_commands_exactly(stub_bin, tmp_path_factory):
    """Any text (controls and quotes included) in the target's path reaches `mps-doctor check --python` byte for
    byte, and nothing else runs."""
    available = shells()
    folder = tmp_path_factory.mktemp("generated")
    doc = BASES["m3-torch-missing"]

    @settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.one_of(SCRIPT_TEXT, st.sampled_from(INJECTIONS)), min_size=1, max_size=3).map("".join),
           st.sampled_from(available))
    def attack(text, shell):
        python = "/x/" + text + "/bin/python"
        calls = assert_only_intended(put(doc, ("facts", "target", "python"), python), shell, stub_bin, folder, text)
        assert ["mps-doctor", "check", "--python", python] in calls, (shell, calls)
        TALLY["fix scripts executed"] += 1

    attack()


def test_the_stubs_see_real_commands(stub_bin, tmp_path):
    """Guard: a plan's own commands reach the stubs, so an absent call means it did not run."""
    doc = BASES["m3-torch-missing"]
    for shell in shells():
        plan = plan_for(doc, shell)
        calls = execute(render_script(plan), shell, stub_bin, tmp_path)
        assert calls == intended(plan) and len(calls) >= 2, (shell, calls)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is installed by .ci/run")
def test_hostile_scripts_pass_the_shells_own_checkers(tmp_path):
    """The quoting of hostile values is valid syntax: shellcheck (bash), `zsh -n` and `fish --no-execute`."""
    written = {shell: [] for shell in SHELLS}
    for shell in shells():
        for number, (name, field, payload) in enumerate(cases(SHELLS.index(shell))):
            value = payload if field[-2] == "env" else "/x/y" + payload
            path = tmp_path / ("%d.%s" % (number, shell))
            path.write_text(render_script(plan_for(put(BASES[name], field, value), shell)))
            written[shell].append(str(path))
    # SC2288, SC2289: "a command name ending with # or containing a linefeed" is what the hostile report named, quoted.
    done = subprocess.run(["shellcheck", "--shell", "bash", "--severity", "warning", "--exclude", "SC2288,SC2289"] + written["bash"],
                          stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stdout
    for path in written["zsh"]:
        assert subprocess.run(["zsh", "-n", path]).returncode == 0, open(path).read()
    for path in written["fish"]:
        assert subprocess.run(["fish", "--no-execute", path]).returncode == 0, open(path).read()
