"""Device choice shared by the probe and the report (devices.py), on recorded machines."""

import pytest

from mps_doctor.checking.model import Options, Policy
from mps_doctor.devices import child_device, hosted_cpu_fallback, resolve_device, usable
from tests.machines import load_machine, replay_facts

HOSTED = {"GITHUB_ACTIONS": "true", "RUNNER_ENVIRONMENT": "github-hosted"}


@pytest.mark.parametrize("requested, policy_devices, env, system, vmm, expected", [
    ("mps", ("cpu",), HOSTED, "Darwin", True, "mps"),
    ("auto", ("cuda", "cpu"), {}, "Linux", None, "cuda,cpu"),
    ("auto", (), HOSTED, "Darwin", None, "cpu"),
    ("auto", (), {"CI": "1"}, "Darwin", True, "cpu"),
    ("auto", (), {"CI": "1"}, "Darwin", False, "auto"),
    ("auto", (), HOSTED, "Linux", None, "auto"),
])
def test_child_device_is_decided_before_the_host_facts(requested, policy_devices, env, system, vmm, expected):
    assert child_device(requested, policy_devices, env, system, vmm) == expected


def test_auto_on_a_hosted_runner_checks_the_cpu_unless_mps_is_demanded():
    facts = replay_facts(load_machine("m1-hosted-runner-vm"))
    assert resolve_device(Options("auto"), facts) == "cpu"
    assert hosted_cpu_fallback("cpu", "auto", facts.host)
    assert resolve_device(Options("auto", required=("mps",)), facts) == "mps"
    assert not hosted_cpu_fallback("cpu", "cpu", facts.host)


def test_a_policy_list_resolves_to_its_first_usable_device_else_its_first():
    facts = replay_facts(load_machine("linux-x86-cpu-torch"))
    assert not usable("cuda", facts) and usable("cpu", facts)
    assert resolve_device(Options("auto", policy=Policy(devices=("cuda", "cpu"))), facts) == "cpu"
    assert resolve_device(Options("auto", policy=Policy(devices=("cuda", "mps"))), facts) == "cuda"


def test_auto_picks_mps_on_a_mac_and_cuda_where_torch_sees_a_gpu():
    assert resolve_device(Options("auto"), replay_facts(load_machine("m2-native-torch213"))) == "mps"
    assert resolve_device(Options("auto"), replay_facts(load_machine("linux-h200-cuda"))) == "cuda"
    mac = replay_facts(load_machine("m2-native-torch213"))
    assert not hosted_cpu_fallback("cpu", "auto", mac.host)
