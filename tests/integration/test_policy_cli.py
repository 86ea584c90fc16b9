"""test_policy_cli: the tests of tests/unit/test_policy.py that start processes (the integration tier)."""

import json
import re

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from mps_doctor.checking.registry import REGISTRY
from mps_doctor.policy import policy_from_table
from tests.helpers import doctor
from tests.unit.test_policy import (
    EMPTY_CLAUSES,
    LAYERS,
    assert_within,
    install_requirements,
    policy_file,
    run_in,
    saved_report,
    skipping,
)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.mps-doctor]\ndevice = ["mps", "cpu"]\ntorch = ">=2.9,<2.15"\n'
        'skip = [{ id = "host.memory", reason = "training runs on the cluster" }]\n')
    sub = tmp_path / "src" / "demo"
    sub.mkdir(parents=True)
    return tmp_path, sub


@pytest.mark.slow
def test_check_from_a_subfolder_finds_the_project_policy(project):
    root, sub = project
    code, out, err = run_in(sub, "check", "--quick")
    assert code == 0, out + err
    assert "Policy (%s):" % (root / "pyproject.toml") in out
    assert re.search(r"policy\.torch +torch 2\.13\.0", out) and "skipped by policy: training runs on the cluster" in out


@pytest.mark.slow
def test_unmet_policy_is_exit_1_and_a_broken_one_exit_2(project, tmp_path):
    root, sub = project
    strict = tmp_path / "strict.toml"
    strict.write_text('[tool.mps-doctor]\ntorch = ">=2.99"\n')
    code, out, _ = run_in(sub, "check", "--quick", "--config", str(strict))
    assert code == 1 and "policy.torch" in out and "does not meet the team's >=2.99" in out
    broken = tmp_path / "broken.toml"
    broken.write_text('[tool.mps-doctor]\ntorch = ">=2.x"\n')
    code, out, err = run_in(sub, "check", "--quick", "--config", str(broken))
    assert code == 2 and out == "" and "[tool.mps-doctor].torch: '>=2.x' is not a PEP 440 specifier" in err


@pytest.mark.slow
def test_policy_init_prints_a_policy_that_loads(tmp_path):
    code, out, err = run_in(tmp_path, "policy", "init", "--device", "cpu")
    assert code == 0, err
    table = tomllib.loads(out)["tool"]["mps-doctor"]
    policy = policy_from_table(table)
    assert policy.devices == ("cpu",) and policy.torch == "==2.13.*"


def test_policy_show_names_where_values_came_from(project):
    root, sub = project
    code, out, _ = run_in(sub, "policy", "show", "--format", "json")
    shown = json.loads(out)
    assert code == 0 and shown["torch"] == ">=2.9,<2.15"
    assert shown["origins"]["torch"].endswith("[tool.mps-doctor].torch")


def test_a_policy_skipping_every_layer_is_not_ready_without_torch(tmp_path):
    """The security review's case: a cloned repository's policy skips every layer on a machine without torch."""
    report, policy = saved_report(tmp_path, "m3-torch-missing"), skipping(tmp_path, LAYERS)
    code, out, err = doctor("check", "--from", report, "--config", policy)
    assert code == 1, out + err
    assert "ready to train" not in out
    summary = out.rstrip().splitlines()[-1]
    assert summary.startswith("not ready: device.parity is skipped by the policy in %s (not needed here), but ready needs "
                              "the work it runs on mps" % policy)
    assert summary.endswith("; skipped by the policy in %s: %s" % (policy, ", ".join(
        i for i in LAYERS if REGISTRY[i].runs_on("mps", "Darwin"))))
    assert "# remove the skip entries for device.parity, device.smoke from [tool.mps-doctor] in %s" % policy in out
    code, out, _ = doctor("check", "--from", report, "--config", policy, "--format", "json")
    verdict = json.loads(out)["verdict"]
    assert code == 1 and verdict["ready"] is False and verdict["state"] == "not-ready"
    assert verdict["root_cause"] == "device.parity"


def test_skip_on_the_command_line_cannot_skip_the_work_on_the_device_either(tmp_path):
    report = saved_report(tmp_path, "m3-torch-missing")
    code, out, _ = doctor("check", "--from", report, *[word for i in LAYERS for word in ("--skip", i)])
    assert code == 1 and "ready to train" not in out
    assert "device.parity is skipped by --skip, but ready needs the work it runs on mps" in out
    assert "# run again without --skip device.parity --skip device.smoke" in out


def test_a_policy_skipping_some_layers_is_ready_when_the_work_on_the_device_passes(tmp_path):
    policy = skipping(tmp_path, ("macos.version", "torch.mps-available", "host.memory"))
    code, out, err = doctor("check", "--from", saved_report(tmp_path, "m2-native-torch213"), "--config", policy)
    assert code == 0, out + err
    assert re.search(r"macos\.version +skipped by policy: not needed here", out)
    assert out.rstrip().splitlines()[-1] == (
        "ready to train on mps; 0 failures, 0 warnings, 17 passed; skipped by the policy in %s: macos.version, "
        "torch.mps-available, host.memory" % policy)


def test_select_without_the_work_on_the_device_is_not_ready(tmp_path):
    report = saved_report(tmp_path, "m2-native-torch213")
    code, out, _ = doctor("check", "--from", report, "--select", "python.numpy", "--select", "host.memory",
                          "--format", "json")
    verdict = json.loads(out)["verdict"]
    assert code == 1 and verdict["ready"] is False and verdict["root_cause"] is None
    assert verdict["summary"].startswith("not ready: --select python.numpy, host.memory ran none of the layers that run "
                                         "work on mps (device.parity, device.smoke)")
    code, out, _ = doctor("check", "--from", report, "--select", "python.numpy", "--select", "device.parity")
    assert code == 0 and "the selected checks pass on mps (python.numpy, device.parity), not a full verdict" in out


def test_fix_installs_only_the_torch_the_policy_allows_and_check_shows_that_fix(tmp_path):
    """issue 24 item 1: a .venv without torch under torch >=2.9,<2.14 got torch 2.15 at step 1, 2.13 at step 2."""
    report, policy = saved_report(tmp_path, "m3-torch-missing"), policy_file(tmp_path, {"torch": ">=2.9,<2.14"})
    code, out, err = doctor("fix", "--from", report, "--config", policy, "--print-commands", "--shell", "zsh")
    assert code == 0, err
    installs = [line for line in out.splitlines() if " install " in line and not line.startswith("#")]
    assert len(installs) == 1, out
    (torch,) = install_requirements(out, "torch")
    assert_within(torch, ">=2.9,<2.14")
    assert [str(r) for r in install_requirements(out, "torchvision")] == ["torchvision==0.28.*"]
    code, shown, _ = doctor("check", "--from", report, "--config", policy, env={"SHELL": "/bin/zsh"})
    assert code == 1
    root = shown.split("\n\n")[1]
    assert root.startswith("[✗] Root cause: torch is not installed") and "$ " + installs[0] in root, shown
    assert re.search(r"policy\.torch .*\n +\$ %s\n" % re.escape(installs[0]), shown), shown
    assert "2.15" not in shown.replace("macOS 15.2", "")


def test_fix_torch_outside_the_policy_is_a_usage_error(tmp_path):
    report, policy = saved_report(tmp_path, "m3-torch-missing"), policy_file(tmp_path, {"torch": ">=2.9,<2.14"})
    code, out, err = doctor("fix", "--from", report, "--config", policy, "--torch", "2.15")
    assert code == 2 and out == ""
    assert err.startswith("mps-doctor: error: --torch 2.15: the team's policy in %s requires torch >=2.9,<2.14" % policy)
    code, out, _ = doctor("fix", "--from", report, "--config", policy, "--torch", "2.12", "--print-commands")
    assert code == 0 and [str(r) for r in install_requirements(out, "torch")] == ["torch==2.12"]


@pytest.mark.parametrize(("key", "spec"), EMPTY_CLAUSES)
def test_a_specifier_with_an_empty_clause_is_a_usage_error_naming_the_key(tmp_path, key, spec):
    report = saved_report(tmp_path, "m2-native-torch213")
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "demo"\n\n[tool.mps-doctor]\n%s = %s\n' % (key, json.dumps(spec)))
    code, out, err = doctor("check", "--from", report, "--config", str(path))
    assert code == 2 and out == "", out + err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("mps-doctor: error: %s [tool.mps-doctor].%s: %r is not a PEP 440 specifier: it has an empty "
                          "clause" % (path, key, spec)), err


def test_a_saved_report_whose_policy_has_an_empty_clause_is_refused_too(tmp_path):
    """--from replays the policy saved in a report's options, validated like a file: a hand-edited "," there is exit 2."""
    report = saved_report(tmp_path, "m2-native-torch213")
    with open(report) as handle:
        document = json.load(handle)
    document["options"]["policy"] = dict(document["options"].get("policy") or {}, torch=",")
    with open(report, "w") as handle:
        json.dump(document, handle)
    code, out, err = doctor("check", "--from", report)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, out + err
    assert ".torch: ',' is not a PEP 440 specifier: it has an empty clause" in err
