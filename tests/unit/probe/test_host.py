"""Probe parsers on recorded command output, and the host probe's injected facts."""

import os

import pytest

from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.facts import NvidiaHardware
from mps_doctor.probe.host import (
    collect_host,
    list_dir,
    normalize_macos_version,
    parse_nvidia_smi,
    parse_sw_vers,
    parse_sysctl,
    probe_nvidia_hardware,
    read_small_text,
    relevant_env,
    sysctl_flag,
)
from mps_doctor.probe.runner import CommandResult, replay_runner
from mps_doctor.probe.target import parse_frames
from tests.paths import TESTS_DIR

DATA = os.path.join(TESTS_DIR, "data")


def read(name):
    with open(os.path.join(DATA, name)) as handle:
        return handle.read()


@pytest.mark.parametrize(("text", "expected"), [
    ("ProductName:\t\tmacOS\nProductVersion:\t\t14.5\nBuildVersion:\t\t23F79\n", ("14.5", "23F79")),
    ("ProductName:\tMac OS X\nProductVersion:\t10.16\nBuildVersion:\t20G95\n", ("10.16", "20G95")),
    ("ProductName:    macOS\nProductVersion:    26.0.1\nBuildVersion:    25A362\n", ("26.0.1", "25A362")),
    ("", (None, None)),
])
def test_sw_vers(text, expected):
    assert parse_sw_vers(text) == expected


@pytest.mark.parametrize(("version", "build", "expected"), [
    ("16.0", "25A354", "26.0"),  # an old-SDK process on Tahoe (cpython#135675)
    ("16.1", "25B78", "26.1"),
    ("16.0", None, "16.0"),
    ("14.5", "23F79", "14.5"),
    (None, None, None),
])
def test_macos_16_is_26_on_tahoe_builds(version, build, expected):
    assert normalize_macos_version(version, build) == expected


@pytest.mark.parametrize(("result", "value", "flag"), [
    (CommandResult(["sysctl"], 0, "1\n"), "1", True),
    (CommandResult(["sysctl"], 0, "0\n"), "0", False),
    (CommandResult(["sysctl"], 1, "", "sysctl: unknown oid 'hw.optional.arm64'\n"), "", False),
    (CommandResult(["sysctl"], None, error="No such file or directory"), None, None),
    (CommandResult(["sysctl"], 1, "", "sysctl: permission denied\n"), None, None),
])
def test_sysctl_values_and_flags(result, value, flag):
    assert parse_sysctl(result) == value
    assert sysctl_flag(value) is flag


def test_nvidia_smi_recorded_on_an_h200():
    smi = parse_nvidia_smi(read("nvidia-smi-h200.txt"), read("nvidia-smi-L-h200.txt"))
    assert (smi.driver_version, smi.cuda_version, smi.gpus) == ("580.159.04", "13.0", ("NVIDIA H200",))


def test_nvidia_smi_that_cannot_reach_the_driver_is_an_error_fact():
    from mps_doctor.probe.host import probe_nvidia_smi

    text = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest "
            "NVIDIA driver is installed and running.\n")
    run = replay_runner({"nvidia-smi": {"returncode": 9, "stdout": text}})
    smi = probe_nvidia_smi(run, lambda name: "/usr/bin/nvidia-smi")
    assert smi.found and smi.error.startswith("NVIDIA-SMI has failed")


def test_absent_nvidia_smi_runs_nothing():
    from mps_doctor.probe.host import probe_nvidia_smi

    smi = probe_nvidia_smi(replay_runner({}), lambda name: None)
    assert smi.found is False


def test_given_facts_are_never_read_from_the_machine():
    """Like packaging's mac_platforms: with every fact injected, no command outside the recording runs."""
    commands = {"sw_vers": {"returncode": 0, "stdout": "ProductVersion:\t15.1\nBuildVersion:\t24B83\n"},
                "sysctl -n hw.memsize": {"returncode": 0, "stdout": "17179869184\n"},
                "sysctl -n hw.optional.arm64": {"returncode": 0, "stdout": "1\n"},
                "sysctl -n kern.hv_vmm_present": {"returncode": 0, "stdout": "0\n"},
                "sysctl -n machdep.cpu.brand_string": {"returncode": 0, "stdout": "Apple M3\n"}}
    host = collect_host(run=replay_runner(commands), environ={"HOME": "/Users/x", "PYTORCH_MPS_FAST_MATH": "1", "SECRET": "y"},
                        system="Darwin", which=lambda n: None, path_exists=lambda p: p == "/opt/homebrew/bin/brew",
                        uname=("24.1.0", "arm64"), memory=lambda: None)
    assert host.macos_version == "15.1" and host.hw_arm64 is True and host.vmm_present is False
    assert host.memory_bytes == 16 * 1024 ** 3 and host.brew_prefixes == ("/opt/homebrew",)
    assert "SECRET" not in host.env and host.env["PYTORCH_MPS_FAST_MATH"] == "1"


def fake_files(files):
    """listdir and read_text over FILES: a folder's names (a list) or a file's text; anything else unreadable."""
    return (lambda path: files.get(path) if isinstance(files.get(path), list) else None,
            lambda path: files.get(path) if isinstance(files.get(path), str) else None)


PCI = "/sys/bus/pci/devices"


@pytest.mark.parametrize(("files", "expected"), [
    ({"/dev": ["null", "nvidia0", "nvidiactl", "nvidia-uvm", "tty0"], PCI: ["0000:00:00.0", "0000:01:00.0"],
      PCI + "/0000:00:00.0/vendor": "0x8086\n", PCI + "/0000:01:00.0/vendor": "0x10DE\n"},
     NvidiaHardware(device_files=("nvidia-uvm", "nvidia0", "nvidiactl"), pci_devices=("0000:01:00.0",))),
    ({"/dev": ["null", "vda"], PCI: ["0000:00:00.0"], PCI + "/0000:00:00.0/vendor": "0x1af4\n"},
     NvidiaHardware(device_files=(), pci_devices=())),
    # WSL 2 shows no GPU on PCI, only /dev/dxg; Jetson's GPU is not on PCI either.
    ({"/dev": ["dxg", "dxgkrnl-not-this"], PCI: []}, NvidiaHardware(device_files=("dxg",), pci_devices=None)),
    ({"/dev": ["nvhost-ctrl-gpu", "nvgpu", "nvmap"]}, NvidiaHardware(device_files=("nvgpu", "nvhost-ctrl-gpu"))),
    # A vendor file that cannot be read leaves the PCI answer unknown rather than "no NVIDIA device".
    ({"/dev": ["null"], PCI: ["0000:00:00.0"]}, NvidiaHardware(device_files=(), pci_devices=None)),
    ({}, None),
])
def test_nvidia_hardware_from_dev_and_the_pci_vendor_ids(files, expected):
    assert probe_nvidia_hardware(*fake_files(files)) == expected


def test_linux_host_facts_are_read_from_the_injected_files_only():
    listdir, read_text = fake_files({"/dev": ["nvidia0"], PCI: ["0000:41:00.0"], PCI + "/0000:41:00.0/vendor": "0x10de"})
    host = collect_host(run=replay_runner({}), environ={"HOME": "/home/x"}, system="Linux", which=lambda n: None,
                        path_exists=lambda p: False, uname=("6.8.0", "x86_64"), memory=lambda: None,
                        distro_reader=lambda: {"id": "ubuntu", "version": "24.04", "name": "Ubuntu 24.04.1 LTS"},
                        listdir=listdir, read_text=read_text)
    assert host.nvidia_hardware == NvidiaHardware(device_files=("nvidia0",), pci_devices=("0000:41:00.0",))
    assert host.nvidia_smi.found is False


def test_nvidia_hardware_of_this_machine_matches_what_its_files_say():
    """The real readers against the same files read here independently: NVIDIA device files and vendor 0x10de."""
    import glob

    hardware = probe_nvidia_hardware(list_dir, read_small_text)
    vendors = {os.path.basename(os.path.dirname(path)): open(path).read().strip()
               for path in glob.glob(PCI + "/*/vendor")}
    assert hardware is not None
    files = [path for pattern in ("nvidia*", "nvhost*", "nvgpu*", "dxg") for path in glob.glob("/dev/" + pattern)]
    assert hardware.device_files == tuple(sorted(os.path.basename(path) for path in files))
    assert hardware.pci_devices == (tuple(sorted(a for a, v in vendors.items() if v == "0x10de")) if vendors else None)


def test_relevant_env_keeps_only_named_variables():
    env = relevant_env({"PATH": "/bin", "CUDA_VISIBLE_DEVICES": "0", "CONDA_PREFIX": "/c", "AWS_SECRET": "x", "CI": "true"})
    assert env == {"CUDA_VISIBLE_DEVICES": "0", "CONDA_PREFIX": "/c", "CI": "true"}






def test_frames_ignore_stray_output_and_broken_lines():
    stdout = ("hello\n" + FRAME_MARK + '{"event": "begin", "stage": "torch", "data": null}\n' + FRAME_MARK + "{not json\n"
              + FRAME_MARK + '{"event": "result", "stage": "interpreter", "data": {"a": 1}}\n')
    results, begun = parse_frames(stdout)
    assert results == {"interpreter": {"a": 1}} and begun == ["torch", "interpreter"]


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400), st.text(max_size=200))
def test_parsers_never_crash_on_arbitrary_text(header, listing):
    parse_sw_vers(header)
    smi = parse_nvidia_smi(header, listing)
    assert smi.found is True
    results, begun = parse_frames(header + "\n" + FRAME_MARK + listing)
    assert isinstance(results, dict) and isinstance(begun, list)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789.", max_size=12), st.text(alphabet="0123456789ABZ", max_size=8))
def test_macos_normalization_only_rewrites_16_on_25_builds(version, build):
    result = normalize_macos_version(version or None, build or None)
    if result is not None and result != version:
        assert version.split(".")[0] == "16" and build.startswith("25") and result.startswith("26")
