"""install/preflight.sh: where mps-doctor comes from (never an unpinned name), no stale report replayed, no
temporary report left behind, and --dry-run commands that paste back exactly."""

import os
import shlex
import shutil
import signal
import subprocess
import time

import pytest

from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
PREFLIGHT = os.path.join(ROOT, "install", "preflight.sh")
SHA = "0123456789abcdef0123456789abcdef01234567"


def stub(path, body):
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def fake_env(folder, check_body, importable=True):
    """An 'environment' whose python logs its calls and whose mps-doctor runs CHECK_BODY for `check --python`."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(parents=True)
    log = folder / "calls.log"
    stub(bin_dir / "python", 'printf "python %%s\\n" "$*" >> "%s"\n'
                             'case "$*" in "-c import mps_doctor") exit %d ;; esac\nexit 0' % (log, 0 if importable else 1))
    stub(bin_dir / "mps-doctor", 'printf "mps-doctor %%s\\n" "$*" >> "%s"\n'
                                 'case "$1 $2" in\n'
                                 '  "check --python") %s ;;\n'
                                 '  "check --from") echo "REPLAYED $3" ;;\n'
                                 'esac' % (log, check_body))
    return log


def preflight(*args, cwd, env=None, script=PREFLIGHT):
    full = dict(os.environ, NO_COLOR="1")
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX", "HOMEBREW_PREFIX"):
        full.pop(name, None)
    full.update(env or {})
    done = subprocess.run(["sh", script] + list(args), cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=full, timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_a_check_that_exits_2_does_not_replay_an_old_json_report(tmp_path):
    log = fake_env(tmp_path / "env", "exit 2")
    (tmp_path / "old.json").write_text('{"old": true}')
    temp = tmp_path / "temp"
    temp.mkdir()
    code, out, err = preflight("--venv", str(tmp_path / "env"), "--json", "old.json", cwd=tmp_path,
                               env={"TMPDIR": str(temp)})
    assert code == 2, err
    assert "REPLAYED" not in out and "check --from" not in log.read_text()
    assert "old.json was not updated" in err
    assert (tmp_path / "old.json").read_text() == '{"old": true}'
    assert os.listdir(str(temp)) == []


@pytest.mark.parametrize("check_body, expected", [
    ('printf "{}" > "$9"; exit 0', 0), ('printf "{}" > "$9"; exit 1', 1), ("exit 2", 2), ("exit 3", 3),
    ('printf "{" > "$9"; exit 3', 3),
])
def test_the_temporary_report_is_removed_on_every_exit(tmp_path, check_body, expected):
    fake_env(tmp_path / "env", check_body)
    temp = tmp_path / "temp"
    temp.mkdir()
    code, out, err = preflight("--venv", str(tmp_path / "env"), cwd=tmp_path, env={"TMPDIR": str(temp)})
    assert code == expected, err
    assert os.listdir(str(temp)) == []


def test_the_temporary_report_is_removed_when_preflight_is_terminated(tmp_path):
    """SIGTERM while the check runs: sh runs its trap once the check returns (released here right after the signal)."""
    started, released = tmp_path / "started", tmp_path / "released"
    fake_env(tmp_path / "env", 'touch "%s"; i=0; while [ ! -e "%s" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done'
             % (started, released))
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    env.pop("VIRTUAL_ENV", None)
    process = subprocess.Popen(["sh", PREFLIGHT, "--venv", str(tmp_path / "env")], cwd=str(tmp_path), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while not started.exists() and time.monotonic() < end:
            time.sleep(0.05)
        assert started.exists()
        assert len(os.listdir(str(temp))) == 1
        process.send_signal(signal.SIGTERM)
        released.touch()
        process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 143
    assert os.listdir(str(temp)) == []


def dry_run_commands(err):
    return [shlex.split(line[2:]) for line in err.splitlines() if line.startswith("+ ")]


def test_dry_run_prints_commands_that_paste_back_exactly(tmp_path):
    venv = "my env's \"dir\" $HOME"
    index = "https://example.org/simple?a=1&b=2"
    python = shutil.which("python3")
    code, _, err = preflight("--dry-run", "--venv", venv, "--python", python, "--torch", "2.13.0",
                             "--index-url", index, "--json", "my report.json", cwd=tmp_path,
                             env={"PATH": "/usr/bin:/bin"})
    assert code == 0, err
    commands = dry_run_commands(err)
    assert [python, "-m", "venv", venv] in commands
    assert [venv + "/bin/python", "-m", "pip", "install", "--quiet", "torch==2.13.0", "--index-url", index] in commands
    assert [venv + "/bin/mps-doctor", "check", "--python", venv + "/bin/python", "--device", "auto", "--format",
            "json", "--output", os.environ.get("TMPDIR", "/tmp") + "/mps-doctor-report.XXXXXX"] in commands
    assert ["cp", os.environ.get("TMPDIR", "/tmp") + "/mps-doctor-report.XXXXXX", "my report.json"] in commands
    assert os.listdir(str(tmp_path)) == []


def team_repository(tmp_path):
    """A team repository that holds only a copy of install/preflight.sh (no mps-doctor checkout): (folder, script)."""
    team = tmp_path / "team"
    (team / "install").mkdir(parents=True)
    script = str(team / "install" / "preflight.sh")
    shutil.copy(PREFLIGHT, script)
    return team, script


def test_outside_a_checkout_nothing_is_installed_by_name(tmp_path):
    team, script = team_repository(tmp_path)
    log = fake_env(tmp_path / "env", "exit 0", importable=False)
    code, _, err = preflight("--venv", str(tmp_path / "env"), cwd=team, script=script)
    assert code == 2, err
    assert "no mps-doctor to use: pass --from" in err
    assert "pip install" not in log.read_text() and "mps-doctor check" not in log.read_text()


def test_outside_a_checkout_an_installed_mps_doctor_is_used(tmp_path):
    team, script = team_repository(tmp_path)
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 0', importable=True)
    code, _, err = preflight("--venv", str(tmp_path / "env"), cwd=team, script=script)
    assert code == 0, err
    assert "using the mps-doctor installed in" in err and "pip install" not in log.read_text()


@pytest.mark.parametrize("source, message", [
    ("git+https://github.com/example/mps-doctor", "a URL must be git+https://"),
    ("git+https://github.com/example/mps-doctor@main", "pin the URL to a 40-hex commit"),
    ("git+https://github.com/example/mps-doctor@0123abc", "pin the URL to a 40-hex commit"),
    ("git+http://github.com/example/mps-doctor@" + SHA, "a URL must be git+https://"),
    ("https://example.org/mps_doctor-0.1.0-py3-none-any.whl", "a URL must be git+https://"),
    ("mps-doctor", "not an mps-doctor checkout"),
    ("missing.whl", "no such wheel file"),
])
def test_unpinned_or_unknown_sources_are_refused(tmp_path, source, message):
    code, _, err = preflight("--dry-run", "--from", source, cwd=tmp_path)
    assert code == 2 and message in err, err


@pytest.mark.parametrize("ref", [SHA, "v0.1.0", "0.1.0"])
def test_pinned_vcs_urls_are_installed_as_given(tmp_path, ref):
    url = "git+https://github.com/example/mps-doctor@" + ref
    code, _, err = preflight("--dry-run", "--from", url, "--python", shutil.which("python3"), cwd=tmp_path,
                             env={"PATH": "/usr/bin:/bin"})
    assert code == 0, err
    assert [".venv/bin/python", "-m", "pip", "install", "--quiet", url] in dry_run_commands(err)


def test_version_by_name_is_gone(tmp_path):
    code, _, err = preflight("--version", "0.1.0", cwd=tmp_path)
    assert code == 2 and "--version is gone" in err


def test_a_relative_checkout_is_installed_by_absolute_path(tmp_path):
    vendor = tmp_path / "vendor"
    vendor.mkdir()
    os.symlink(ROOT, str(vendor / "mps-doctor"))
    code, _, err = preflight("--dry-run", "--from", "vendor/mps-doctor", "--python", shutil.which("python3"),
                             cwd=tmp_path, env={"PATH": "/usr/bin:/bin"})
    assert code == 0, err
    assert [".venv/bin/python", "-m", "pip", "install", "--quiet", str(vendor / "mps-doctor")] in dry_run_commands(err)


def test_the_report_and_the_commands_printed_outlive_the_script(tmp_path):
    """The text names the kept report (not the temporary one, removed on exit), mps-doctor by absolute path, and the
    plan comes from the environment itself, not from a report (whose plan starts mps-doctor by name)."""
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 1')
    temp = tmp_path / "temp"
    temp.mkdir()
    code, out, err = preflight("--venv", "env", cwd=tmp_path, env={"TMPDIR": str(temp)})
    assert code == 1, err
    kept = tmp_path / "env" / "mps-doctor-report.json"
    assert kept.read_text() == "{}" and os.listdir(str(temp)) == []
    calls = log.read_text().splitlines()
    env_python = str(tmp_path / "env" / "bin" / "python")
    assert "mps-doctor check --from %s" % kept in calls
    assert "mps-doctor fix --print-commands --python %s --device auto" % env_python in calls
    assert "+ %s check --python %s" % (tmp_path / "env" / "bin" / "mps-doctor", env_python) in err
    assert "preflight: report kept in %s" % kept in err


def test_json_file_is_the_kept_report_named_by_absolute_path(tmp_path):
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 1')
    code, out, err = preflight("--venv", str(tmp_path / "env"), "--json", "report.json", cwd=tmp_path)
    assert code == 1, err
    assert "mps-doctor check --from %s" % (tmp_path / "report.json") in log.read_text().splitlines()
    assert not (tmp_path / "env" / "mps-doctor-report.json").exists()


def test_an_environment_that_cannot_hold_the_report_keeps_the_temporary_one_and_says_where(tmp_path):
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 0')
    temp = tmp_path / "temp"
    temp.mkdir()
    # A link into a folder that does not exist: no one can write through it, root included.
    os.symlink(str(tmp_path / "gone" / "report.json"), str(tmp_path / "env" / "mps-doctor-report.json"))
    code, out, err = preflight("--venv", str(tmp_path / "env"), cwd=tmp_path, env={"TMPDIR": str(temp)})
    assert code == 0, err
    [left] = os.listdir(str(temp))
    assert "cannot write %s" % (tmp_path / "env" / "mps-doctor-report.json") in err
    assert "report kept in %s" % (temp / left) in err
    assert "mps-doctor check --from %s" % (temp / left) in log.read_text().splitlines()


def test_a_folder_named_like_the_json_file_is_not_written_into(tmp_path):
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 0')
    (tmp_path / "reports").mkdir()
    code, _, err = preflight("--venv", str(tmp_path / "env"), "--json", "reports", cwd=tmp_path)
    assert code == 2 and "--json reports: is a folder" in err
    assert os.listdir(str(tmp_path / "reports")) == [] and not log.exists()


@pytest.mark.parametrize("json_file, message", [
    ("out/report.json", "--json out/report.json: the folder out does not exist"),
    ("out", "--json out: is a folder; name a file"),
    ("gone.json", "--json gone.json: a link to nothing; name a file"),
])
def test_a_json_file_that_cannot_be_kept_is_a_usage_error_before_any_work(tmp_path, json_file, message):
    """The new user's trial: `--json out/report.json` without out/ ran the whole setup (a venv, installs, the probe)
    and then exited 3, the verdict thrown away. The destination is checked first: exit 2, nothing created or run."""
    project = tmp_path / "project"
    project.mkdir()
    if json_file == "out":
        (project / "out").mkdir()
    if json_file == "gone.json":
        os.symlink(str(tmp_path / "gone" / "report.json"), str(project / "gone.json"))
    log = fake_env(tmp_path / "env", 'printf "{}" > "$9"; exit 0')
    for args in (("--venv", str(tmp_path / "env")), ("--venv", "new-env"), ("--dry-run",)):
        code, out, err = preflight(*(args + ("--json", json_file)), cwd=project, env={"PATH": "/usr/bin:/bin"})
        assert code == 2, err
        assert err.splitlines()[0] == "preflight: error: " + message
        assert not [line for line in err.splitlines() if line.startswith("+ ")] and out == ""
    assert not log.exists() and sorted(os.listdir(str(project))) == sorted(
        {"out": ["out"], "gone.json": ["gone.json"]}.get(json_file, []))


def test_a_strict_preflight_prints_a_strict_plan(tmp_path):
    """--strict reaches the plan too: its closing check is strict, as the run was."""
    log = fake_env(tmp_path / "env", 'for last; do :; done; printf "{}" > "$last"; exit 1')
    code, _, err = preflight("--venv", str(tmp_path / "env"), "--strict", cwd=tmp_path)
    assert code == 1, err
    env_python = str(tmp_path / "env" / "bin" / "python")
    calls = log.read_text().splitlines()
    assert "mps-doctor fix --print-commands --python %s --device auto --strict" % env_python in calls
    assert "mps-doctor check --from %s --strict" % (tmp_path / "env" / "mps-doctor-report.json") in calls


def test_the_printed_help_command_runs_from_anywhere(tmp_path):
    code, _, err = preflight("--bogus", cwd=tmp_path)
    assert code == 2
    command = next(line for line in err.splitlines() if line.startswith("preflight: run: "))[len("preflight: run: "):]
    done = subprocess.run(command, shell=True, cwd=str(tmp_path), stdout=subprocess.PIPE, text=True)
    assert done.returncode == 0 and "--json FILE" in done.stdout
