"""Collect all facts: start the target probe, probe the host while it runs, then gather the child's answer."""

import os
import platform
from typing import Callable, Optional, Sequence

from mps_doctor.ci import ci_name
from mps_doctor.devices import child_device
from mps_doctor.facts import Facts
from mps_doctor.probe.default_target import default_python
from mps_doctor.probe.host import collect_host, parse_sysctl, sysctl_flag
from mps_doctor.probe.runner import run_command
from mps_doctor.probe.target import finish_target, start_target, validate_python


def collect_facts(python: Optional[str], requested: str, smoke: bool, timeout: float,
                  policy_devices: Sequence[str] = (), on_frame: Optional[Callable[[dict], None]] = None) -> Facts:
    """Probe this machine and the interpreter PYTHON (None: the default target, see default_python) for a run on
    REQUESTED (mps, cpu, cuda or auto); ON_FRAME hears each frame of the child as it comes (progress)."""
    python, why = (python, "--python") if python is not None else default_python()
    python = validate_python(python)
    system = platform.system()
    # Only a CI job on a Mac needs the VM flag before the child starts (a hosted runner checks the CPU).
    vmm = None
    if system == "Darwin" and ci_name(os.environ):
        vmm = sysctl_flag(parse_sysctl(run_command(["sysctl", "-n", "kern.hv_vmm_present"])))
    child = start_target(python, child_device(requested, policy_devices, os.environ, system, vmm), smoke, timeout)
    host = collect_host()
    target = finish_target(child, python, requested, smoke, why, on_frame)
    return Facts(host=host, target=target)
