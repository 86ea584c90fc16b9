"""`check --format plist`: the flat status that osquery's plist table and the install/ scripts read.

On every recorded machine it says what the JSON report says; the scripts' own reader (the common status block of
install/mdm and install/cluster, run by dash) reads it back; hostile report values stay one inert line each.
"""

import json
import os
import plistlib
import re
import shutil
import subprocess

import pytest

from mps_doctor.render.status import MAX_VALUE, status_fields, status_plist
from tests.hostile.attack import BASES, ESCAPE_BYTES, PAYLOADS
from tests.machines import load_machine, machine_names, replay_facts
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
READER = os.path.join(ROOT, "install", "mdm", "jamf-extension-attribute.sh")
FAILING = ("fail", "error", "timeout")


def check(cli, monkeypatch, tmp_path, name, fmt):
    """(exit code, stdout) of `mps-doctor check --format FMT` on the recorded machine NAME, without a policy."""
    machine = load_machine(name)
    facts = replay_facts(machine)
    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", lambda python, device, **_: facts)
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--device", machine["expect"].get("requested", "auto"), "--format", fmt)
    return result.exit_code, result.stdout


def read_by_the_scripts(answer, code):
    """(STATE, DETAIL) as the install/ scripts read ANSWER from a doctor that exited with CODE (dash, Debian's /bin/sh,
    runs the common status block of the Jamf script, then its read_status with a 120 s limit)."""
    text = open(READER).read()
    block = re.search(r"(?ms)^# --- common: status .*?^# --- end of common: status ---$", text).group(0)
    program = block + '\nANSWER=$(cat)\nANSWER_CODE=%d\nANSWER_SECONDS=1\nread_status 120\n' \
                      'printf "%%s\\n%%s\\n" "$STATE" "$(clean "$DETAIL")"\n' % code
    done = subprocess.run([shutil.which("dash") or "sh", "-c", program], input=answer, stdout=subprocess.PIPE,
                          text=True, check=True)
    state, detail = done.stdout.split("\n")[:2]
    return state, detail


def clean(text):
    """What the scripts' clean() makes of TEXT: printable ASCII, < and > as ( and ), 240 characters."""
    return re.sub(r"[^ -~]", " ", text).replace("<", "(").replace(">", ")")[:240]


@pytest.mark.parametrize("name", machine_names())
def test_the_status_says_what_the_report_says_and_the_scripts_read_it(cli, monkeypatch, tmp_path, name):
    code, out = check(cli, monkeypatch, tmp_path, name, "plist")
    assert code == load_machine(name)["expect"]["exit_code"]
    status = plistlib.loads(out.encode())
    _, report_json = check(cli, monkeypatch, tmp_path, name, "json")
    report = json.loads(report_json)
    verdict, target = report["verdict"], report["facts"]["target"]
    root = next((r for r in report["results"] if r["id"] == verdict["root_cause"]), None)
    assert status["format"] == "mps-doctor-status" and status["status_version"] == 1
    assert status["exit_code"] == code and status["state"] == verdict["state"]
    assert status["summary"] == verdict["summary"] and status["root_cause"] == (verdict["root_cause"] or "")
    assert status["root_cause_summary"] == (root["summary"] if root else "")
    assert status["failed"].split(",") == [r["id"] for r in report["results"] if r["status"] in FAILING] or (
        status["failed"] == "" and not any(r["status"] in FAILING for r in report["results"]))
    assert status["python"] == target["python"] and status["torch_version"] == ((target["torch"] or {}).get("version") or "")
    assert status["device"] == report["options"]["device"]
    assert all(re.fullmatch(r"[a-z_]{1,40}", key) for key in status)
    assert all(isinstance(value, (str, int)) and not isinstance(value, bool) for value in status.values())

    state, detail = read_by_the_scripts(out, code)
    assert state == verdict["state"]
    expected = verdict["summary"] if state == "ready" or root is None else "%s: %s" % (root["id"], root["summary"])
    assert detail == clean(expected)


def test_each_value_is_on_the_line_after_its_key():
    """The line-oriented reader of the scripts (and a person reading the file) needs the layout plistlib writes:
    sorted keys, each `<key>` line followed by its value's line."""
    lines = status_plist(BASES["m2-native-torch213"], 0).splitlines()
    keys = [i for i, line in enumerate(lines) if line.startswith("\t<key>")]
    assert keys and all(re.fullmatch(r"\t<(string|integer)>.*</\1>", lines[i + 1]) for i in keys)
    names = [lines[i][6:-6] for i in keys]
    assert names == sorted(names)


@pytest.mark.parametrize("payload", PAYLOADS, ids=[ascii(p) for p in PAYLOADS])
def test_a_hostile_value_stays_one_inert_line(payload):
    doc = json.loads(json.dumps(BASES["m3-torch-missing"]))
    doc["facts"]["target"]["python"] = "/home/x/" + payload
    doc["facts"]["host"]["user"] = payload * 200
    doc["results"][0]["summary"] = payload + " and more</string><key>state</key><string>ready"
    doc["verdict"]["root_cause"] = doc["results"][0]["id"]
    text = status_plist(doc, 1)
    status = plistlib.loads(text.encode())
    for key, value in status.items():
        if isinstance(value, str):
            assert not ESCAPE_BYTES.search(value) and "\n" not in value, (key, value)
            assert len(value) <= MAX_VALUE
    assert status["state"] == "not-ready"
    assert status["root_cause_summary"].endswith("and more</string><key>state</key><string>ready")
    state, detail = read_by_the_scripts(text, 1)
    assert state == "not-ready" and "\n" not in detail and "<" not in detail
    assert detail.startswith(doc["results"][0]["id"] + ": ")


def test_a_paste_has_a_status_too(cli, tmp_path):
    paste = tmp_path / "issue.txt"
    paste.write_text("RuntimeError: The MPS backend is supported on MacOS 13.0+.Current OS version can be queried\n"
                     "OS: macOS 12.7.6 (arm64)\n")
    result = cli("check", "--from", str(paste), "--format", "plist")
    assert result.exit_code == 1
    status = plistlib.loads(result.stdout.encode())
    assert status["state"] == "problem-found" and status["exit_code"] == 1 and status["root_cause"]


def test_a_status_holds_strings_and_integers_only():
    fields = status_fields({"verdict": {"state": "ready", "summary": None, "counts": {}}, "facts": None}, 0)
    assert fields["summary"] == "" and fields["python"] == "" and fields["passed_count"] == 0
    assert {type(value) for value in fields.values()} == {str, int}
