"""Triage's CUDA reasoning (issue 20): decisive facts derived from NVIDIA's tables and the release table (item 6),
suspected causes (item 7), stale messages reconciled with the paste's versions (item 3)."""

import json
import os

import pytest

from mps_doctor import nvidia
from mps_doctor.checking.model import Status, run
from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import triage
from mps_doctor.triage.parsers.cuda import gpu_name
from mps_doctor.triage.paste import read_paste
from tests.paths import TESTS_DIR

HERE = TESTS_DIR
PASTED = os.path.join(HERE, "pasted")
H200 = os.path.join(HERE, "triage", "real", "collect_env-2.11-cu130-h200.txt")


def pasted(name):
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def known(paste, path):
    return paste.known[path].value if path in paste.known else None


def collect_env(torch="2.3.1+cu121", cuda="12.1", available="False", driver="535.104.05", gpu="NVIDIA A100-SXM4-80GB",
                system="Ubuntu 22.04.4 LTS (x86_64)"):
    return ("PyTorch version: %s\nCUDA used to build PyTorch: %s\nOS: %s\nIs CUDA available: %s\n"
            "GPU models and configuration: GPU 0: %s\nNvidia driver version: %s\n" % (torch, cuda, system, available, gpu,
                                                                                     driver))


# --- item 6: the driver decides the highest CUDA --------------------------------------------------------------------

@pytest.mark.parametrize(("driver", "system", "cuda"), [
    ("410.48", "Linux", "10.0"),        # CUDA 10.1 needs 418.39: pytorch/pytorch#31243's driver
    ("418.39", "Linux", "10.1"),
    ("535.104.05", "Linux", "12.2"),
    ("580.159.04", "Linux", "13.0"),    # an H200's, whose nvidia-smi says CUDA 13.0 (docs/measurements.md)
    ("566.36", "Windows", "12.6"),      # Windows numbering: 12.8 needs 570.65 there
    ("570.65", "Windows", "12.8"),
    ("565.57.01", "Linux", "12.6"),
    ("470.82.01", None, "11.4"),        # three parts: Linux numbering
    ("610.43.02", "Linux", None),       # past the table's newest branch: at least 13.2, the table cannot say more
    ("not a driver", "Linux", None),
])
def test_the_driver_decides_the_highest_cuda_by_nvidias_table(driver, system, cuda):
    assert nvidia.driver_cuda(driver, system) == cuda


def test_a_real_collect_env_gets_the_drivers_cuda_the_gpus_capability_and_the_wheels_arch_list():
    """This project's H200 (driver 580.159.04: nvidia-smi says CUDA 13.0 and compute_cap 9.0)."""
    with open(H200, encoding="utf-8") as handle:
        text = handle.read()
    paste = read_paste(text)
    assert known(paste, "nvidia_smi.cuda_version") == "13.0" and paste.known["nvidia_smi.cuda_version"].parser == "derived"
    assert paste.known["nvidia_smi.cuda_version"].lines == paste.known["nvidia_smi.driver_version"].lines
    assert known(paste, "nvidia_smi.capability") == ("9.0",)
    assert "sm_90" in known(paste, "torch.cuda_arch_list")
    report = triage(text)
    assert report.result("cuda.driver-version").status == Status.PASS
    assert report.result("cuda.capability").status == Status.PASS
    assert "NVIDIA's table" in report.result("cuda.driver").summary


def test_a_driver_too_old_for_the_wheel_fails_from_the_driver_version_alone():
    report = triage(collect_env(torch="1.3.0", cuda="10.1", driver="410.48", gpu="Tesla V100-SXM2-16GB"))
    assert report.verdict.root_cause == "cuda.driver-version" and not report.verdict.suspected
    assert "supports CUDA 10.0" in report.result("cuda.driver-version").summary


@pytest.mark.parametrize(("name", "capability"), [
    ("NVIDIA GeForce RTX 5090", "12.0"), ("NVIDIA GeForce 210", "1.2"), ("NVIDIA A100-SXM4-80GB", "8.0"),
    ("Tesla V100-SXM2-16GB", "7.0"), ("NVIDIA GeForce RTX 3060 Laptop GPU", "8.6"), ("NVIDIA A10", "8.6"),
    ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce GTX 1060 6GB", "6.1"), ("Quadro RTX 6000", "7.5"),
    ("NVIDIA RTX 6000 Ada Generation", "8.9"), ("Tesla T4", "7.5"), ("NVIDIA GeForce RTX 4060 Ti", "8.9"),
    ("Some Other GPU", None),
])
def test_a_gpu_name_decides_its_capability_by_nvidias_table(name, capability):
    assert nvidia.capability_of(name) == capability


@pytest.mark.parametrize(("told", "name"), [
    # pytorch-153944: the sentence retells torch's warning, and the name group runs back into it.
    ("ce on rtx 5080 with torch using yolov8 facing issue like NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5080"),
    ("NVIDIA GeForce RTX 5080", "NVIDIA GeForce RTX 5080"), ("Tesla K80", "Tesla K80"), ("A100-SXM4-40GB", "A100-SXM4-40GB"),
    ("UserWarning: NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"), ("Quadro RTX 8000", "Quadro RTX 8000"),
    ("my card is an RTX 3090 and the NVIDIA TITAN RTX", "NVIDIA TITAN RTX"),
])
def test_the_gpu_name_a_warning_states_starts_at_its_brand(told, name):
    assert gpu_name(told) == name


def test_a_retold_capability_warning_names_the_gpu_not_the_sentence():
    paste = read_paste("we run on rtx 5080 and face an issue like NVIDIA GeForce RTX 5080 with CUDA capability sm_120 is "
                       "not compatible with the current PyTorch installation.\n")
    assert "NVIDIA GeForce RTX 5080" in paste.known["nvidia_smi.gpu"].value
    assert not [name for name in paste.known["nvidia_smi.gpu"].value if " face " in name]


# Rows read on developer.nvidia.com/cuda-gpus (12.1 to 8.6) and /cuda-legacy-gpus (7.2 to 5.0) on 2026-12-01.
@pytest.mark.parametrize(("name", "capability"), [
    ("NVIDIA GB10", "12.1"), ("NVIDIA GeForce RTX 5090", "12.0"),
    ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"), ("NVIDIA B200", "10.0"),
    ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce RTX 4090", "8.9"), ("NVIDIA L40S", "8.9"),
    ("Jetson AGX Orin", "8.7"), ("NVIDIA RTX A6000", "8.6"), ("Tesla V100-SXM2-16GB", "7.0"),
    ("NVIDIA GeForce GTX 1080", "6.1"), ("P520", "6.1"), ("Tesla P100-PCIE-16GB", "6.0"),
    ("NVIDIA GeForce GTX 980", "5.2"), ("Quadro M5500M", "5.2"), ("NVIDIA GeForce GTX 750 Ti", "5.0"),
    ("Quadro M2000M", "5.0"), ("NVIDIA NVS 810", "5.0"),
])
def test_rows_verified_on_nvidias_pages_give_the_capability_nvidia_states(name, capability):
    assert nvidia.capability_of(name) == capability


@pytest.mark.parametrize(("name", "capability"), [
    ("sdwebui-3003-gtx-titan-black-cc35-too-old", "3.5"), ("vllm-13202-tesla-p40-triton-capability-61", "6.1"),
    ("leggedlab-26-rtx5090-sm120", "12.0"), ("fooocus-3953-rtx5070-sm120-not-compatible", "12.0"),
])
def test_real_capability_warnings_agree_with_nvidias_table_and_fail_the_capability_layer(name, capability):
    paste = read_paste(pasted(name))
    (gpu,) = known(paste, "nvidia_smi.gpu")
    assert known(paste, "nvidia_smi.capability") == (capability,) == (nvidia.capability_of(gpu),)
    assert triage(pasted(name)).verdict.root_cause == "cuda.capability"


def test_a_geforce_210_is_below_every_cuda_torch_is_built_with():
    report = triage(collect_env(gpu="NVIDIA GeForce 210", cuda="10.2", torch="1.12.1+cu102", available="True"))
    assert report.verdict.root_cause == "cuda.capability"
    assert "1.2" in report.result("cuda.capability").summary


def test_the_release_table_gives_the_arch_list_of_the_wheels_cuda_build():
    """torch 2.9's CUDA 12.6 build stops at sm_90: an RTX 5090 (12.0) needs its 12.8 or 13.0 build."""
    report = triage(collect_env(torch="2.9.0+cu126", cuda="12.6", available="True", driver="575.51.03",
                                gpu="NVIDIA GeForce RTX 5090"))
    result = report.result("cuda.capability")
    assert report.verdict.root_cause == "cuda.capability" and "sm_90" in result.summary
    assert "whl/cu128" in render_triage(report, "markdown")


# --- item 7: suspected causes ---------------------------------------------------------------------------------------

def test_torch_130_without_a_driver_version_suspects_the_driver():
    """pytorch/pytorch#31243: torch 1.3.0 (CUDA 10.1, driver >= 418.39), is_available() False, no driver pasted."""
    text = pasted("pytorch-31243-torch130-driver-41048")
    report = triage(text)
    assert report.verdict.root_cause == "cuda.driver-version" and report.verdict.suspected
    result = report.result("cuda.driver-version")
    assert result.status == Status.FAIL and result.summary.startswith("suspected")
    assert "418.39" in result.summary and "10.1" in result.summary
    doc = json.loads(render_triage(report, "json"))
    assert doc["verdict"]["suspected"] is True
    reply = render_triage(report, "markdown")
    assert "**Suspected cause**" in reply and "nvidia-smi" in reply


def test_a_pasted_driver_decides_instead_of_a_suspicion():
    report = triage(collect_env(torch="2.3.1+cu121", cuda="12.1", driver="550.54.14"))
    assert report.result("cuda.driver-version").status == Status.PASS
    assert not report.verdict.suspected


def test_no_suspicion_without_the_wheels_cuda_or_on_a_cpu_build():
    assert not triage("Python 3.11.4 (main) on linux\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n").verdict.suspected
    report = triage(collect_env(torch="2.3.1+cpu", cuda="None", driver="N/A", gpu="N/A"))
    assert not report.verdict.suspected and report.result("cuda.driver-version").status != Status.FAIL


def test_check_reports_carry_no_suspected_key(cli):
    path = os.path.join(HERE, "..", "docs", "examples", "mac-rosetta.json")
    result = cli("check", "--from", path, "--format", "json")
    assert "suspected" not in json.loads(result.output)["verdict"]


# --- item 3: stale messages -----------------------------------------------------------------------------------------

STALE = ("RuntimeError: The MPS backend is supported on MacOS 15.0+. Current OS version can be queried using `sw_vers`\n"
         "ProductName: macOS\nProductVersion: 14.5\nBuildVersion: 23F79\n")


def test_a_stale_minimum_that_the_pasted_macos_meets_is_not_an_old_macos():
    report = triage(STALE)
    assert report.verdict.root_cause == "torch.mps-available"
    assert report.result("macos.version").status != Status.FAIL
    root = report.result("torch.mps-available")
    assert "15.0" in root.summary and "14.5" in root.summary and "Metal" in root.remedy.why
    # The catalogue's reading names the command that lists the Mac's Metal devices (its `actions`).
    assert root.remedy.actions == (run("system_profiler", "SPDisplaysDataType"),)
    assert "system_profiler SPDisplaysDataType" in render_triage(report, "markdown")


def test_the_installed_torchs_own_minimum_decides_when_the_message_overstates_it():
    """torch 2.15 prints '15.0+' on macOS 14 while its wheels run MPS from 14.0 (release table)."""
    text = STALE.replace("14.5", "14.2") + "PyTorch version: 2.15.0\n"
    assert triage(text).verdict.root_cause == "torch.mps-available"


def test_a_real_old_macos_still_fails_the_macos_layer():
    """pytorch/pytorch#164943 (macOS 13.7.4, torch 2.10 says 13.0+ but needs 14.0) and #139425 (macOS 12)."""
    assert triage(pasted("pytorch-164943-macos13-torch210-stale-message")).verdict.root_cause == "macos.version"
    assert triage(pasted("pytorch-139425-macos12-torch251-sw-vers")).verdict.root_cause == "macos.version"
    assert triage(STALE.replace("14.5", "13.6")).verdict.root_cause == "macos.version"


def test_a_geforce_series_has_the_capability_all_its_members_have_in_nvidias_table():
    from mps_doctor.nvidia import capability_of

    assert [capability_of(s) for s in ("RTX 50 series", "GeForce RTX 40 Series", "RTX 30 series", "GTX 10 series")] == [
        "12.0", "8.9", "8.6", "6.1"]
    # The RTX 5000 (Ada) is a workstation card, not a member of the RTX 50 series.
    assert capability_of("RTX 5000 Ada") == "8.9"


def test_a_capability_needs_the_first_cuda_that_builds_for_it_and_only_the_newest_gpus_are_newer_than_most_torch():
    from mps_doctor.nvidia import cuda_for_capability, first_default_wheel_for, newer_than_most_torch
    from mps_doctor.versions import load_releases

    releases = load_releases()
    assert [cuda_for_capability(c) for c in ("12.0", "10.0", "9.0", "8.9", "8.6", "7.5")] == [
        "12.8", "12.8", "11.8", "11.8", "11.1", "10.0"]
    # torch 2.8's PyPI Linux wheel is the first built with CUDA 12.8 (its torch/version.py, the release table).
    assert first_default_wheel_for("12.0", releases).torch == "2.8"
    assert newer_than_most_torch("12.0", releases)
    assert not newer_than_most_torch("8.9", releases) and not newer_than_most_torch("8.6", releases)
