"""`check` in a (fake) GitHub Actions job: the Markdown report appended to $GITHUB_STEP_SUMMARY, ::error/::warning
workflow commands on stderr that no value can break out of, and --no-github to turn both off."""

import json
import re

import pytest

from mps_doctor.render.github import escape_data, escape_property, workflow_command
from mps_doctor.render.safe import escaped_line, visible
from tests.hostile.attack import PAYLOADS
from tests.machines import load_machine, replay_facts
from tests.rendered import live_problems

# A workflow command as the runner reads one line (actions/runner, src/Runner.Worker/ActionCommandManager.cs and
# ActionCommand.cs): `::name key=value,key=value::message`.
COMMAND = re.compile(r"^::(?P<name>[a-z-]+)(?: (?P<properties>[^:]*))?::(?P<message>.*)$")


def unescape(text):
    """A property or message as the runner unescapes it."""
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(escaped, char)
    return text


def commands_in(stderr):
    """(name, {property: value}, message) of each workflow command line in STDERR."""
    found = []
    for line in stderr.splitlines():
        if line.startswith("::"):
            match = COMMAND.match(line)
            assert match, line
            properties = dict(item.split("=", 1) for item in (match.group("properties") or "").split(",") if item)
            found.append((match.group("name"), {k: unescape(v) for k, v in properties.items()},
                          unescape(match.group("message"))))
    return found


def run_check(cli, monkeypatch, tmp_path, name, *args, env=()):
    """`mps-doctor check ARGS` on the recorded machine NAME, in an empty folder, with ENV set."""
    facts = replay_facts(load_machine(name))
    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", lambda *a, **k: facts)
    work = tmp_path / "work"
    (work / ".git").mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(work)
    for key, value in env:
        monkeypatch.setenv(key, value)
    return cli("check", "--device", load_machine(name)["expect"].get("requested", "auto"), *args)


@pytest.fixture
def actions(tmp_path):
    """The environment of a job step: GITHUB_ACTIONS and a step summary file that an earlier step wrote to."""
    summary = tmp_path / "step_summary.md"
    summary.write_text("## an earlier step\n")
    return summary, (("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", str(summary)))


def test_the_summary_is_appended_and_what_fails_or_warns_is_annotated(cli, monkeypatch, tmp_path, actions):
    summary, env = actions
    plain = run_check(cli, monkeypatch, tmp_path, "m2-torch-import-error")
    result = run_check(cli, monkeypatch, tmp_path, "m2-torch-import-error", env=env)
    assert result.exit_code == plain.exit_code == 1 and result.stdout == plain.stdout
    text = summary.read_text()
    assert text.startswith("## an earlier step\n<details><summary>mps-doctor ") and text.count("<details>") == 1
    assert '"root_cause": "torch.import"' in text and live_problems(text[len("## an earlier step\n"):]) == []
    assert "/Users/alex" not in text
    found = commands_in(result.stderr)
    assert [(name, props["title"]) for name, props, _ in found] == [
        ("error", "mps-doctor: torch.import"), ("warning", "mps-doctor: python.numpy")]
    message = found[0][2].splitlines()
    assert message[1] == "Fix: Reinstall torch and torchvision, pinned together"
    assert message[2] == "~/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.13.*' 'torchvision==0.28.*'"


def test_no_github_and_outside_actions_nothing_is_written(cli, monkeypatch, tmp_path, actions):
    summary, env = actions
    result = run_check(cli, monkeypatch, tmp_path, "m2-torch-import-error", "--no-github", env=env)
    assert result.exit_code == 1 and summary.read_text() == "## an earlier step\n" and "::" not in result.stderr
    result = run_check(cli, monkeypatch, tmp_path, "m2-torch-import-error", env=(("GITHUB_ACTIONS", "false"),
                                                                               env[1]))
    assert summary.read_text() == "## an earlier step\n" and "::" not in result.stderr


def test_json_stays_alone_on_stdout_and_a_ready_machine_is_not_annotated(cli, monkeypatch, tmp_path, actions):
    summary, env = actions
    result = run_check(cli, monkeypatch, tmp_path, "m2-native-torch213", "--format", "json", env=env)
    assert result.exit_code == 0 and json.loads(result.stdout)["verdict"]["state"] == "ready"
    assert commands_in(result.stderr) == [] and "ready to train on mps" in summary.read_text()


def test_warnings_are_errors_when_they_count(cli, monkeypatch, tmp_path, actions):
    _, env = actions
    result = run_check(cli, monkeypatch, tmp_path, "m2-torchaudio-left-behind", "--strict", env=env)
    assert result.exit_code == 1
    assert [(name, props["title"]) for name, props, _ in commands_in(result.stderr)] == [
        ("error", "mps-doctor: torch.companions")]


def test_a_step_summary_that_cannot_be_written_is_a_warning_not_a_failure(cli, monkeypatch, tmp_path):
    folder = tmp_path / "summary-is-a-folder"
    folder.mkdir()
    result = run_check(cli, monkeypatch, tmp_path, "m2-native-torch213", env=(
        ("GITHUB_ACTIONS", "true"), ("GITHUB_STEP_SUMMARY", str(folder))))
    assert result.exit_code == 0
    (name, props, message), = commands_in(result.stderr)
    assert (name, props["title"]) == ("warning", "mps-doctor") and "GITHUB_STEP_SUMMARY" in message


def test_escaping_is_actions_toolkit_s():
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext%3A a%2Cb"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_value_starts_another_command_or_changes_this_one(payload):
    line = workflow_command("error", "mps-doctor: " + payload, "summary " + payload + "\n::set-env name=X::1")
    assert "\n" not in line and "\r" not in line
    (name, props, message), = commands_in(line)
    assert name == "error" and list(props) == ["title"]
    assert props["title"] == escaped_line("mps-doctor: " + payload)
    assert message == visible("summary " + payload + "\n::set-env name=X::1")
