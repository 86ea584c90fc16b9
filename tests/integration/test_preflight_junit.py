"""install/preflight.sh --junit FILE, and what it does in GitHub Actions: the probe writes the step summary and the
annotations once; the replays of its report (the text, the JUnit file) write none."""

import os

import yaml

from tests.integration.test_preflight_hardening import ROOT, fake_env, preflight

# The stub mps-doctor logs GITHUB_ACTIONS as each call sees it, then the call.
PROBE = 'printf "{}" > "$9"; exit 1'


def calls(log):
    return log.read_text().splitlines()


def test_junit_is_written_from_the_kept_report_and_replays_add_nothing_in_actions(tmp_path):
    log = fake_env(tmp_path / "env", PROBE)
    seen = tmp_path / "env" / "actions.log"
    stub = tmp_path / "env" / "bin" / "mps-doctor"
    stub.write_text(stub.read_text().replace("#!/bin/sh\n", '#!/bin/sh\nprintf "%%s %%s\\n" "${GITHUB_ACTIONS-unset}" "$2" >> "%s"\n'
                                             % seen, 1))
    code, _, err = preflight("--venv", str(tmp_path / "env"), "--json", "report.json", "--junit", "junit.xml",
                             cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert code == 1, err
    kept = tmp_path / "report.json"
    assert "mps-doctor check --from %s --no-github --format junit --output junit.xml" % kept in calls(log)
    # The probe (--python) sees the job's environment; the text replay sees none (an older mps-doctor has no
    # --no-github), and the JUnit replay is told --no-github.
    assert [line for line in calls(seen) if line.endswith(("--python", "--from"))] == [
        "true --python", " --from", "true --from"]


def test_a_junit_file_that_cannot_be_written_is_a_usage_error_before_any_work(tmp_path):
    log = fake_env(tmp_path / "env", PROBE)
    code, out, err = preflight("--venv", str(tmp_path / "env"), "--junit", "out/junit.xml", cwd=tmp_path)
    assert code == 2 and err.splitlines()[0] == "preflight: error: --junit out/junit.xml: the folder out does not exist"
    assert not log.exists() and out == ""


def test_dry_run_prints_the_junit_replay(tmp_path):
    code, _, err = preflight("--dry-run", "--python", "/usr/bin/python3", "--junit", "junit.xml", cwd=tmp_path)
    assert code == 0, err
    assert "check --from .venv/mps-doctor-report.json --no-github --format junit --output junit.xml" in err


def test_the_shipped_workflows_keep_the_junit_report_with_the_json_one():
    for name in ("macos-hosted.yml", "mps-self-hosted.yml"):
        with open(os.path.join(ROOT, "install", "github-actions", name)) as handle:
            workflow = yaml.safe_load(handle)
        steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
        run, = [step["run"].split() for step in steps if "run" in step]
        junit = run[run.index("--junit") + 1]
        upload, = [step for step in steps if step.get("uses", "").startswith("actions/upload-artifact@")]
        assert upload["with"]["path"].split() == [run[run.index("--json") + 1], junit]
