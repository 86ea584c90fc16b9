"""Issue 19's findings through the real CLI: bounded input, reports on stdin, redaction of pasted home folders."""

import json
import os
import resource
import subprocess
import sys

import pytest

from mps_doctor.render.redact import redact_names
from mps_doctor.render.triage import render_triage
from mps_doctor.secrets import home_user_names
from mps_doctor.triage.engine import triage
from tests.hostile.attack import BASES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEMORY_LIMIT = int(1.5 * 2 ** 30)


def limited_memory():
    """Run the child under a 1.5 GB address-space limit (the issue's condition for /dev/zero)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(args, stdin=None, memory_limit=False):
    """(exit code, stdout, stderr) of `python -m mps_doctor ARGS` fed STDIN (bytes)."""
    done = subprocess.run([sys.executable, "-m", "mps_doctor"] + list(args), input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, env=dict(os.environ, NO_COLOR="1"), cwd=ROOT,
                          preexec_fn=limited_memory if memory_limit else None)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("args", [("triage", "/dev/zero"), ("fix", "--from", "/dev/zero"),
                                  ("check", "--from", "/dev/zero"), ("triage", "-"), ("check", "--from", "-")])
def test_endless_input_is_exit_2_under_a_memory_limit(args):
    stdin = b"\0" * (6 * 2 ** 20) if args[-1] == "-" else None
    code, out, err = run(args, stdin=stdin, memory_limit=True)
    assert code == 2, (code, err[-500:])
    assert "larger than 5 MiB" in err and "Traceback" not in err and out == ""


def test_a_json_report_on_stdin_is_a_report_for_fix_and_check():
    """Finding 8: `check --format json | fix --from -` read the report as pasted text ("Nothing to fix")."""
    report = json.dumps(BASES["m1-rosetta-x86-python"]).encode()
    code, out, err = run(("fix", "--from", "-", "--print-commands", "--shell", "bash"), stdin=report)
    assert code == 0, err
    assert "arch -arm64" in out and "Nothing to fix" not in out
    code, out, err = run(("check", "--from", "-", "--format", "json"), stdin=report)
    assert code == 1, err
    assert json.loads(out)["verdict"]["root_cause"] == "python.rosetta"


def test_pasted_text_on_stdin_is_triaged_by_check_and_fix():
    paste = b"ERROR: Could not find a version that satisfies the requirement torch==2.9.0 (from versions: 2.0.1, 2.1.0)\n"
    code, out, err = run(("check", "--from", "-", "--format", "json"), stdin=paste)
    assert code == 1, err
    assert json.loads(out)["source"]["kind"] == "pasted"
    code, out, err = run(("fix", "--from", "-"), stdin=paste)
    assert code == 0 and "Nothing to fix" not in out, (out, err)


def test_a_damaged_report_on_stdin_is_named_as_such():
    code, _, err = run(("check", "--from", "-"), stdin=b'{"format": "mps-doctor-report", ')
    assert code == 2 and "--from -: not JSON" in err and "Traceback" not in err


@pytest.mark.parametrize("text,name", [
    ("/Users/John Smith/proj/.venv/bin/python", "John Smith"),
    ("C:\\Users\\Jane Doe\\miniconda3\\python.exe", "Jane Doe"),
    ("C:\\\\Users\\\\Jane Doe\\\\x", "Jane Doe"),
    ("ls ~alice/proj", "alice"),
    ("file:///%2FUsers%2Fdave%2Fx", "dave"),
    ("/home/bob/.cache/pip", "bob"),
])
def test_redaction_takes_the_user_from_the_first_home_path_and_removes_it_everywhere(text, name):
    """Finding 9: `/Users/John Smith/` became `<user> Smith/`; Windows names with spaces, `~alice`,
    `/private/var/folders/.../alice` and `%2FUsers%2Fdave` kept the name."""
    full = text + "\nTMPDIR=/private/var/folders/xy/T/%s-cache and %s again" % (name, name)
    names = home_user_names(full)
    assert names[0] == name
    redacted = redact_names(full, names)
    assert name not in redacted and name.split()[0] not in redacted.replace("<user>", "")


def test_a_triage_reply_holds_no_pasted_user_name():
    paste = ("Traceback (most recent call last):\n  File \"/Users/John Smith/proj/train.py\", line 3, in <module>\n"
             "NotImplementedError: The operator 'aten::_fft_r2c' is not currently implemented for the MPS device. "
             "John Smith's job\n")
    reply = render_triage(triage(paste), "markdown")
    assert "John" not in reply and "Smith" not in reply


def test_a_secret_in_a_saved_report_is_never_printed(tmp_path):
    """A teammate's report (fix --from, check --from) passes the same secret filter as a paste."""
    token = "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567"
    doc = json.loads(json.dumps(BASES["m2-torch-import-error"]))
    torch = doc["facts"]["target"]["torch"]
    torch["import_error"]["message"] = "HF_TOKEN=%s could not load %s" % (token, token)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc))
    for args in (("check", "--from", str(path), "-v"), ("check", "--from", str(path), "--format", "json"),
                 ("check", "--from", str(path), "--format", "markdown"), ("fix", "--from", str(path)),
                 ("fix", "--from", str(path), "--print-commands")):
        code, out, err = run(args)
        assert code in (0, 1) and token not in out + err, (args, err)


def test_scrubbing_twice_changes_nothing():
    """Triage scrubs the paste and its cleaned lines again; a private key block already replaced stays one line, and
    the lines after it stay."""
    from mps_doctor.secrets import scrub

    text = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\nPyTorch version: 2.5.1\n"
            "export HF_TOKEN=hf_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567\n")
    once = scrub(text)
    assert scrub(once) == once and once.count("\n") == text.count("\n") and "PyTorch version: 2.5.1" in once
