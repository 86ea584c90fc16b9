"""Where the output goes: --output to files, symlinks, devices and FIFOs; stdout closed, a closed pipe, a full
disk; colour on a terminal. Real doctor processes, real devices."""

import os
import pty
import select
import stat
import subprocess
import sys
import threading

import pytest

from tests.helpers import TARGET_PYTHON
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
NOT_READY = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")


def doctor(*args, cwd=None, env=None, **popen):
    full = dict(os.environ)
    full.pop("NO_COLOR", None)
    full.update(env or {})
    popen.setdefault("stdout", subprocess.PIPE)
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + list(args), stderr=subprocess.PIPE, cwd=cwd,
                          env=full, timeout=300, **popen)
    return done.returncode, done.stdout, done.stderr.decode()


@pytest.fixture(scope="module")
def ready_report(tmp_path_factory):
    """A ready report of this machine's CPU, diagnosed in the target interpreter (it has torch)."""
    path = tmp_path_factory.mktemp("ready") / "ready.json"
    code, _, err = doctor("check", "--python", TARGET_PYTHON, "--device", "cpu", "--quick", "--format", "json",
                          "--output", str(path))
    assert code == 0, err
    return str(path)


def one_line_error(err):
    lines = err.strip().splitlines()
    return len(lines) == 1 and lines[0].startswith("mps-doctor: error: ") and "Traceback" not in err


def test_a_regular_file_is_replaced_atomically_keeping_its_permissions(tmp_path):
    path = tmp_path / "report.md"
    path.write_text("old")
    path.chmod(0o640)
    code, _, err = doctor("check", "--from", NOT_READY, "--format", "markdown", "--output", str(path))
    assert code == 1, err
    assert "mps-doctor" in path.read_text() and stat.S_IMODE(path.stat().st_mode) == 0o640
    assert os.listdir(str(tmp_path)) == ["report.md"]


def test_a_symlink_is_written_through_to_its_target(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    code, _, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", str(link))
    assert code == 1, err
    assert link.is_symlink() and os.readlink(str(link)) == str(target)
    assert '"verdict"' in target.read_text()


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    code, _, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", str(link))
    assert code == 1, err
    assert link.is_symlink() and '"verdict"' in (tmp_path / "new.json").read_text()


def test_a_fifo_is_written_directly_and_stays_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(str(fifo))
    received = []
    reader = threading.Thread(target=lambda: received.append(open(str(fifo), "rb").read()))
    reader.start()
    code, _, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", str(fifo))
    reader.join(30)
    assert code == 1, err
    assert stat.S_ISFIFO(os.stat(str(fifo)).st_mode)
    assert b'"verdict"' in received[0]
    assert os.listdir(str(tmp_path)) == ["pipe"]


def device_node(folder, name, minor):
    """A private character device with the numbers of /dev/null (1, 3) or /dev/full (1, 7): the same driver, but a
    regression that replaces it cannot break the machine's own /dev/null."""
    path = os.path.join(str(folder), name)
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    return path


ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="only root can create device nodes (and replace devices)")


@ROOT_ONLY
def test_a_null_device_stays_a_character_device_as_root(tmp_path):
    null = device_node(tmp_path, "null", 3)
    code, _, err = doctor("check", "--from", NOT_READY, "--output", null)
    assert code == 1, err
    assert stat.S_ISCHR(os.stat(null).st_mode) and os.listdir(str(tmp_path)) == ["null"]


@ROOT_ONLY
def test_a_full_device_is_a_one_line_usage_error_and_stays_a_device(tmp_path):
    full = device_node(tmp_path, "full", 7)
    code, _, err = doctor("check", "--from", NOT_READY, "--output", full)
    assert code == 2 and one_line_error(err) and "No space left on device" in err, err
    assert stat.S_ISCHR(os.stat(full).st_mode) and os.listdir(str(tmp_path)) == ["full"]


def test_dev_stdout_a_magic_link_to_a_pipe_is_written_directly():
    code, out, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", "/dev/stdout")
    assert code == 1 and b'"verdict"' in out, err


def test_stdout_on_a_full_disk_is_a_one_line_usage_error():
    for args in (("check", "--from", NOT_READY), ("list-checks",), ("check", "--from", NOT_READY, "--format", "json")):
        with open("/dev/full", "w") as full:
            code, _, err = doctor(*args, stdout=full)
        assert code == 2 and one_line_error(err) and "No space left on device" in err, (args, err)


def test_a_directory_or_a_missing_folder_is_a_usage_error(tmp_path):
    for output, message in ((str(tmp_path), "is a directory"), (str(tmp_path / "no" / "r.json"), "does not exist")):
        code, _, err = doctor("check", "--from", NOT_READY, "--output", output)
        assert code == 2 and one_line_error(err) and message in err, err


def test_output_dash_is_stdout(tmp_path):
    code, out, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", "-", cwd=str(tmp_path))
    assert code == 1 and b'"verdict"' in out, err
    assert os.listdir(str(tmp_path)) == []


def test_a_closed_stdout_with_output_to_a_file_works(tmp_path):
    path = tmp_path / "r.json"
    code, _, err = doctor("check", "--from", NOT_READY, "--format", "json", "--output", str(path), stdout=None,
                          preexec_fn=lambda: os.close(1))
    assert code == 1, err
    assert '"verdict"' in path.read_text()


def test_a_closed_stdout_without_output_is_a_usage_error():
    code, _, err = doctor("check", "--from", NOT_READY, stdout=None, preexec_fn=lambda: os.close(1))
    assert code == 2 and one_line_error(err) and "stdout is closed" in err, err


def closed_pipe_run(*args):
    """Run the doctor with stdout a pipe whose reader has already gone (like `| head -1` after its line)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return doctor(*args, stdout=write_end)
    finally:
        os.close(write_end)


def test_a_closed_pipe_is_not_a_failure(ready_report):
    code, _, err = closed_pipe_run("list-checks")
    assert code == 0 and err == "", err
    code, _, err = closed_pipe_run("check", "--from", ready_report)
    assert code == 0 and err == "", err
    code, _, err = closed_pipe_run("check", "--from", NOT_READY)
    assert code == 1 and err == "", err


def on_a_terminal(*args, env):
    """(returncode, everything the doctor wrote to its terminal)."""
    controller, terminal = pty.openpty()
    full = dict(os.environ)
    for name in ("NO_COLOR", "CI", "GITHUB_ACTIONS", "TERM"):
        full.pop(name, None)
    full.update(env)
    process = subprocess.Popen([sys.executable, "-m", "mps_doctor"] + list(args), stdout=terminal,
                               stderr=subprocess.PIPE, env=full)
    os.close(terminal)
    chunks = []
    while True:
        ready, _, _ = select.select([controller], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(controller, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(60)
    os.close(controller)
    return process.returncode, b"".join(chunks)


@pytest.mark.parametrize("env, colour", [
    ({"TERM": "xterm-256color"}, True),
    ({"TERM": "dumb"}, False),
    ({"TERM": "xterm", "NO_COLOR": ""}, True),
    ({"TERM": "xterm", "NO_COLOR": "1"}, False),
])
def test_colour_on_a_terminal_follows_term_and_no_color(env, colour):
    code, written = on_a_terminal("check", "--from", NOT_READY, env=env)
    assert code == 1
    assert (b"\x1b[" in written) == colour, written[:300]


@pytest.mark.parametrize("command", [("check",), ("fix",), ("bench",), ("policy", "init")])
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "-1", "0", "1e999", "ten"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(command, value):
    code, _, err = doctor(*command, "--timeout", value)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "--timeout" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [("check",), ("fix",), ("bench",), ("policy", "init")])
def test_an_empty_python_is_a_usage_error(command):
    code, out, err = doctor(*command, "--python", "")
    assert code == 2 and one_line_error(err) and "--python: empty path" in err, err


def test_a_deleted_working_directory_is_a_usage_error(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    code, _, err = doctor("policy", "show", cwd=str(gone), preexec_fn=lambda: os.rmdir(str(gone)))
    assert code == 2 and one_line_error(err) and "working directory no longer exists" in err, err
