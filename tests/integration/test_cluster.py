"""install/cluster: the health check behind the Slurm prolog/epilog, LBNL NHC and Node Problem Detector, held to
each system's exit-status and output contract.

mps-doctor-health.sh judges recorded machines' reports (`check --from REPORT`, exit 0 or 1, as a periodic job would
have written them) with this checkout's doctor; its exit status and line are then read the way each system reads
them: Node Problem Detector's plugin runner (0 OK, 1 NonOK, else Unknown; the output trimmed and cut at
max_output_length), slurmd (nonzero drains), and NHC's driver (die 1 offlines the node) with NHC's die() and log()
standing in, since NHC is not packaged here.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from tests.helpers import ROOT, TARGET_PYTHON
from tests.machines import load_machine, machine_names, replay_facts

CLUSTER = os.path.join(ROOT, "install", "cluster")
HEALTH = os.path.join(CLUSTER, "mps-doctor-health.sh")
SLURM = os.path.join(CLUSTER, "slurm-prolog-epilog.sh")
NHC = os.path.join(CLUSTER, "nhc", "mps_doctor.nhc")
NPD_CONFIG = os.path.join(CLUSTER, "npd", "mps-doctor-plugin-monitor.json")
TIME_LIMIT = int(re.search(r"^TIME_LIMIT=(\d+)$", open(HEALTH).read(), re.M).group(1))
# One of each verdict in the fast pass; every recorded machine in the slow one.
FAST = ("linux-h200-cuda", "linux-cu130-on-driver-128")
MACHINES = [name if name in FAST else pytest.param(name, marks=pytest.mark.slow) for name in machine_names()]


def shortened(line, limit=80):
    """LINE as the health check prints it: whole up to LIMIT characters, else cut before the word that does not
    fit (inside a first word longer than that), and "..." added."""
    if len(line) <= limit:
        return line
    head = line[:limit - 3]
    if line[limit - 3] != " " and " " in head:
        head = head[:head.rindex(" ")]
    return head.rstrip(" ") + "..."


def npd_reads(code, stdout, max_output_length=80):
    """(status, message) as Node Problem Detector's custom plugin runner reads a plugin's exit CODE and STDOUT
    (pkg/custompluginmonitor/plugin/plugin.go: TrimSpace, then cut at max_output_length bytes; 0 OK, 1 NonOK, any
    other status Unknown)."""
    message = stdout.strip()[:max_output_length]
    return {0: "OK", 1: "NonOK"}.get(code, "Unknown"), message


@pytest.fixture
def doctor(tmp_path):
    """A root-owned `mps-doctor` that runs this checkout's doctor (the health check empties the environment, so the
    checkout's path is written into it)."""
    path = tmp_path / "bin" / "mps-doctor"
    path.parent.mkdir()
    path.write_text("#!/bin/sh\nPYTHONPATH=%s exec %s -m mps_doctor \"$@\"\n" % (ROOT, sys.executable))
    path.chmod(0o755)
    return str(path)


def saved_report(cli, monkeypatch, tmp_path, name):
    """The JSON report of the recorded machine NAME, written where a periodic job would keep it: its path."""
    machine = load_machine(name)
    facts = replay_facts(machine)
    monkeypatch.setattr("mps_doctor.diagnosis.collect_facts", lambda python, device, **_: facts)
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    result = cli("check", "--device", machine["expect"].get("requested", "auto"), "--format", "json")
    path = tmp_path / (name + ".json")
    path.write_text(result.stdout)
    return str(path)


def configure(tmp_path, text):
    """health.conf holding TEXT: its path."""
    path = tmp_path / "health.conf"
    path.write_text(textwrap.dedent(text))
    path.chmod(0o644)
    return str(path)


def run(argv, env=None, timeout=200):
    """(exit status, stdout, stderr, seconds) of ARGV with a plain environment plus ENV."""
    full = {"PATH": "/usr/bin:/bin"}
    full.update(env or {})
    started = time.monotonic()
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full, timeout=timeout,
                          cwd="/")
    return done.returncode, done.stdout, done.stderr, time.monotonic() - started


def nhc_check(config, *options):
    """(exit status, output) of NHC running `check_mps_doctor OPTIONS` (-c CONFIG) with its die() and log(): die ends
    the run with its code, as NHC does outside check-all mode."""
    script = textwrap.dedent("""
        die() { printf 'die %s\\n' "$*"; exit "$1"; }
        log() { printf 'log %s\\n' "$*"; }
        PATH=/sbin:/usr/sbin:/bin:/usr/bin
        . "$1"
        shift
        check_mps_doctor "$@"
        printf 'returned %s\\n' "$?"
        """)
    done = subprocess.run(["bash", "-c", script, "nhc", NHC, "-c", config] + list(options), stdout=subprocess.PIPE,
                          text=True, env={"MPS_DOCTOR_HEALTH": HEALTH, "PATH": "/usr/bin:/bin"}, timeout=200)
    return done.returncode, done.stdout


@pytest.mark.per_case
@pytest.mark.parametrize("name", MACHINES)
def test_a_recorded_machines_report_meets_each_systems_contract(cli, monkeypatch, tmp_path, doctor, name):
    expect = load_machine(name)["expect"]
    report = saved_report(cli, monkeypatch, tmp_path, name)
    verdict = json.loads(open(report).read())["verdict"]
    root = next((r for r in json.loads(open(report).read())["results"] if r["id"] == verdict["root_cause"]), None)
    config = configure(tmp_path, "doctor=%s\nreport=%s\n" % (doctor, report))

    code, out, err, _ = run([HEALTH, config])
    assert code == expect["exit_code"] and err == ""
    line = out[:-1]
    assert out.endswith("\n") and "\n" not in line and re.fullmatch(r"[ -~]{1,80}", line), out
    if code == 0:
        assert line == shortened("ready: " + verdict["summary"])
    else:
        assert line == shortened("%s: %s: %s" % (verdict["state"], root["id"], root["summary"]))
    assert npd_reads(code, out) == ({0: "OK", 1: "NonOK"}[code], line)

    slurm_code, slurm_out, slurm_err, _ = run([SLURM], {"MPS_DOCTOR_HEALTH_CONFIG": config, "SLURM_JOB_ID": "42"})
    assert slurm_code == code and slurm_out == ""
    assert slurm_err == ("" if code == 0 else "mps-doctor: %s (the node is drained)\n" % line)

    nhc_code, nhc_out = nhc_check(config)
    if code == 0:
        assert (nhc_code, nhc_out) == (0, "returned 0\n")
    else:
        assert (nhc_code, nhc_out) == (1, "die 1 check_mps_doctor:  %s\n" % line)


UNKNOWN = {
    "no configuration": (None, "not-checked: no {config}"),
    "configuration others can write": ("doctor={doctor}\nreport={report}\n", "not-checked: {config} is ignored: it "
                                                                           "must belong to root and be writable by no one else"),
    "no mps-doctor": ("doctor={tmp}/missing\nreport={report}\n", "not-checked: no mps-doctor at {tmp}/missing"),
    "neither python nor report": ("doctor={doctor}\n", "not-checked: neither python= nor report= is set"),
    "no python": ("doctor={doctor}\npython={tmp}/nopython\n", "not-checked: no Python at {tmp}/nopython"),
    "a report too old": ("doctor={doctor}\nreport={report}\nmax_age_minutes=30\n",
                         "not-checked: {report} is older than 30 minutes: is the job that writes it running?"),
    "not a report": ("doctor={doctor}\nreport={tmp}/config-copy\n", "not-checked: mps-doctor gave no status (exit "
                                                                   "status 2)"),
    "a doctor others can change": ("doctor={tmp}/open/mps-doctor\nreport={report}\n",
                                   "not-checked: {tmp}/open/mps-doctor is not safe to run: {tmp}/open can be changed by"
                                   " another user"),
    "a bad device": ("doctor={doctor}\npython=/usr/bin/python3\ndevice=gpu\n",
                     "not-checked: device=gpu is not cuda, cpu, mps or auto"),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN))
def test_a_check_that_cannot_run_is_unknown_and_drains_nothing(cli, monkeypatch, tmp_path, doctor, case):
    """NPD: Unknown; Slurm: exit 0 (never drain a node for the checker's own trouble), logged on stderr; NHC: logged
    and passing, or failing with -u fail. Always one line."""
    text, expected = UNKNOWN[case]
    report = saved_report(cli, monkeypatch, tmp_path, "linux-h200-cuda")
    values = dict(doctor=doctor, report=report, tmp=tmp_path, config=tmp_path / "health.conf")
    if text is not None:
        configure(tmp_path, text.format(**values))
    if case == "configuration others can write":
        (tmp_path / "health.conf").chmod(0o666)
    elif case == "a report too old":
        os.utime(report, (time.time() - 3600, time.time() - 3600))
    elif case == "not a report":
        (tmp_path / "config-copy").write_text("doctor=%s\n" % doctor)
    elif case == "a doctor others can change":
        (tmp_path / "open").mkdir(mode=0o777)
        os.chmod(str(tmp_path / "open"), 0o777)
        os.link(doctor, str(tmp_path / "open" / "mps-doctor"))
    config = str(tmp_path / "health.conf")
    line = shortened(expected.format(**values))

    code, out, err, _ = run([HEALTH, config])
    assert (code, out, err) == (2, line + "\n", "")
    assert npd_reads(code, out)[0] == "Unknown"
    slurm = run([SLURM], {"MPS_DOCTOR_HEALTH_CONFIG": config})
    assert slurm[:3] == (0, "", "mps-doctor: %s (not checked, the node stays up)\n" % line)
    assert nhc_check(config) == (0, "log check_mps_doctor:  not checked (2):  %s\nreturned 0\n" % line)
    assert nhc_check(config, "-u", "fail") == (1, "die 1 check_mps_doctor:  %s\n" % line)


@pytest.mark.slow
def test_a_live_probe_of_this_machines_cpu_is_ready(tmp_path, doctor):
    config = configure(tmp_path, "doctor=%s\npython=%s\ndevice=cpu\n" % (doctor, TARGET_PYTHON))
    code, out, err, _ = run([HEALTH, config])
    assert (code, err) == (0, "") and re.fullmatch(r"ready: ready to train on cpu; 0 failures, .*\n", out), out


@pytest.mark.slow
def test_a_doctor_that_hangs_is_a_problem_stopped_at_the_time_limit(tmp_path):
    hang = tmp_path / "mps-doctor"
    hang.write_text("#!/bin/sh\nexec sleep 1000\n")
    hang.chmod(0o755)
    config = configure(tmp_path, "doctor=%s\npython=%s\ntime_limit=30\n" % (hang, TARGET_PYTHON))
    code, out, _, seconds = run([HEALTH, config])
    assert (code, out) == (1, "timed-out: mps-doctor did not finish within the time limit of 30 s\n")
    assert 30 <= seconds < 45


def test_the_node_problem_detector_config_is_valid_and_leaves_room_for_the_time_limit():
    """What NPD's config validation demands (pkg/custompluginmonitor/types/config.go: the plugin is "custom", a rule's
    timeout is at most the global one, a permanent rule's condition has a default), and the times in order: the
    health check's limit, plus its 10 s of SIGKILL grace, before NPD's rule timeout."""
    config = json.load(open(NPD_CONFIG))
    assert config["plugin"] == "custom"
    seconds = {key: int(value[:-1]) for key, value in (("global", config["pluginConfig"]["timeout"]),
                                                        ("rule", config["rules"][0]["timeout"]))}
    assert TIME_LIMIT + 10 < seconds["rule"] <= seconds["global"]
    assert config["pluginConfig"]["max_output_length"] >= 80
    rule = config["rules"][0]
    assert rule["type"] == "permanent" and rule["condition"] in {c["type"] for c in config["conditions"]}
    assert rule["path"].endswith("/mps-doctor-health.sh") and rule["args"] == ["/etc/mps-doctor/health.conf"]


def test_the_slurm_and_nhc_examples_name_the_shipped_scripts_and_leave_room_for_the_time_limit():
    slurm = dict(line.split("=", 1) for line in open(os.path.join(CLUSTER, "slurm.conf.example")).read().splitlines()
                 if line and not line.startswith("#"))
    folder = os.path.dirname(json.load(open(NPD_CONFIG))["rules"][0]["path"])
    assert slurm["Prolog"] == slurm["Epilog"] == folder + "/slurm-prolog-epilog.sh"
    assert int(slurm["PrologEpilogTimeout"]) > TIME_LIMIT + 10
    assert "/usr/local/libexec/mps-doctor/mps-doctor-health.sh" in open(NHC).read()
    lines = [line for line in open(os.path.join(CLUSTER, "nhc", "nhc.conf.example")).read().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines and all(re.fullmatch(r"\S+ \|\| check_mps_doctor( -[cu] \S+)*", line) for line in lines)
    example = dict(line.split("=", 1) for line in open(os.path.join(CLUSTER, "health.conf.example")).read().splitlines()
                   if line and not line.startswith("#"))
    assert set(example) == {"doctor", "python", "device", "quick", "time_limit", "max_length"}
    assert int(example["time_limit"]) == TIME_LIMIT
    documented = set(re.findall(r"^(?:# )?([a-z_]+)=", open(os.path.join(CLUSTER, "health.conf.example")).read(), re.M))
    assert documented == set(re.findall(r'config_value ([a-z_]+) "', open(HEALTH).read()))


def test_hardware_diagnostics_are_left_to_dcgm_and_the_gpu_operator():
    for path in (HEALTH, os.path.join(CLUSTER, "README.md")):
        text = open(path).read()
        assert "DCGM" in text and "GPU Operator" in text, path
