"""issue 20, round 2: kinds of reasoning the dev misses lacked, each from a real dev paste of tests/pasted/ (named)
and a small synthetic variant."""

import json
import os

from mps_doctor.checking.model import Status
from mps_doctor.triage.engine import NOT_IN_PASTE, triage

PASTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pasted")


def dev_paste(name):
    """The text of a dev case (held-out cases are never read here)."""
    with open(os.path.join(PASTED, name + ".json"), encoding="utf-8") as handle:
        assert json.load(handle)["split"] == "dev"
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def layer(report, check_id):
    return next(r for r in report.results if r.id == check_id)


# --- a paste that shows no torch has not said that none is installed ------------------------------------------------

def test_a_message_from_a_program_that_ran_is_not_judged_against_the_newest_torch():
    # sd-webui-docker-35: macOS 12.5 and Docker's NVIDIA error; the torch runs in the container, its version unshown.
    report = triage(dev_paste("sd-webui-docker-35-compose-nvidia-on-m1-pro"))
    assert report.verdict.root_cause == "docker.nvidia-gpu-unavailable"
    assert layer(report, "macos.version").summary.startswith(NOT_IN_PASTE)


def test_the_machine_alone_is_still_judged_against_the_release_it_would_install():
    machine = "ProductName:\t\tmacOS\nProductVersion:\t\t12.5\nBuildVersion:\t\t21G72\n"
    report = triage(machine)
    assert layer(report, "macos.version").status == Status.FAIL and "not installed yet" in layer(report, "macos.version").summary
    # The same macOS with a pasted message and no torch version: the version decides, so it is asked for.
    report = triage(machine + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert layer(report, "macos.version").summary.startswith(NOT_IN_PASTE)
    # And a torch version decides as before.
    report = triage(machine + "PyTorch version: 2.5.1\n")
    assert layer(report, "macos.version").status == Status.FAIL and "torch 2.5.1" in layer(report, "macos.version").summary
