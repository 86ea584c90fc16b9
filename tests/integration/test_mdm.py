"""install/mdm: the Jamf Pro, Kandji (Iru) and Intune scripts and the osquery status file, run as the MDMs run them.

The fake MDM harness. The scripts run as root, as every MDM runs them (so do these tests: they need root to switch
users, like the scripts), with a console user that is a real account made for the test (useradd, removed after)
whose environment lives in its own home folder. What stands in for macOS on this Linux machine:

- `scutil` answers `show State:/Users/ConsoleUser` with that user, in the dynamic store's format (a login window
  answers `Name : loginwindow`);
- `launchctl asuser UID COMMAND...` logs its arguments and runs COMMAND (launchd's per-user context has no Linux
  counterpart);
- `sudo -u USER -H COMMAND...`, where no sudo is installed, switches to USER for real (setpriv), HOME from the
  password database; a real sudo is found first where there is one (the scripts search the system's folders first);
- `dscl` is missing, so the scripts read the home folder with getent.

The fast tests give the user a fake mps-doctor (a shell script that prints a chosen answer, as the user it runs as);
the slow ones a real venv of a Python the user can run, with mps-doctor installed from this checkout's wheel.
"""

import os
import pathlib
import plistlib
import pwd
import re
import shutil
import subprocess
import sys
import textwrap
import time

import psutil
import pytest

from tests.helpers import ROOT, TARGET_PYTHON, doctor_wheelhouse, make_venv, site_packages

MDM = os.path.join(ROOT, "install", "mdm")
SCRIPTS = {"jamf": "jamf-extension-attribute.sh", "kandji": "kandji-audit.sh",
           "intune": "intune-custom-attribute.sh", "osquery": "osquery-status.sh"}
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the MDM scripts run as root and switch to the console user")
# The scripts and their harness are the same subprocesses whichever Python runs pytest.
pytestmark = pytest.mark.independent_of_test_python
STATES = ("ready", "not-ready", "timed-out", "doctor-failed", "not-checked")
FAKE_TOOLS = {
    "scutil": """
        # scutil: the console user from the dynamic store (State:/Users/ConsoleUser), as macOS prints it.
        read -r command
        [ "$command" = "show State:/Users/ConsoleUser" ] || { echo "fake scutil: unexpected: $command" >&2; exit 64; }
        if [ -z "$FAKE_CONSOLE_USER" ]; then echo "  No such key"; exit 0; fi
        uid=$(id -u "$FAKE_CONSOLE_USER" 2>/dev/null || echo 501)
        printf '<dictionary> {\\n  GID : 20\\n  Name : %s\\n' "$FAKE_CONSOLE_USER"
        printf '  SessionInfo : <array> {\\n    0 : <dictionary> {\\n      kCGSSessionUserIDKey : %s\\n' "$uid"
        printf '      kCGSSessionUserNameKey : %s\\n    }\\n  }\\n  UID : %s\\n}\\n' "$FAKE_CONSOLE_USER" "$uid"
        """,
    "launchctl": """
        # launchctl asuser UID COMMAND...: logged, then COMMAND runs (no per-user bootstrap context on Linux).
        printf 'launchctl %s\\n' "$*" >>"$MPS_DOCTOR_HARNESS_LOG"
        [ "$1" = asuser ] || { echo "fake launchctl: unexpected: $*" >&2; exit 64; }
        shift 2
        exec "$@"
        """,
    "sudo": """
        # sudo -u USER -H COMMAND...: COMMAND as USER for real, HOME from the password database.
        printf 'sudo %s\\n' "$*" >>"$MPS_DOCTOR_HARNESS_LOG"
        [ "$1" = -u ] && [ "$3" = -H ] || { echo "fake sudo: unexpected: $*" >&2; exit 64; }
        user=$2
        shift 3
        exec setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups \\
          env HOME="$(getent passwd "$user" | cut -d: -f6)" "$@"
        """,
}


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    """The folder of the stand-in macOS tools."""
    folder = tmp_path_factory.mktemp("fake-macos")
    for name, body in FAKE_TOOLS.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + textwrap.dedent(body).lstrip())
        path.chmod(0o755)
    return str(folder)


@pytest.fixture(scope="module")
def console_user():
    """A real account for the test, with its home folder: (name, uid, home); removed after the module."""
    if os.geteuid() != 0:
        pytest.skip("only root can make the console user's account")
    name = "mpsd%d" % (os.getpid() % 100000)
    # useradd refuses while another process holds the password database's lock: a few tries.
    for attempt in range(10):
        if subprocess.run(["useradd", "--create-home", "--home-dir", "/home/" + name, "--shell", "/bin/sh",
                           name]).returncode == 0:
            break
        time.sleep(1 + attempt)
    else:
        pytest.fail("useradd could not make the console user's account %s" % name)
    try:
        entry = pwd.getpwnam(name)
        yield name, entry.pw_uid, entry.pw_dir, entry.pw_gid
    finally:
        subprocess.run(["userdel", "--remove", name], stderr=subprocess.DEVNULL)


def give(path, user):
    """PATH and everything under it now belongs to USER's account."""
    subprocess.run(["chown", "-R", "%s:%s" % (user, user), str(path)], check=True)


class Setup:
    """One test's configuration, status file and log, in a folder only root can write."""

    def __init__(self, folder, harness, user):
        self.folder, self.harness, self.user = folder, harness, user
        self.config = folder / "mdm.conf"
        self.status = folder / "status" / "status.plist"
        self.status.parent.mkdir()
        self.log = folder / "harness.log"
        self.log.write_text("")

    def configure(self, text):
        """mdm.conf holds TEXT."""
        self.config.write_text(textwrap.dedent(text))
        self.config.chmod(0o644)

    def run(self, script, console=None, shell=None, as_user=False, timeout=180):
        """(exit status, stdout, stderr, seconds) of SCRIPT run as root (as the console user when AS_USER), with the
        console user CONSOLE (default: the test's); SHELL runs it instead of its #! line."""
        env = {"PATH": self.harness + ":/usr/bin:/bin", "MPS_DOCTOR_MDM_CONFIG": str(self.config),
               "MPS_DOCTOR_STATUS_FILE": str(self.status), "MPS_DOCTOR_HARNESS_LOG": str(self.log),
               "FAKE_CONSOLE_USER": self.user[0] if console is None else console}
        path = os.path.join(MDM, SCRIPTS[script])
        argv = (shell or []) + [path]
        if as_user:
            home = self.user[2]
            argv = ["setpriv", "--reuid=%d" % self.user[1], "--regid=%d" % self.user[3], "--init-groups",
                    "env", "HOME=" + home, "USER=" + self.user[0]] + argv
        started = time.monotonic()
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=timeout,
                              cwd="/")
        return (done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"),
                time.monotonic() - started)


@pytest.fixture
def setup(tmp_path, harness, console_user):
    return Setup(tmp_path, harness, console_user)


def fake_environment(user, folder_name, answer, code=0, python_ok=True):
    """A venv folder in USER's home holding a fake python and a fake mps-doctor that prints ANSWER (after `$(id -un)`
    and `$HOME` are put in) and exits with CODE, as the user it runs as: the venv's path, relative to the home."""
    name, home = user[0], user[2]
    venv = os.path.join(home, folder_name, ".venv")
    os.makedirs(os.path.join(venv, "bin"))
    if python_ok:
        with open(os.path.join(venv, "bin", "python"), "w") as handle:
            handle.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(venv, "bin", "python"), 0o755)
    with open(os.path.join(venv, "bin", "answer"), "w") as handle:
        handle.write(answer)
    with open(os.path.join(venv, "bin", "mps-doctor"), "w") as handle:
        handle.write('#!/bin/sh\nprintf "%%s\\n" "$*" >"$HOME/doctor-argv"\n'
                     'sed "s|@USER@|$(id -un)|; s|@HOME@|$HOME|; s|@CWD@|$(pwd)|" "$(dirname "$0")/answer"\n'
                     'exit %d\n' % code)
    os.chmod(os.path.join(venv, "bin", "mps-doctor"), 0o755)
    give(os.path.join(home, folder_name), name)
    return os.path.join(folder_name, ".venv")


def status_answer(state="ready", summary="ready to train on mps; 0 failures, 0 warnings, 12 passed", root="",
                  root_summary="", **extra):
    """What `check --format plist` prints for a status of STATE."""
    fields = {"format": "mps-doctor-status", "status_version": 1, "state": state, "summary": summary,
              "root_cause": root, "root_cause_summary": root_summary, "user": "@USER@", "python": "@HOME@",
              "checked_at": "2026-12-01T00:00:00+00:00"}
    fields.update(extra)
    return plistlib.dumps(fields, fmt=plistlib.FMT_XML, sort_keys=True).decode()


def one_value(script, code, out):
    """The single value SCRIPT reported in OUT (its MDM's shape asserted), with its exit status CODE."""
    lines = out.split("\n")
    assert len(lines) == 2 and lines[1] == "", out
    line = lines[0]
    assert re.fullmatch(r"[ -~]*", line), line
    if script == "jamf":
        assert code == 0
        match = re.fullmatch(r"<result>([^<>]*)</result>", line)
        assert match, line
        return match.group(1)
    assert "<" not in line and ">" not in line
    if script == "intune":
        assert code == 0
    return line


# --- the scripts' own rules ----------------------------------------------------------------------------------


def shipped():
    return [os.path.join(MDM, name) for name in sorted(SCRIPTS.values())]


def blocks(text):
    """The common blocks of a script: {name: text}."""
    found = re.finditer(r"(?ms)^# --- common: (\w+) .*?^# --- end of common: \1 ---$", text)
    return {match.group(1): match.group(0) for match in found}


def test_every_script_shares_the_same_common_blocks():
    """The status reader and the console user's check are written once and copied whole into each script (an MDM
    takes one self-contained file): the copies never drift apart. The cluster's health check shares the reader."""
    health = os.path.join(ROOT, "install", "cluster", "mps-doctor-health.sh")
    texts = {path: open(path).read() for path in shipped() + [health]}
    seen = {}
    for path, text in texts.items():
        for name, block in blocks(text).items():
            seen.setdefault(name, {})[path] = block
    assert set(seen) == {"status", "mdm"}
    assert set(seen["mdm"]) == set(shipped())
    assert set(seen["status"]) == set(texts)
    for name, copies in seen.items():
        assert len(set(copies.values())) == 1, name


@pytest.mark.parametrize("path", shipped())
def test_each_header_states_user_python_runs_as_time_limit_and_changes(path):
    header = open(path).read().split("# --- common")[0]
    for label in ("Runs as:", "Finds Python:", "Runs doctor:", "Time limit:", "Changes:"):
        assert "# " + label in header, label
    assert "launchctl asuser" in header and "sudo -u USER -H" in header and "root" in header
    limit = int(re.search(r"^TIME_LIMIT=(\d+)$", header, re.M).group(1))
    assert "# Time limit:   %d s" % limit in header


@pytest.mark.parametrize("path", shipped())
def test_each_script_is_posix_sh(path):
    assert open(path).readline() == "#!/bin/sh\n"
    assert os.access(path, os.X_OK)
    for shell in ("dash", "bash", "zsh"):
        if shutil.which(shell):
            argv = [shell, "--emulate", "sh", "-n", path] if shell == "zsh" else [shell, "-n", path]
            assert subprocess.run(argv).returncode == 0, shell


# --- fast: a fake mps-doctor as the console user ----------------------------------------------------------------


def scripts(*fast):
    """Every script, those not in FAST (default: Jamf's, whose value has a tag to break) marked slow: they share
    their code with it (test_every_script_shares_the_same_common_blocks) and differ only in the last lines."""
    return [name if name in (fast or ("jamf",)) else pytest.param(name, marks=pytest.mark.slow)
            for name in sorted(SCRIPTS)]


SHELLS = {"bash": ["bash", "--posix"], "zsh": ["zsh", "--emulate", "sh"]}


@ROOT_ONLY
@pytest.mark.parametrize(("script", "shell"), [(name, None) for name in sorted(SCRIPTS)] + [
    ("jamf", "bash"), ("jamf", "zsh")])
def test_the_doctor_runs_as_the_console_user_from_the_project_folder(setup, console_user, script, shell):
    """Under the #! line's /bin/sh, and for the common code under the other /bin/sh a Mac may have (bash 3.2 in
    POSIX mode, zsh emulating sh)."""
    if shell and not shutil.which(shell):
        pytest.skip("%s is installed by .ci/run" % shell)
    name, uid, home = console_user[:3]
    venv = fake_environment(console_user, "proj-%s-%s" % (script, shell or "sh"),
                            status_answer(summary="ready to train on mps as @USER@ in @CWD@"))
    setup.configure("# the team's project environment\nvenv = %s\n" % venv)
    code, out, err, _ = setup.run(script, shell=SHELLS.get(shell))
    value = one_value(script, code, out)
    project = os.path.join(home, os.path.dirname(venv))
    assert value == "ready: ready to train on mps as %s in %s" % (name, project)
    if script == "kandji":
        assert code == 0
    log = setup.log.read_text()
    assert log.startswith("launchctl asuser %d sudo -u %s -H /usr/bin/env -i HOME=%s USER=%s LOGNAME=%s " % (
        uid, name, home, name, name)), log
    argv = open(os.path.join(home, "doctor-argv")).read().split()
    assert argv[:3] == ["check", "--python", os.path.join(project, ".venv", "bin", "python")]
    assert argv[3:] == ["--device", "auto", "--timeout", str(limit_of(script) - 15), "--format", "plist",
                        "--no-color"] + (["--quick"] if script == "jamf" else [])
    if script == "osquery":
        status = plistlib.loads(setup.status.read_bytes())
        assert status["state"] == "ready" and status["user"] == name and status["python"] == home
        assert oct(setup.status.stat().st_mode & 0o777) == "0o644"


def limit_of(script):
    return int(re.search(r"^TIME_LIMIT=(\d+)$", open(os.path.join(MDM, SCRIPTS[script])).read(), re.M).group(1))


@ROOT_ONLY
@pytest.mark.parametrize("script", scripts("jamf", "kandji"))
def test_a_not_ready_user_gets_the_root_cause_and_kandji_an_alert(setup, console_user, script):
    venv = fake_environment(console_user, "broken-" + script, status_answer(
        "not-ready", "not ready: torch is not installed; 1 failure, 0 warnings, 3 passed", "torch.import",
        "torch is not installed"), code=1)
    setup.configure("venv=%s\ndevice=cpu\ntime_limit=60\nquick=yes\n" % venv)
    code, out, _, _ = setup.run(script)
    assert one_value(script, code, out) == "not-ready: torch.import: torch is not installed"
    assert code == (1 if script == "kandji" else 0)
    argv = open(os.path.join(console_user[2], "doctor-argv")).read().split()
    assert argv[3:8] == ["--device", "cpu", "--timeout", "45", "--format"] and argv[-1] == "--quick"


@ROOT_ONLY
@pytest.mark.parametrize("script", scripts())
@pytest.mark.parametrize(("case", "expected"), [
    ("nobody at the screen", "not-checked: no user is logged in"),
    ("login window", "not-checked: no user is logged in"),
    ("no config", "not-checked: no {config} (see mps-doctor's install/mdm/README.md)"),
    ("config not root's", "not-checked: {config} is ignored: it must belong to root and be writable by no one else"),
    ("config writable by all", "not-checked: {config} is ignored: it must belong to root and be writable by no one else"),
    ("no venv= line", "not-checked: {config} sets no venv="),
    ("no venv", "not-checked: {user} has no Python at {home}/missing/.venv/bin/python"),
    ("no doctor", "not-checked: {user} has no mps-doctor in {home}/nodoctor/.venv/bin, ~/.local/bin or "
                  "~/.venvs/mps-doctor/bin"),
    ("bad device", "not-checked: {config}: device=gpu is not auto, mps, cpu or cuda"),
    ("bad time limit", "not-checked: {config}: time_limit=5 is not a number of seconds from 30 to 3600"),
])
def test_what_cannot_be_checked_is_a_clear_value_never_a_crash(setup, console_user, script, case, expected):
    name, home = console_user[0], console_user[2]
    console = {"nobody at the screen": "", "login window": "loginwindow"}.get(case)
    venv = fake_environment(console_user, "fine-%s-%s" % (script, case.replace(" ", "-").replace("'", "")),
                            status_answer())
    config = {"no venv= line": "device=cpu\n", "no venv": "venv=missing/.venv\n", "bad device": "venv=%s\ndevice=gpu\n",
              "bad time limit": "venv=%s\ntime_limit=5\n"}.get(case, "venv=%s\n")
    if case == "no doctor":
        os.makedirs(os.path.join(home, "nodoctor", ".venv", "bin"))
        shutil.copy(os.path.join(home, venv, "bin", "python"), os.path.join(home, "nodoctor", ".venv", "bin"))
        give(os.path.join(home, "nodoctor"), name)
        venv = "nodoctor/.venv"
    setup.configure(config.replace("%s", venv))
    if case == "no config":
        setup.config.unlink()
    elif case == "config not root's":
        give(setup.config, name)
    elif case == "config writable by all":
        setup.config.chmod(0o666)
    code, out, _, _ = setup.run(script, console=console)
    assert one_value(script, code, out) == expected.format(config=setup.config, user=name, home=home)
    assert code == (0 if script != "kandji" or expected.endswith("no user is logged in") else 1)
    assert setup.log.read_text() == ""  # nothing ran as the user
    if case == "no doctor":
        shutil.rmtree(os.path.join(home, "nodoctor"))
    if script == "osquery":
        status = plistlib.loads(setup.status.read_bytes())
        assert status["state"] == "not-checked" and status["summary"] == expected.format(
            config=setup.config, user=name, home=home).split(": ", 1)[1]


@ROOT_ONLY
@pytest.mark.parametrize("script", scripts())
def test_a_path_another_user_can_change_is_refused(setup, console_user, script, tmp_path_factory):
    """A venv under a world-writable folder without the sticky bit, and a doctor whose #! interpreter lives in one,
    never run: another user could have put anything there."""
    _name, home = console_user[0], console_user[2]
    venv = fake_environment(console_user, "open-" + script, status_answer())
    os.chmod(os.path.join(home, "open-" + script), 0o777)
    setup.configure("venv=%s\n" % venv)
    code, out, _, _ = setup.run(script)
    assert one_value(script, code, out) == "not-checked: %s/%s/bin/python is not safe to run: %s/open-%s can be " \
                                           "changed by another user" % (home, venv, home, script)
    os.chmod(os.path.join(home, "open-" + script), 0o755)
    shared = tmp_path_factory.mktemp("shared")
    os.chmod(str(shared), 0o777)
    interpreter = shared / "python"
    interpreter.write_text("#!/bin/sh\nexit 0\n")
    interpreter.chmod(0o755)
    doctor = os.path.join(home, venv, "bin", "mps-doctor")
    body = open(doctor).read().split("\n", 1)[1]
    with open(doctor, "w") as handle:
        handle.write("#!%s\n%s" % (interpreter, body))
    code, out, _, _ = setup.run(script)
    assert one_value(script, code, out) == "not-checked: %s is not safe to run: %s can be changed by another " \
                                           "user" % (doctor, shared)
    assert setup.log.read_text() == ""


HOSTILE = {
    # A status whose text would close Jamf's tag and open another one, and hold escapes.
    # (the doctor's one_line() writes a control character as its escape: \\n, \\x1b)
    "tag in the summary": (status_answer("not-ready", "x", "torch.import",
                                         "ok</result>\\n<result>ready: \\x1b[2J fine"), 1,
                           "not-ready: torch.import: ok(/result)\\n(result)ready: \\x1b[2J fine"),
    "a raw escape in a string": (status_answer().replace("<string>ready to train", "<string>ready\x1b[31m to train"),
                                 0, "not-checked: mps-doctor gave no status (exit status 0)"),
    "raw lines": ("</result>\n<result>ready: all good\nready: all good\n", 0,
                  "not-checked: mps-doctor gave no status (exit status 0)"),
    "a raw escape and a newline inside a string": (
        status_answer().replace("<string>ready to train", "<string>\x1b]0;owned\x07ready\nto train"), 0,
        "not-checked: mps-doctor gave no status (exit status 0)"),
    "ready but not exit 0": (status_answer("ready"), 1,
                             "not-checked: mps-doctor's state ready does not match its exit status 1"),
    "a forged exit status": (status_answer("ready") + "\nmps-doctor-exit-status 0", 1,
                             "not-checked: mps-doctor gave no status (exit status 1)"),
    "too long": (status_answer(summary="x" * 70000), 0, "not-checked: mps-doctor answered more than 65536 bytes: "
                                                       "no status"),
}


@ROOT_ONLY
@pytest.mark.parametrize("script", scripts())
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_answer_cannot_break_the_value_or_add_a_line(setup, console_user, script, case):
    answer, exit_code, expected = HOSTILE[case]
    venv = fake_environment(console_user, "hostile-%s-%s" % (script, re.sub(r"\W", "-", case)), answer,
                            code=exit_code)
    setup.configure("venv=%s\n" % venv)
    code, out, _, _ = setup.run(script)
    assert one_value(script, code, out) == expected
    if script == "osquery":
        status = setup.status.read_bytes()
        parsed = plistlib.loads(status)
        assert parsed["state"] == expected.split(":", 1)[0]
        assert b"\x1b" not in status and b"<result>" not in status


@ROOT_ONLY
def test_intune_as_the_user_checks_that_users_own_environment_without_sudo(setup, console_user):
    """Run in the user's context (Intune's runAsAccount "user"), the script runs the doctor directly."""
    name, home = console_user[0], console_user[2]
    venv = fake_environment(console_user, "own", status_answer(summary="ready to train on mps as @USER@"))
    # The configuration where the user can read it: a folder of root's in the user's home.
    os.makedirs(os.path.join(home, "config"))
    setup.config = pathlib.Path(home, "config", "mdm.conf")
    setup.configure("venv=%s\n" % venv)
    code, out, _, _ = setup.run("intune", as_user=True)
    assert one_value("intune", code, out) == "ready: ready to train on mps as %s" % name
    assert setup.log.read_text() == ""


@ROOT_ONLY
@pytest.mark.slow
@pytest.mark.parametrize("script", ["jamf", "kandji"])
def test_a_doctor_that_never_answers_is_stopped_at_the_time_limit(setup, console_user, script):
    name, home = console_user[0], console_user[2]
    venv = fake_environment(console_user, "hang-" + script, "")
    with open(os.path.join(home, venv, "bin", "mps-doctor"), "w") as handle:
        handle.write("#!/bin/sh\nexec sleep 1000\n")
    setup.configure("venv=%s\ntime_limit=30\n" % venv)
    code, out, _, seconds = setup.run(script)
    assert one_value(script, code, out) == "timed-out: mps-doctor did not finish within the time limit of 30 s"
    assert 30 <= seconds < 45
    assert code == (1 if script == "kandji" else 0)
    assert not [p for p in psutil.process_iter(["username", "name"]) if p.info["username"] == name]


# --- slow: a real venv with mps-doctor from this checkout -------------------------------------------------------


def python_the_user_can_run(user):
    """An interpreter that USER's account runs as root does, its own standard library included (one in a folder the
    user cannot enter may start with another's): the test interpreter's own base, else the system's python3. A loud
    failure, never a skip, when there is none."""
    base = subprocess.check_output([TARGET_PYTHON, "-c", "import sys, os; print(os.path.realpath(getattr(sys, "
                                    "'_base_executable', sys.executable)))"], universal_newlines=True).strip()
    probe = ["-I", "-c", "import sys, venv; assert sys.version_info >= (3, 8); print(sys.base_prefix)"]
    as_user = ["setpriv", "--reuid=%d" % user[1], "--regid=%d" % user[3], "--init-groups"]
    for candidate in (base, "/usr/bin/python3", "/usr/local/bin/python3"):
        runs = [subprocess.run(prefix + [candidate] + probe, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd="/", text=True) for prefix in ([], as_user)]
        if all(done.returncode == 0 for done in runs) and runs[0].stdout == runs[1].stdout:
            return candidate
    pytest.fail("no Python 3.8+ that another user can run: the MDM scripts need one for the console user")


# The user's project folder: characters that are markup in a result tag and in a plist, in a path that reaches the
# status file (its `python` key).
PROJECT = "ml <result> & 'project'"


@pytest.fixture(scope="module")
def user_venv(console_user, tmp_path_factory):
    """The console user's project venv, with mps-doctor from this checkout and a torch that cannot import: the
    venv's path, relative to the home folder."""
    name, home = console_user[0], console_user[2]
    wheels, _ = doctor_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))
    project = os.path.join(home, PROJECT)
    os.makedirs(project)
    python = make_venv(pathlib.Path(project) / ".venv", python=python_the_user_can_run(console_user))
    subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--find-links",
                    wheels, "mps-doctor"], check=True)
    torch = os.path.join(site_packages(python), "torch")
    os.makedirs(torch)
    with open(os.path.join(torch, "__init__.py"), "w") as handle:
        handle.write("raise ImportError('this torch is broken')\n")
    give(project, name)
    return os.path.join(PROJECT, ".venv")


def doctor_status(python, *args):
    """The status that the doctor in PYTHON's venv gives for PYTHON, run here as root: {key: value}."""
    done = subprocess.run([os.path.join(os.path.dirname(python), "mps-doctor"), "check", "--python", python,
                           "--format", "plist"] + list(args), stdout=subprocess.PIPE, cwd="/")
    return plistlib.loads(done.stdout)


@ROOT_ONLY
@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_each_script_reports_the_console_users_own_environment(setup, console_user, user_venv, script):
    """The user's venv has a torch that does not import, unlike the one the tests run: the scripts report the
    user's, and the status file names the user and the venv's Python, the markup in its path inert."""
    name, home = console_user[0], console_user[2]
    python = os.path.join(home, user_venv, "bin", "python")
    expected = doctor_status(python, "--device", "cpu")
    assert expected["root_cause"] == "torch.import"
    setup.configure("venv=%s\ndevice=cpu\n" % user_venv)
    code, out, err, _ = setup.run(script)
    value = one_value(script, code, out)
    assert value == "not-ready: torch.import: " + expected["root_cause_summary"], err
    assert code == (1 if script == "kandji" else 0)
    if script == "osquery":
        status = plistlib.loads(setup.status.read_bytes())
        assert status["user"] == name and status["python"] == python and status["exit_code"] == 1
        assert status["state"] == "not-ready" and status["root_cause"] == "torch.import"
        assert status["device"] == "cpu" and status["format"] == "mps-doctor-status"


def test_the_example_configuration_documents_every_setting_the_scripts_read():
    example = open(os.path.join(MDM, "mdm.conf.example")).read()
    documented = set(re.findall(r"^(?:# )?([a-z_]+)=", example, re.M))
    read = {key for path in shipped() for key in re.findall(r'config_value ([a-z_]+) "', open(path).read())}
    assert read == documented == {"venv", "doctor", "device", "time_limit", "quick"}
    assert re.findall(r"^[a-z_]+=", example, re.M) == ["venv="]
    limits = "Defaults: Jamf %d, Kandji and Intune %d, osquery-status %d." % (
        limit_of("jamf"), limit_of("kandji"), limit_of("osquery"))
    assert limits in example and limit_of("kandji") == limit_of("intune")
