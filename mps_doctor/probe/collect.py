"""Collect all facts: start the target probe, probe the host while it runs, then gather the child's answer."""

from mps_doctor.facts import Facts
from mps_doctor.probe.host import collect_host
from mps_doctor.probe.target import finish_target, start_target, validate_python


def collect_facts(python: str, device: str, smoke: bool, timeout: float) -> Facts:
    """Probe this machine and the interpreter PYTHON for a run on DEVICE (mps, cpu, cuda or auto)."""
    python = validate_python(python)
    child = start_target(python, device, smoke, timeout)
    host = collect_host()
    target = finish_target(child, python, device, smoke)
    return Facts(host=host, target=target)
