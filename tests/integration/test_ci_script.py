""".ci/run: the CI script installs its tools on a machine whose package manager another process holds."""

import os
import shutil
import subprocess

import pytest

from tests.paths import ROOT_DIR

ROOT = ROOT_DIR

# apt-get as apt 2.6.1 behaves while apt-daily or unattended-upgrades runs on a fresh machine (measured with the
# locks held by another process): `install` waits for the dpkg lock when DPkg::Lock::Timeout asks it to, and fails at
# once (exit 100) otherwise; `update` fails at once while the package lists' lock is held, whatever the option says.
# Here the lists' lock is held for the first $BUSY_UPDATES updates; $UPDATE_ERROR is another failure of update.
BUSY_APT_GET = """#!/bin/sh
echo "apt-get $*" >> "$LOG"
case " $* " in
  *" update "*)
    if [ -n "$UPDATE_ERROR" ]; then echo "E: $UPDATE_ERROR" >&2; exit 100; fi
    count=$(grep -c " update " "$LOG")
    if [ "$count" -le "$BUSY_UPDATES" ]; then
      echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
      exit 100
    fi
    exit 0 ;;
  *" DPkg::Lock::Timeout=600 "*) exit 0 ;;
esac
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (unattended-upgr)" >&2
exit 100
"""
SLEEP = """#!/bin/sh
echo "sleep $*" >> "$LOG"
"""
# The first command after the tools: the test ends the script there.
PYTHON3 = """#!/bin/sh
echo "python3 $*" >> "$LOG"
exit 1
"""


def run_ci_script(tmp_path, **env):
    """(exit code, stderr, the commands it ran) of .ci/run on a machine without shellcheck, fish and zsh, whose
    apt-get is BUSY_APT_GET; it stops at `python3 -m venv`."""
    checkout = tmp_path / "checkout"
    (checkout / ".ci").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, ".ci", "run"), str(checkout / ".ci" / "run"))
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("dirname", "rm", "grep"):
        os.symlink(shutil.which(name), str(tools / name))
    for name, text in (("apt-get", BUSY_APT_GET), ("sleep", SLEEP), ("python3", PYTHON3)):
        (tools / name).write_text(text)
        (tools / name).chmod(0o755)
    log = tmp_path / "log"
    log.write_text("")
    environment = {"PATH": str(tools), "LOG": str(log), "BUSY_UPDATES": "0", "UPDATE_ERROR": ""}
    environment.update(env)
    done = subprocess.run([shutil.which("bash"), str(checkout / ".ci" / "run")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=environment, timeout=60)
    return done.returncode, done.stderr, log.read_text().splitlines()


@pytest.mark.parametrize("busy_updates", [0, 3])
def test_ci_run_waits_for_a_busy_package_manager(tmp_path, busy_updates):
    code, err, calls = run_ci_script(tmp_path, BUSY_UPDATES=str(busy_updates))
    updates = [call for call in calls if " update " in call + " "]
    assert len(updates) == busy_updates + 1 and calls.count("sleep 5") == busy_updates, calls
    installs = [call for call in calls if " install " in call]
    assert installs and all("-o DPkg::Lock::Timeout=600" in call for call in installs), calls
    assert calls[-1] == "python3 -m venv .venv-ci", err


def test_ci_run_stops_at_once_when_update_fails_for_another_reason(tmp_path):
    code, err, calls = run_ci_script(tmp_path, UPDATE_ERROR="The repository 'http://deb.example bookworm Release' "
                                                            "does not have a Release file.")
    assert code != 0 and "does not have a Release file" in err
    assert [call.split()[-2:] for call in calls] == [["update", "-qq"]], calls
