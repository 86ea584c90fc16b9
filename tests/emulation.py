"""Run the doctor against an emulated Mac: the host replayed from a recorded machine, the child for real under
the emulated MPS torch of tests/emulated_mps (see emulated_mps.py for what it emulates)."""

import json
import os
import subprocess
import sys

import mps_doctor.probe.collect
from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.environment import relevant_env
from mps_doctor.probe.target import CHILD_DIR, DATA_DIR
from tests.machines import load_machine, replay_facts

SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "emulated_mps")
# Releases of each API generation (emulated_mps.API_SINCE): 1.12-1.13 (no torch.mps), 2.0-2.2, 2.3-2.5
# (device_count from 2.4, recommended_max_memory from 2.5), 2.9+ (get_name, get_core_count) and the newest.
# Each generation gets a full check and a bench; the recorded-frame test adds 2.4.1 and 2.13.0.
CHECK_RELEASES = ("1.12.1", "2.0.1", "2.3.1", "2.9.1", "2.15.0")
BENCH_RELEASES = ("1.13.1", "2.2.2", "2.5.1", "2.9.1", "2.15.0")


def frame_data(machine, stage):
    """The data of the recorded result frame of STAGE."""
    return next(f["data"] for f in machine["target"]["frames"] if f["event"] == "result" and f["stage"] == stage)


def emulation_env(release, machine_name="m2-native-torch213", log_path=None, **settings):
    """The environment for a child that presents the recorded Mac MACHINE_NAME with torch RELEASE's MPS API."""
    machine = load_machine(machine_name)
    interpreter, mps = frame_data(machine, "interpreter"), frame_data(machine, "torch")["mps"]
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (SHIM_DIR, os.environ.get("PYTHONPATH")) if p),
        "EMULATED_MPS": release, "EMULATED_MPS_MACOS": interpreter["mac_ver"], "EMULATED_MPS_KERNEL": machine["host"]["uname"][0],
        "EMULATED_MPS_CHIP": mps.get("name") or "Apple M1", "EMULATED_MPS_CORES": str(mps.get("core_count") or 8),
        "EMULATED_MPS_MAX_MEMORY": str(mps.get("recommended_max_memory") or 22906503168),
    }
    if log_path is not None:
        env["EMULATED_MPS_LOG"] = str(log_path)
    env.update({"EMULATED_MPS_" + k.upper(): str(v) for k, v in settings.items()})
    return env


def emulate(monkeypatch, tmp_path, release, machine_name="m2-native-torch213", **settings):
    """Make the next in-process doctor run see MACHINE_NAME's host and start its child under the emulation.

    Returns a function that reads the emulated GPU's counters once the child has exited."""
    log_path = tmp_path / "emulated-mps.json"
    for key in [k for k in os.environ if k.startswith("EMULATED_MPS")]:
        monkeypatch.delenv(key)
    for key, value in emulation_env(release, machine_name, log_path, **settings).items():
        monkeypatch.setenv(key, value)
    machine = load_machine(machine_name)
    machine["host"]["env"].update({k: v for k, v in relevant_env(os.environ).items() if k.startswith("PYTORCH_")})
    monkeypatch.setattr(mps_doctor.probe.collect, "collect_host", lambda: replay_facts(machine).host)
    return lambda: json.loads(log_path.read_text())


def child_frames(env, device="mps", smoke=True, timeout=120):
    """Run the real child in `check` mode under ENV: (frames in order, counters-free stderr)."""
    options = {"device": device, "smoke": smoke, "data_dir": str(DATA_DIR)}
    done = subprocess.run([sys.executable, str(CHILD_DIR), "check", json.dumps(options)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout, env=dict(os.environ, **env))
    frames = [json.loads(line[len(FRAME_MARK):]) for line in done.stdout.splitlines() if line.startswith(FRAME_MARK)]
    return frames, done.stderr
