"""Replay a recorded machine (tests/machines/<name>/machine.json) through the real parsers into Facts."""

import dataclasses
import json
import os

from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.facts import Facts
from mps_doctor.probe.host import collect_host
from mps_doctor.probe.runner import replay_runner
from mps_doctor.probe.target import parse_frames, target_from_frames

MACHINES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "machines")


def machine_names():
    """Every recorded machine, by folder name."""
    return sorted(n for n in os.listdir(MACHINES_DIR) if os.path.isfile(os.path.join(MACHINES_DIR, n, "machine.json")))


def load_machine(name):
    """The machine.json of NAME as a dict."""
    with open(os.path.join(MACHINES_DIR, name, "machine.json"), encoding="utf-8") as handle:
        return json.load(handle)


def child_stdout(frames):
    """The child's stdout as it printed it: framed lines, plus a stray line torch might print."""
    lines = ["some stray output from a sitecustomize"]
    lines += [FRAME_MARK + json.dumps(frame) for frame in frames]
    return "\n".join(lines) + "\n"


def replay_facts(machine) -> Facts:
    """Facts of a recorded machine, produced by the same parsers the live probes use."""
    host = machine["host"]
    brew = set(prefix + "/bin/brew" for prefix in host["brew"])
    # What the machine's files showed, where it was recorded: a folder's names (a list) or a file's text.
    files = host.get("files", {})
    host_facts = collect_host(
        run=replay_runner(host["commands"]), environ=host["env"], system=host["system"],
        which=lambda name: host["which"].get(name), path_exists=lambda path: path in brew,
        uname=tuple(host["uname"]), memory=lambda: host["memory_bytes"], distro_reader=lambda: host["distro"],
        listdir=lambda path: files.get(path) if isinstance(files.get(path), list) else None,
        read_text=lambda path: files.get(path) if isinstance(files.get(path), str) else None,
    )
    target = machine["target"]
    results, begun = parse_frames(child_stdout(target["frames"]))
    target_facts = target_from_frames(results, begun, target["returncode"], target["stderr"], target["timed_out"],
                                      180.0, target["python"], target["device"], target["smoke"])
    target_facts = dataclasses.replace(target_facts, chosen_because=target.get("chosen_because"))
    return Facts(host=host_facts, target=target_facts)
