"""Check logic on hand-built facts: parity tolerances, environment variables, CUDA rules, the release table."""

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mps_doctor.checking.model import CheckAgain, InstallTorch, Options, Status, export, note
from mps_doctor.checking.model import doctor as doctor_command
from mps_doctor.checking.registry import CHECK_ID_PATTERN, all_checks
from mps_doctor.checks.environment import pytorch_env_problems
from mps_doctor.errors import ReportFormatError
from mps_doctor.facts import Comparison, Interpreter, NvidiaHardware
from mps_doctor.nvidia import parse_visible_devices
from mps_doctor.release_choice import arch_covers, best_build
from mps_doctor.report import facts_from_report, report_to_dict, run_checks
from mps_doctor.versions import load_releases
from tests.helpers import shown_commands
from tests.machines import load_machine, replay_facts

GOOD = load_machine("m2-native-torch213")


def with_smoke(**changes):
    facts = replay_facts(GOOD)
    smoke = dataclasses.replace(facts.target.smoke, **changes)
    return dataclasses.replace(facts, target=dataclasses.replace(facts.target, smoke=smoke))


def result(facts, check_id, device="auto"):
    return run_checks(facts, Options(device=device, requested_device=device)).result(check_id)


def test_recorded_agreeing_step_passes():
    assert result(replay_facts(GOOD), "device.smoke").status == Status.PASS


def test_recorded_disagreeing_gradients_fail_and_are_named():
    facts = replay_facts(GOOD)
    grads = list(facts.target.smoke.grad_parity)
    grads[2] = Comparison("conv2.weight", True, 0.004, 0.0062)
    smoke = result(with_smoke(grad_parity=tuple(grads)), "device.smoke")
    assert smoke.status == Status.FAIL and "conv2.weight" in smoke.summary


def test_nan_loss_fails_parity():
    smoke = result(with_smoke(loss_parity=Comparison("loss", False, None, 2.31)), "device.smoke")
    assert smoke.status == Status.FAIL and "loss" in smoke.summary


def test_loss_that_does_not_fall_fails():
    smoke = result(with_smoke(loss_before=2.30, loss_after=2.31), "device.smoke")
    assert smoke.status == Status.FAIL and "did not fall" in smoke.summary


def test_nan_after_training_fails():
    smoke = result(with_smoke(loss_after=None), "device.smoke")
    assert smoke.status == Status.FAIL


def test_fallback_warnings_turn_a_pass_into_a_warning():
    text = ("UserWarning: The operator 'aten::foo' is not currently supported on the MPS backend and will fall back to run "
            "on the CPU. This may have performance implications.")
    smoke = result(with_smoke(fallback_warnings=(text,), fallback_env="1"), "device.smoke")
    assert smoke.status == Status.WARN and smoke.remedy.actions == (InstallTorch(),)
    assert "aten::foo" in smoke.remedy.problem


def test_wrong_matmul_fails_the_parity_layer():
    facts = replay_facts(load_machine("m1-hosted-runner-wrong-results"))
    parity = result(facts, "device.parity", device="mps")
    assert parity.status == Status.FAIL and "matmul-batch16" in parity.summary


def test_a_crashing_check_is_contained(monkeypatch):
    from mps_doctor.checking import registry

    spec = registry.REGISTRY["host.memory"]
    monkeypatch.setitem(registry.REGISTRY, "host.memory", dataclasses.replace(spec, fn=lambda ctx: 1 / 0))
    report = run_checks(replay_facts(GOOD), Options(device="auto"))
    broken = report.result("host.memory")
    assert broken.status == Status.ERROR and "ZeroDivisionError" in broken.summary
    assert report.exit_code() == 3 and report.verdict.state == "doctor-failed"


@pytest.mark.parametrize(("env", "bad"), [
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "2.5"}, ["PYTORCH_MPS_HIGH_WATERMARK_RATIO"]),
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "abc"}, ["PYTORCH_MPS_HIGH_WATERMARK_RATIO"]),
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.2"}, ["PYTORCH_MPS_LOW_WATERMARK_RATIO"]),
    ({"PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.4"}, []),  # default high is 1.7
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0"}, ["PYTORCH_MPS_LOW_WATERMARK_RATIO"]),  # default low 1.4 > 1.0
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.0", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "0.8"}, []),
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "1.5"}, []),
    ({"PYTORCH_MPS_HIGH_WATERMARK_RATIO": "0.0", "PYTORCH_MPS_LOW_WATERMARK_RATIO": "1.9"}, []),  # high 0: bound 2.0
    ({"PYTORCH_ENABLE_MPS_FALLBACK": "yes"}, ["PYTORCH_ENABLE_MPS_FALLBACK"]),
    ({"PYTORCH_ENABLE_MPS_FALLBACK": "1"}, []),
    ({"PYTORCH_MPS_FAST_MATH": "true"}, ["PYTORCH_MPS_FAST_MATH"]),
    ({"PYTORCH_MPS_METAL_VERSION": "3.1"}, []),
    ({"PYTORCH_MPS_METAL_VERSION": "3"}, ["PYTORCH_MPS_METAL_VERSION"]),
])
def test_pytorch_env_ranges(env, bad):
    assert [p[0] for p in pytorch_env_problems(env)] == bad


@pytest.mark.parametrize(("value", "count", "visible", "invalid"), [
    ("", 2, [], ""),
    ("-1", 2, [], "-1"),
    ("0,1", 2, ["0", "1"], None),
    ("0,2,-1,1", 4, ["0", "2"], "-1"),  # NVIDIA: entries after an invalid one are hidden
    ("3", 2, [], "3"),
    ("GPU-f29034e0-1760-448c-a480-d66d633c11f1", None, ["GPU-f29034e0-1760-448c-a480-d66d633c11f1"], None),
])
def test_cuda_visible_devices(value, count, visible, invalid):
    assert parse_visible_devices(value, count) == (visible, invalid)


@pytest.mark.parametrize(("arch", "capability", "covered"), [
    (["sm_75", "sm_80", "sm_86", "sm_90"], (9, 0), True),
    (["sm_75", "sm_80", "sm_86", "sm_90"], (8, 9), True),   # sm_86 cubin runs on 8.9 (same major)
    (["sm_75", "sm_80", "sm_90"], (6, 1), False),
    (["sm_50", "sm_60", "sm_70"], (6, 1), True),
    (["sm_80", "sm_90", "compute_90"], (12, 0), True),      # PTX JIT forward
    (["sm_80", "sm_90"], (12, 0), False),
])
def test_arch_coverage(arch, capability, covered):
    assert arch_covers(arch, capability) is covered


def test_best_build_respects_driver_and_capability():
    table = load_releases()
    release, _ = table.row_for("2.13.0")
    assert best_build(release, [(9, 0)], "13.0") == "13.0"
    assert best_build(release, [(6, 1)], "13.0") == "12.6"
    assert best_build(release, [(9, 0)], "12.8") == "12.6"
    assert best_build(release, [(12, 0)], "12.8") is None


@pytest.mark.parametrize(("torch", "macos"), [("2.4.1", "12.3"), ("2.5.0", "13.0"), ("2.8.0", "13.0"), ("2.9.1", "14.0"),
                                              ("2.14.1", "14.0"), ("1.12.1", "12.3")])
def test_minimum_macos_per_release(torch, macos):
    release, exact = load_releases().row_for(torch)
    assert exact and release.macos_min_mps == macos


def test_newest_torch_for_old_macos():
    table = load_releases()
    assert table.newest_for_macos("13.6.7").torch == "2.8"
    assert table.newest_for_macos("12.6").torch == "2.4"
    assert table.newest_for_macos("12.2") is None


def test_every_release_row_names_a_source_and_pins_a_pair():
    for release in load_releases().releases:
        assert release.sources
        torch_pin, vision_pin = release.pip_args()
        assert torch_pin.startswith("torch==") and vision_pin.startswith("torchvision==")


def test_torchvision_minor_is_torch_minor_plus_15_up_to_214_and_015_pairs_with_029():
    """The +15 rule holds 2.0-2.14 (Requires-Dist torch==2.N.x); no torchvision 0.30 exists, 0.29.1/0.29.2 require
    torch>=2.14.0 and pair with 2.15."""
    for release in load_releases().releases:
        major, minor = map(int, release.torch.split("."))
        if major == 2:
            assert release.torchvision == "0.%d" % (min(minor, 14) + 15)


def test_215_row_is_read_from_its_wheels():
    release, exact = load_releases().row_for("2.15.0")
    assert exact and release.confidence == "sourced"
    assert (release.python, release.torchvision_pin, release.macos_min_install, release.macos_min_mps) == (
        ">=3.11,<3.16", "0.29.*", "14.0", "14.0")
    assert any("Requires-Python >=3.11" in source for source in release.sources)
    assert not release.supports_python((3, 10)) and release.supports_python((3, 15))


@pytest.mark.parametrize(("torch", "python", "supported"), [
    ("2.2.2", (3, 12), True), ("2.3.1", (3, 12), True), ("2.3.1", (3, 13), False), ("2.13.0", (3, 14), True),
    ("2.13.0", (3, 15), False), ("2.14.1", (3, 15), False), ("2.15.0", (3, 10), False)])
def test_python_ranges_from_the_wheel_tags(torch, python, supported):
    assert load_releases().row_for(torch)[0].supports_python(python) is supported


def test_install_minimum_and_what_an_unpinned_install_gets():
    table = load_releases()
    assert [table.row_for(v)[0].macos_min_install for v in ("2.9.1", "2.11.0", "2.12.0")] == ["11.0", "11.0", "14.0"]
    assert table.newest_installable_on_macos("13.6.7").torch == "2.11"
    assert table.newest_installable_on_macos("15.1").torch == "2.15"
    assert table.newest_installable_on_macos("13.6.7", (3, 12)).torch == "2.11"


def test_cuda_build_rows_read_from_the_wheels_and_release_notes():
    table = load_releases()
    builds = {v: dict(table.row_for(v)[0].cuda_builds) for v in ("2.11.0", "2.13.0", "2.14.1")}
    assert "7.0" not in builds["2.11.0"]["12.8"]
    assert "12.9" not in builds["2.13.0"]
    assert "13.4" in builds["2.14.1"]
    assert [table.row_for(v)[0].pypi_linux_cuda for v in ("2.10.0", "2.11.0", "2.15.0")] == ["12.8", "13.0", "13.2"]


def test_check_ids_are_stable_kebab_dotted():
    import re

    ids = [c.id for c in all_checks()]
    assert len(ids) == len(set(ids))
    assert all(re.match(CHECK_ID_PATTERN, i) for i in ids)


def test_advisories_are_listed_by_their_rank_not_by_their_module(monkeypatch):
    from mps_doctor.checking import registry

    listed = [s for s in all_checks() if s.advisory]
    ranks = [s.position for s in listed]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    assert len({s.fn.__module__ for s in listed}) > 1
    monkeypatch.setattr(registry, "REGISTRY", dict(registry.REGISTRY))
    with pytest.raises(ValueError, match="advisory position 10 is taken by env.pytorch-vars"):
        registry.check("env.other", "Another advisory", advisory=10)(lambda ctx: None)
    registry.check("env.first", "An advisory ranked first", advisory=1)(lambda ctx: None)
    assert [s.id for s in registry.all_checks() if s.advisory][:2] == ["env.first", "env.pytorch-vars"]


JSONISH = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                       max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(JSONISH)
def test_report_loader_never_crashes_on_arbitrary_json(doc):
    try:
        facts_from_report(doc)
    except ReportFormatError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_report_loader_on_mutated_real_reports(data):
    _, report = None, run_checks(replay_facts(GOOD), Options(device="auto"))
    doc = json.loads(json.dumps(report_to_dict(report)))
    path = data.draw(st.sampled_from(["host", "target", "interpreter", "torch", "smoke"]))
    value = data.draw(JSONISH)
    if path in ("host", "target"):
        doc["facts"][path] = value
    else:
        doc["facts"]["target"][path] = value
    try:
        facts, _ = facts_from_report(doc)
    except ReportFormatError:
        return
    again = run_checks(facts, Options(device="auto"))
    assert again.verdict.state in ("ready", "not-ready", "doctor-failed")
    assert not math.isnan(len(again.results))


def test_intel_mac_without_torch_gets_the_last_intel_wheels_for_the_cpu():
    from mps_doctor.facts import TorchInfo

    facts = replay_facts(load_machine("intel-mac-torch222"))
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, torch=TorchInfo(installed=False)))
    report = run_checks(facts, Options(device="cpu", requested_device="cpu"))
    assert report.result("python.version").summary.startswith("Python 3.11 is supported by torch 2.2")
    assert shown_commands(report, "torch.import") == (
        "/Users/alex/proj/.venv/bin/python -m pip install torch==2.2.2 torchvision==0.17.2",)


def with_torch(facts, **changes):
    return dataclasses.replace(facts, target=dataclasses.replace(facts.target, torch=dataclasses.replace(
        facts.target.torch, **changes)))


def test_a_torch_newer_than_the_table_lets_runtime_facts_decide_and_names_the_missing_row():
    facts = replay_facts(load_machine("m3-torch216-newer-than-table"))
    newest = load_releases().releases[-1].torch
    python = result(facts, "python.version")
    assert python.status == Status.WARN and "torch 2.16.0 has no row" in python.summary and newest in python.summary
    assert python.remedy.actions == (doctor_command("--version"),) and "never a name on a package index" in python.remedy.why
    assert result(facts, "macos.version").status == Status.PASS
    unavailable = with_torch(facts, mps_available=False)
    macos = result(unavailable, "macos.version")
    assert macos.status == Status.WARN and "is_available() decides" in macos.summary
    report = run_checks(unavailable, Options(device="mps", requested_device="mps"))
    assert report.verdict.root_cause == "torch.mps-available"
    assert report.result("torch.mps-available").summary == "MPS is built but not available, on a new enough macOS"


def test_a_torch_newer_than_the_table_on_linux_cpu_warns_once_and_stays_ready():
    facts = replay_facts(load_machine("linux-x86-cpu-torch"))
    facts = with_torch(facts, version="2.16.0+cpu")
    report = run_checks(facts, Options(device="cpu", requested_device="cpu"))
    strict = run_checks(facts, Options(device="cpu", requested_device="cpu", strict=True))
    assert report.exit_code() == 0 and strict.exit_code() == 1
    assert [r.id for r in report.results if r.status == Status.WARN] == ["python.version"]


@pytest.mark.parametrize(("version", "macos", "status"), [
    ("2.7.1", "13.6.7", Status.WARN), ("2.3.0", "12.6", Status.WARN), ("2.8.0", "13.0", Status.WARN),
    ("2.9.0", "13.6.7", Status.PASS), ("2.2.2", "13.6.7", Status.PASS), ("2.7.1", "14.0", Status.PASS),
    ("not-a-version", "13.6.7", Status.SKIP)])
def test_mps_features_advisory_covers_exactly_torch_2_3_to_2_8_below_macos_14(version, macos, status):
    facts = replay_facts(load_machine("m1-macos13-torch27"))
    facts = dataclasses.replace(facts, host=dataclasses.replace(facts.host, macos_version=macos))
    facts = with_torch(facts, version=version)
    outcome = result(facts, "macos.mps-features", device="mps")
    assert outcome.status == status, outcome.summary
    if status == Status.WARN:
        assert "MPS BFloat16 is only supported on MacOS 14 or newer" in outcome.remedy.problem


@pytest.mark.parametrize(("python", "new_python"), [((3, 12, 4), None), ((3, 13, 1), "3.12")])
def test_an_intel_mac_needs_a_new_python_only_outside_the_last_intel_releases_range(python, new_python):
    """torch 2.2.2 has macOS x86_64 wheels for cp38 to cp312 (its row of the release table, read from PyPI's file
    list): Python 3.12 installs it where it is, 3.13 needs an environment with 3.12 (it was 3.11 for both)."""
    facts = replay_facts(load_machine("intel-mac-torch222"))
    interp = dataclasses.replace(facts.target.interpreter, version=python)
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, interpreter=interp))
    remedy = result(facts, "hardware.apple-silicon").remedy
    created = [a.python for a in remedy.actions if type(a).__name__ == "NewEnvironment"]
    assert created == ([new_python] if new_python else [])
    assert "torch 2.2.2" in remedy.why and load_releases().last_intel_torch == "2.2.2"


@pytest.mark.parametrize(("bits", "status"), [(32, Status.FAIL), (64, Status.PASS), (None, Status.PASS)])
def test_a_32_bit_python_gets_no_torch_wheel(bits, status):
    """torch's PyPI files are for 64-bit platforms only (the release table's wheel lists): a 32-bit Python fails."""
    facts = replay_facts(load_machine("linux-x86-cpu-torch"))
    interp = dataclasses.replace(facts.target.interpreter, pointer_bits=bits)
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, interpreter=interp, torch=None))
    outcome = result(facts, "python.version", device="cpu")
    assert outcome.status == status, outcome.summary
    if status == Status.FAIL:
        assert "32-bit" in outcome.summary and outcome.remedy.key == "python-64-bit"


# --- issue 24 items 9 and 10: remedies worded for this platform, distribution and way of installing ------------------

CI_BOX = load_machine("linux-x86-cpu-torch")


def cuda_report(facts):
    return run_checks(facts, Options(device="cuda", requested_device="cuda"))


def on_host(facts, **changes):
    return dataclasses.replace(facts, host=dataclasses.replace(facts.host, **changes))


def gpu_without_driver(distro, machine="x86_64", release="6.8.0-49-generic"):
    """The CI box's facts with an NVIDIA GPU on PCI, no driver, and DISTRO as the `distro` package's answer."""
    hardware = NvidiaHardware(device_files=(), pci_devices=("0000:01:00.0",))
    return on_host(replay_facts(CI_BOX), nvidia_hardware=hardware, linux_distro=distro, doctor_machine=machine,
                   release=release)


def test_the_recorded_ci_box_has_no_nvidia_gpu_and_cuda_there_says_so_and_offers_the_cpu():
    facts = replay_facts(CI_BOX)
    assert facts.host.nvidia_hardware == NvidiaHardware(device_files=(), pci_devices=())
    report = cuda_report(facts)
    driver = report.result("cuda.driver")
    assert report.verdict.root_cause == "cuda.driver" and driver.status == Status.FAIL
    assert driver.summary == "this machine has no NVIDIA GPU (no /dev/nvidia*, no PCI device of vendor 0x10de)"
    commands = shown_commands(report, "cuda.driver")
    assert commands == ("mps-doctor check --python %s --device cpu" % facts.target.python,)


def test_the_recorded_h200_shows_its_gpu_on_pci_and_its_device_files():
    hardware = replay_facts(load_machine("linux-h200-cuda")).host.nvidia_hardware
    assert hardware.pci_devices == ("0000:00:06.0",)
    assert {"nvidia0", "nvidiactl", "nvidia-uvm"} <= set(hardware.device_files)


@pytest.mark.parametrize(("distro", "machine", "expected", "link"), [
    ({"id": "ubuntu", "version": "24.04", "name": "Ubuntu 24.04.1 LTS"}, "x86_64",
     "# Ubuntu 24.04.1 LTS: sudo ubuntu-drivers install   (the recommended driver)", "documentation.ubuntu.com"),
    ({"id": "debian", "version": "12", "name": "Debian GNU/Linux 12 (bookworm)"}, "x86_64",
     "# sudo apt update && sudo apt install linux-headers-amd64 nvidia-driver firmware-misc-nonfree nvidia-smi libcuda1",
     "wiki.debian.org"),
    ({"id": "fedora", "version": "41", "name": "Fedora Linux 41 (Workstation Edition)"}, "x86_64",
     "# sudo dnf install akmod-nvidia xorg-x11-drv-nvidia-cuda", "rpmfusion.org"),
    ({"id": "rocky", "version": "9.4", "name": "Rocky Linux 9.4 (Blue Onyx)"}, "aarch64",
     "# sudo dnf config-manager --add-repo https://developer.download.nvidia.com/compute/cuda/repos/rhel9/sbsa/"
     "cuda-rhel9.repo", "docs.nvidia.com/datacenter"),
    ({"id": "arch", "version": "", "name": "Arch Linux"}, "x86_64",
     "# install the driver as NVIDIA's guide says for Arch Linux: "
     "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/", "docs.nvidia.com/datacenter"),
])
def test_a_gpu_without_driver_gets_this_distributions_way_to_install_it(distro, machine, expected, link):
    report = cuda_report(gpu_without_driver(distro, machine))
    driver = report.result("cuda.driver")
    assert driver.summary == "no NVIDIA driver for the GPU at PCI 0000:01:00.0 (no nvidia-smi, no /dev/nvidia*)"
    commands = shown_commands(report, "cuda.driver")
    assert expected in commands
    assert "nvidia-smi" not in [c.split()[0] for c in commands if not c.startswith("#")]
    assert link in driver.remedy.link
    assert commands[-1].startswith("mps-doctor check --python ")


def test_under_wsl_the_driver_is_windows_own_whatever_the_distribution():
    ubuntu = {"id": "ubuntu", "version": "22.04", "name": "Ubuntu 22.04.4 LTS"}
    facts = gpu_without_driver(ubuntu, release="5.15.153.1-microsoft-standard-WSL2")
    facts = on_host(facts, nvidia_hardware=NvidiaHardware(device_files=("dxg",), pci_devices=()))
    driver = cuda_report(facts).result("cuda.driver")
    assert driver.status == Status.FAIL and "no NVIDIA GPU" not in driver.summary
    notes = " ".join(c.value for c in driver.remedy.actions if getattr(c, "kind", "") == "note")
    assert "NVIDIA's driver for Windows" in notes and "ubuntu-drivers" not in notes
    assert driver.remedy.link == "https://docs.nvidia.com/cuda/wsl-user-guide/index.html"


def test_unknown_hardware_never_claims_there_is_no_gpu():
    facts = on_host(replay_facts(CI_BOX), nvidia_hardware=None)
    driver = cuda_report(facts).result("cuda.driver")
    assert driver.summary == "no NVIDIA driver found (nvidia-smi is not on PATH)"
    assert driver.remedy.title == "Install the NVIDIA driver from Debian's non-free packages"


def test_a_loaded_driver_without_nvidia_smi_warns_and_lets_later_layers_decide():
    hardware = NvidiaHardware(device_files=("nvidia-uvm", "nvidia0", "nvidiactl"), pci_devices=("0000:01:00.0",))
    report = cuda_report(on_host(replay_facts(CI_BOX), nvidia_hardware=hardware))
    driver = report.result("cuda.driver")
    assert driver.status == Status.WARN and "/dev/nvidia-uvm" in driver.summary
    assert report.verdict.root_cause == "torch.cuda-built"


def test_a_driver_too_old_for_every_cuda_build_is_updated_the_distributions_way():
    facts = replay_facts(load_machine("linux-cu130-on-driver-128"))
    facts = on_host(facts, nvidia_smi=dataclasses.replace(facts.host.nvidia_smi, cuda_version="11.8"))
    report = cuda_report(facts)
    assert report.verdict.root_cause == "cuda.driver-version"
    commands = shown_commands(report, "cuda.driver-version")
    assert commands[0] == "# this driver (CUDA 11.8) runs no CUDA build of torch 2.13: install a newer driver"
    assert "# Ubuntu 24.04.1 LTS: sudo ubuntu-drivers install   (the recommended driver)" in commands


def too_old_python(facts, version=(2, 7, 18), real="/home/dev/.pyenv/versions/2.7.18/bin/python2.7"):
    """FACTS with a target Python too old for the probe child, as the child's entry point describes it."""
    prefix = real.rsplit("/bin/", 1)[0]
    interp = Interpreter(version=version, too_old=True, executable=real, executable_realpath=real, prefix=prefix,
                         base_prefix=prefix)
    target = dataclasses.replace(facts.target, python=real, interpreter=interp, torch=None, parity=None, smoke=None)
    return dataclasses.replace(facts, target=target)


@pytest.mark.parametrize(("machine", "device", "says", "never"), [
    ("linux-x86-cpu-torch", "cpu", "PyTorch's CPU builds for Linux since 1.12", "MPS"),
    ("linux-h200-cuda", "cuda", "PyTorch's CUDA builds for Linux since 1.12", "MPS"),
    ("m2-native-torch213", "mps", "every PyTorch with MPS", "Linux"),
])
def test_a_python_too_old_for_the_probe_is_worded_for_this_platform_and_device(machine, device, says, never):
    report = run_checks(too_old_python(replay_facts(load_machine(machine))), Options(device=device, requested_device=device))
    outcome = report.result(report.verdict.root_cause)
    assert outcome.id in ("python.version", "python.rosetta") and outcome.status == Status.FAIL
    assert outcome.summary.endswith(says), outcome.summary
    assert never not in outcome.summary + outcome.remedy.why
    assert "needs Python %s" % load_releases().current.python in outcome.remedy.why


def test_wrong_results_on_cuda_never_advise_a_macos_upgrade():
    facts = replay_facts(load_machine("linux-h200-cuda"))
    parity = dataclasses.replace(facts.target.parity, ops=(Comparison("matmul-batch16", True, 5.0, 90.0),))
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, parity=parity))
    outcome = result(facts, "device.parity", device="cuda")
    assert outcome.status == Status.FAIL and "macOS" not in outcome.remedy.why
    assert "the NVIDIA driver" in outcome.remedy.why
    assert outcome.remedy.link == "https://docs.pytorch.org/docs/stable/notes/cuda.html"


@pytest.mark.parametrize(("kind", "message", "key", "said"), [
    ("AttributeError", "partially initialized module 'torch' has no attribute 'cuda' (most likely due to a circular "
     "import)", "torch-shadowed", "a local file or folder named `torch` shadows the installed package"),
    ("ImportError", "/lib64/libc.so.6: version `GLIBC_2.28' not found", "torch-known", "newer glibc than the system's"),
    ("ModuleNotFoundError", "No module named 'torch._C'", "torch-reinstall", "a part of torch itself is missing"),
    ("ModuleNotFoundError", "No module named 'sympy'", "torch-missing-dependency", "dependency sympy is not installed"),
    ("ImportError", "Library not loaded: @rpath/libomp.dylib\nModuleNotFoundError: No module named 'jinja2.ext'",
     "torch-missing-dependency", "dependency jinja2 is not installed"),
    ("ModuleNotFoundError", "No module named 'requests'", "torch-reinstall", "a dependency of torch is missing"),
    ("RuntimeError", "something else", "torch-reinstall", "torch is installed but does not import"),
])
def test_an_import_failure_is_read_through_the_catalogue(kind, message, key, said):
    from mps_doctor.facts import ErrorInfo

    outcome = result(with_torch(replay_facts(GOOD), import_error=ErrorInfo(kind, message)), "torch.import")
    assert outcome.status == Status.FAIL and outcome.remedy.key == key
    assert said in outcome.summary


@pytest.mark.parametrize(("message", "key"), [
    ("MPS backend out of memory (MPS allocated: 1.00 GB, other allocations: 0 bytes, max allowed: 1.70 GB). Tried to "
     "allocate 256.00 MB on private pool.", "mps-out-of-memory"),
    ("The operator 'aten::foo' is not currently implemented for the MPS device. As a temporary fix, you can set the "
     "environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`.", "mps-missing-operator"),
    ("MPS backend out of memory, said a third-party wrapper", "device-error"),
])
def test_tensor_work_errors_are_read_through_the_catalogue(message, key):
    from mps_doctor.facts import ErrorInfo, Parity

    facts = replay_facts(GOOD)
    target = dataclasses.replace(facts.target, parity=Parity("mps", error=ErrorInfo("RuntimeError", message)))
    outcome = result(dataclasses.replace(facts, target=target), "device.parity", device="mps")
    assert outcome.status == Status.FAIL and outcome.remedy.key == key

def with_torch_and_vision(torch, vision):
    """GOOD with torch TORCH and torchvision VISION installed."""
    facts = replay_facts(GOOD)
    info = facts.target.torch
    info = dataclasses.replace(info, version=torch, packages=dict(info.packages, torch=torch, torchvision=vision))
    return dataclasses.replace(facts, target=dataclasses.replace(facts.target, torch=info))


@pytest.mark.parametrize(("torch", "vision", "status"), [
    ("2.15.0", "0.29.0", Status.WARN),   # 0.29.0 requires torch==2.14.0 (its METADATA)
    ("2.15.0", "0.29.2", Status.PASS),   # 0.29.2 requires torch>=2.14.0
    ("2.14.1", "0.29.0", Status.WARN),
    ("2.14.0", "0.29.0", Status.PASS),
    ("2.14.1", "0.29.1", Status.PASS),
])
def test_torchvision_029_pairs_by_its_exact_requirement(torch, vision, status):
    outcome = result(with_torch_and_vision(torch, vision), "torch.companions")
    assert outcome.status == status, outcome.summary
    if status == Status.WARN:
        assert "requires torch==2.14.0" in outcome.summary


@pytest.mark.parametrize(("message", "expected"), [
    # mps.mpsgraph-compile-error: a setting, and macOS's sw_vers as a line to read.
    ("loc(\"mps_select\"(\"(mpsFileLoc): /AppleInternal/Library/MetalPerformanceShadersGraph/MPSGraphUtilities.mm\":294:0)): error: "
     "'anec.gain_offset_control' op result #0 must be 4D/5D memref of 16-bit float",
     [export("PYTORCH_ENABLE_MPS_FALLBACK", "1"), note("run: sw_vers")]),
    # cuda.no-gpus-available: nvidia-smi and a CUDA setting do not apply to a Mac.
    ("No CUDA GPUs are available", []),
    # cuda.arch-not-compatible: the install is the check's own remedy's to choose; the diagnostic runs this Python.
    ("GPU with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
     [note("run: /Users/dev/proj/.venv/bin/python -c 'import torch; print(torch.cuda.get_arch_list())'")]),
])
def test_a_known_error_adds_its_catalogue_actions_for_this_machine(message, expected):
    """explained: the catalogue entry's actions through checking/intents.py with this machine's system and Python."""
    from mps_doctor.facts import ErrorInfo, Parity

    facts = replay_facts(GOOD)
    target = dataclasses.replace(facts.target, python="/Users/dev/proj/.venv/bin/python",
                                 parity=Parity("mps", error=ErrorInfo("RuntimeError", message)))
    outcome = result(dataclasses.replace(facts, target=target), "device.parity", device="mps")
    assert outcome.remedy.key == "device-error" and "known error" in outcome.remedy.why
    assert list(outcome.remedy.actions) == [CheckAgain(device="cpu")] + expected


@pytest.mark.parametrize(("torch", "vision", "status", "words"), [
    # torchvision 0.11.x's METADATA pins torch==1.10.x; 0.4.0 pins 1.2.0 although 0.4.x also serves 1.3.
    ("1.10.1", "0.2.2", Status.WARN, "torchvision 0.2.2 (torch 1.10.1 needs 0.11.x)"),
    ("1.10.1", "0.22.0", Status.WARN, "needs 0.11.x"),
    ("1.3.0", "0.4.0", Status.WARN, "torchvision 0.4.0 (it requires torch==1.2.0)"),
    ("1.10.1+cpu", "0.11.2", Status.PASS, "torchvision 0.11.2 matches torch 1.10.1+cpu"),
    ("1.0.1", "0.2.2", Status.SKIP, "no torchvision or torchaudio release names torch 1.0.1"),
])
def test_a_torch_older_than_the_table_pairs_by_its_companions_requires_dist(torch, vision, status, words):
    outcome = result(with_torch_and_vision(torch, vision), "torch.companions")
    assert outcome.status == status and words in outcome.summary, outcome.summary


def test_a_companion_of_an_older_torch_is_pinned_to_the_release_built_for_it():
    from mps_doctor.checking.model import InstallPackages

    outcome = result(with_torch_and_vision("1.10.1", "0.2.2"), "torch.companions")
    assert outcome.remedy.actions == (InstallPackages(("torchvision==0.11.2",)),)
    # No torchvision pins torch 1.0: the remedy is a current torch with its companions.
    facts = with_torch_and_vision("1.0.1", "0.11.2")
    outcome = result(facts, "torch.companions")
    assert outcome.status == Status.WARN and outcome.remedy.actions[0].__class__.__name__ == "InstallTorch"


def test_a_rocm_build_is_no_cpu_build():
    facts = replay_facts(load_machine("linux-cu130-on-driver-128"))
    info = dataclasses.replace(facts.target.torch, version="2.5.1+rocm6.2", cuda_version=None)
    facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, torch=info))
    outcome = result(facts, "torch.cuda-built", device="cuda")
    assert outcome.status == Status.SKIP and "ROCm" in outcome.summary
