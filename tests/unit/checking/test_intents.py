"""checking/intents.py: the catalogue's actions as the checks' actions, with the rules of the machine they are for."""

import pytest

from mps_doctor.checking.intents import actions_of
from mps_doctor.checking.model import CheckAgain, InstallPackages, InstallTorch, NewEnvironment, export, note, run, unset
from mps_doctor.known_errors import intents
from mps_doctor.versions import load_releases

SMI = {"run": ["nvidia-smi", "-L"]}
SW_VERS = {"run": ["sw_vers", "-productVersion"]}
CUDA_BUILD = {"install_torch": {"cuda": "12.8"}}
CUDA_SETTING = {"export": ["CUDA_VISIBLE_DEVICES", "0"]}
NCCL_REMOVAL = {"unset": "NCCL_DEBUG"}


@pytest.mark.parametrize(("system", "kept"), [
    (None, [SMI, SW_VERS, CUDA_BUILD, CUDA_SETTING, NCCL_REMOVAL]),
    ("Darwin", [SW_VERS]),
    ("Linux", [SMI, CUDA_BUILD, CUDA_SETTING, NCCL_REMOVAL]),
    ("Windows", [SMI, CUDA_BUILD, CUDA_SETTING, NCCL_REMOVAL]),
])
def test_what_does_not_apply_to_the_system_is_left_out(system, kept):
    everything = intents(SMI, SW_VERS, CUDA_BUILD, CUDA_SETTING, NCCL_REMOVAL)
    assert actions_of(everything, system, "python3") == actions_of(intents(*kept), None, "python3")


def test_each_action_maps_to_the_checks_vocabulary_and_python_is_the_users():
    found = actions_of(intents(
        {"note": "on the Mac"}, {"run": ["python", "-m", "venv", ".venv"]}, {"run": ["arch", "-arm64", "python3"]},
        {"export": ["PYTORCH_ENABLE_MPS_FALLBACK", "1"]}, {"unset": "PYTORCH_MPS_HIGH_WATERMARK_RATIO"},
        {"install_torch": {"force": True, "audio": True}}, {"install_packages": ["numpy<2"]},
        {"install_packages": ["accelerate"], "upgrade": True}, {"check_again": {"device": "mps"}}, {"check_again": {}},
        {"note": "on the Mac"}), "Darwin", "py.exe")
    assert found == (note("on the Mac"), run("py.exe", "-m", "venv", ".venv"), run("arch", "-arm64", "python3"),
                     export("PYTORCH_ENABLE_MPS_FALLBACK", "1"), unset("PYTORCH_MPS_HIGH_WATERMARK_RATIO"),
                     InstallTorch(force=True, audio=True), InstallPackages(("numpy<2",)),
                     InstallPackages(("accelerate",), upgrade=True), CheckAgain(device="mps"), CheckAgain())


def test_a_new_environment_with_the_python_the_machine_runs_is_no_fix():
    table = load_releases().python_for(None)
    wanted = intents({"new_environment": {"python": "3.11"}}, {"new_environment": {}})
    assert actions_of(wanted, "Linux", "python3", (3, 11, 4)) == (NewEnvironment("py" + table.replace(".", ""), table),)
    assert actions_of(wanted, "Linux", "python3", ()) == (NewEnvironment("py311", "3.11"),
                                                           NewEnvironment("py" + table.replace(".", ""), table))
    assert actions_of(intents({"new_environment": {}}), "Linux", "python3", tuple(map(int, table.split(".")))) == ()
