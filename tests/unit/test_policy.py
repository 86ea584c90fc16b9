"""Team policy: parsing and validation, recorded machines under policies, and a real project on this machine."""

import json
import os
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mps_doctor.checking.model import Options, Status
from mps_doctor.checking.registry import all_checks, device_work_checks
from mps_doctor.policy import Policy, PolicyError, find_pyproject, load_policy, policy_from_table
from mps_doctor.report import report_to_dict, run_checks
from tests.helpers import doctor, shown_commands
from tests.machines import load_machine, machine_names, replay_facts

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FULL = {
    "device": ["mps", "cpu"], "torch": ">=2.9,<2.15", "torchvision": ">=0.24", "python": ">=3.10",
    "min-macos": "14.0", "strict": True,
    "skip": [{"id": "host.memory", "reason": "small CI runners"}],
    "accept": [{"id": "python.numpy", "reason": "no numpy in this project"}],
}


def test_a_complete_policy_loads():
    policy = policy_from_table(FULL, "pyproject.toml")
    assert policy.devices == ("mps", "cpu") and policy.torch == ">=2.9,<2.15" and policy.min_macos == "14.0"
    assert policy.strict is True
    assert policy.reason_to_skip("host.memory") == "small CI runners"
    assert policy.reason_to_accept("python.numpy") == "no numpy in this project"


def test_a_single_device_string_is_a_list_of_one():
    assert policy_from_table({"device": "cuda"}).devices == ("cuda",)


@pytest.mark.parametrize(("table", "named"), [
    ({"devices": ["mps"]}, "unknown key 'devices'"),
    ({"device": "gpu"}, ".device: 'gpu' is not one of"),
    ({"device": []}, ".device: must be"),
    ({"device": 3}, ".device: must be"),
    ({"torch": 2.9}, ".torch: must be a PEP 440 specifier"),
    ({"torch": ">=2.x"}, ".torch: '>=2.x' is not a PEP 440 specifier"),
    ({"python": "three"}, ".python: 'three' is not a PEP 440 specifier"),
    # packaging itself refuses these; they stay refused (an operator with nothing, ~= with a one-part version).
    ({"torch": "=="}, ".torch: '==' is not a PEP 440 specifier"),
    ({"torch": ">="}, ".torch: '>=' is not a PEP 440 specifier"),
    ({"torch": "~=2"}, ".torch: '~=2' is not a PEP 440 specifier"),
    ({"torch": "~=2.*"}, ".torch: '~=2.*' is not a PEP 440 specifier"),
    ({"torchvision": ">=0.24 <0.30"}, ".torchvision: '>=0.24 <0.30' is not a PEP 440 specifier"),
    # packaging 26.2 read "===" as arbitrary equality with an empty version (26.4 refuses it): refused either way.
    ({"torch": "==="}, ".torch: '===' is not a PEP 440 specifier"),
    ({"torch": "===,>=2.9"}, ".torch: '===,>=2.9' is not a PEP 440 specifier"),
    ({"torchvision": ""}, ".torchvision: must be"),
    ({"min-macos": 14}, ".min-macos: must be a macOS version"),
    ({"min-macos": "fourteen"}, ".min-macos: must be a macOS version"),
    ({"strict": "yes"}, ".strict: must be true or false"),
    ({"skip": "host.memory"}, ".skip: must be a list"),
    ({"skip": [{"id": "host.memory"}]}, ".skip[0].reason: a non-empty reason is required"),
    ({"skip": [{"id": "host.memory", "reason": "  "}]}, ".skip[0].reason: a non-empty reason is required"),
    ({"accept": [{"id": "no.such-check", "reason": "x"}]}, ".accept[0].id: 'no.such-check' is not a check id"),
    ({"accept": [{"id": "python.numpy", "reason": "x", "until": "2027"}]}, ".accept[0]: unknown key 'until'"),
    ({"accept": ["python.numpy"]}, ".accept[0]: must be a table"),
])
def test_invalid_policies_name_the_key(table, named):
    with pytest.raises(PolicyError) as caught:
        policy_from_table(table, "pyproject.toml")
    assert named in str(caught.value)


@pytest.mark.parametrize("spec", [">=2.9,<2.15", "  >=2.9  ", ">=2.9 , <2.15", "~=2.9", "== 2.13.*", ">=2.9,\n<2.15"])
def test_specifiers_with_spaces_around_their_clauses_still_load(spec):
    assert policy_from_table({"torch": spec}).torch == spec


KEYS = st.sampled_from(["device", "torch", "torchvision", "python", "min-macos", "skip", "accept", "strict", "other"])
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=12),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["id", "reason", "x"]),
                                                                                   inner, max_size=3), max_leaves=10)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(KEYS, VALUES, max_size=5))
def test_generated_policies_never_crash_the_loader(table):
    try:
        policy = policy_from_table(table)
    except PolicyError:
        return
    assert isinstance(policy, Policy)


def report_under(name, policy, device="auto", required=()):
    facts = replay_facts(load_machine(name))
    return run_checks(facts, Options(device=device, requested_device=device, policy=policy, required=required))


def test_recorded_machine_with_a_matching_pin_is_ready():
    report = report_under("m2-native-torch213", policy_from_table({"torch": "==2.13.*", "device": "mps"}))
    assert report.result("policy.torch").status == Status.PASS and report.exit_code() == 0


def test_recorded_machine_with_a_pin_it_does_not_meet_fails_with_the_pinned_install():
    report = report_under("m2-native-torch213", policy_from_table({"torch": ">=2.14", "torchvision": ">=0.29"}))
    result = report.result("policy.torch")
    assert result.status == Status.FAIL and report.exit_code() == 1
    assert shown_commands(report, "policy.torch") == (
        "/Users/alex/proj/.venv/bin/python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'",)


def test_an_accepted_warning_passes_strict_and_shows_its_reason():
    name = "m2-python-reports-1016"
    plain = report_under(name, Policy(strict=True))
    assert plain.exit_code() == 1
    accepted = report_under(name, policy_from_table({"strict": True, "accept": [
        {"id": "macos.python-view", "reason": "the build machine's Python, replaced next quarter"}]}))
    result = accepted.result("macos.python-view")
    assert result.status == Status.WARN and result.accepted.startswith("the build machine")
    assert accepted.exit_code() == 0 and "1 accepted" in accepted.verdict.summary


def test_an_accepted_failure_still_fails():
    report = report_under("m1-macos13-torch29", policy_from_table({"accept": [{"id": "macos.version", "reason": "x"}]}))
    assert report.exit_code() == 1 and report.result("macos.version").accepted is None


def test_a_skipped_check_shows_the_reason_and_later_layers_still_run():
    report = report_under("m1-macos13-torch29", policy_from_table({"skip": [
        {"id": "macos.version", "reason": "we pin torch in requirements instead"}]}))
    assert report.result("macos.version").status == Status.SKIP
    assert "we pin torch" in report.result("macos.version").summary
    assert report.verdict.root_cause == "torch.mps-available"


def test_hosted_runner_skips_mps_and_checks_the_cpu():
    report = report_under("m1-hosted-runner-vm", Policy())
    assert report.options.device == "cpu" and report.exit_code() == 0
    assert report.result("torch.mps-available").status == Status.SKIP
    assert report.result("device.smoke").status == Status.PASS


@pytest.mark.parametrize("demand", [{"required": ("mps",)}, {"policy": Policy(devices=("mps",))}])
def test_hosted_runner_fails_when_the_gpu_is_demanded(demand):
    facts = replay_facts(load_machine("m1-hosted-runner-vm"))
    report = run_checks(facts, Options(device="auto", requested_device="auto", **demand))
    assert report.options.device == "mps" and report.verdict.root_cause == "torch.mps-available"


def test_device_list_picks_the_first_usable_device():
    report = report_under("linux-x86-cpu-torch", policy_from_table({"device": ["cuda", "cpu"]}))
    assert report.options.device == "cpu" and report.result("policy.device").status == Status.PASS


def test_a_device_the_policy_does_not_allow_fails_the_policy_layer():
    report = report_under("linux-x86-cpu-torch", policy_from_table({"device": "cuda"}), device="cpu")
    assert report.result("policy.device").status == Status.FAIL


def test_find_pyproject_walks_up(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.mps-doctor]\ndevice = 'cpu'\n")
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert find_pyproject(str(deep)) == str(tmp_path / "pyproject.toml")
    assert load_policy(cwd=str(deep)).devices == ("cpu",)


def test_invalid_toml_is_a_usage_error(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.mps-doctor\n")
    with pytest.raises(PolicyError, match="not valid TOML"):
        load_policy(str(path))




def run_in(folder, *args, env=None):
    old = os.getcwd()
    os.chdir(str(folder))
    try:
        return doctor(*args, env=env)
    finally:
        os.chdir(old)










def test_select_runs_only_the_named_checks():
    facts = replay_facts(load_machine("m2-native-torch213"))
    report = run_checks(facts, Options(device="auto", select=("torch.import", "device.smoke")))
    ran = {r.id for r in report.results if r.status != Status.SKIP}
    assert ran == {"torch.import", "device.smoke"}


# --- a skip list never makes the verdict ready without the work on the device ---------------------------------------

LAYERS = tuple(spec.id for spec in all_checks() if spec.kind == "layer")
DEVICE_WORK = device_work_checks()


def saved_report(tmp_path, name):
    """A recorded machine's report saved as JSON, as `check --format json --output` writes it."""
    report = run_checks(replay_facts(load_machine(name)), Options(device="auto", requested_device="auto"))
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(report_to_dict(report)))
    return str(path)


def skipping(tmp_path, ids, reason="not needed here"):
    """A pyproject.toml whose [tool.mps-doctor] skips IDS."""
    path = tmp_path / "pyproject.toml"
    path.write_text('[project]\nname = "cloned"\n\n[tool.mps-doctor]\nskip = [\n%s]\n' % "".join(
        '  { id = "%s", reason = "%s" },\n' % (check_id, reason) for check_id in ids))
    return str(path)








@pytest.mark.parametrize("quick", [False, True])
def test_a_policy_skipping_the_smoke_step_is_not_ready_unless_quick_leaves_it_out(quick):
    facts = replay_facts(load_machine("m2-native-torch213"))
    policy = policy_from_table({"skip": [{"id": "device.smoke", "reason": "too slow"}]}, "pyproject.toml")
    report = run_checks(facts, Options(device="auto", requested_device="auto", quick=quick, policy=policy))
    assert report.verdict.ready is (report.exit_code() == 0) is quick
    if not quick:
        assert report.verdict.root_cause == "device.smoke" and report.result("device.smoke").status == Status.FAIL
    else:
        assert report.result("device.smoke").summary == "skipped by policy: too slow"


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("name", machine_names())
def test_no_policy_skipping_every_check_makes_a_recorded_machine_ready(name, quick):
    facts = replay_facts(load_machine(name))
    everything = Policy(skip=tuple((spec.id, "skip it all") for spec in all_checks()), source="pyproject.toml")
    report = run_checks(facts, Options(device="auto", requested_device="auto", quick=quick, policy=everything))
    assert not report.verdict.ready and report.exit_code() in (1, 3)
    assert "skipped by the policy in pyproject.toml: " in report.verdict.summary




@pytest.mark.parametrize("accept", [False, True])
def test_work_on_the_device_that_could_not_be_judged_is_not_ready(accept):
    """A replay whose device work ran on another device warns at the device layers; that never shows it works, even
    when the policy accepts those warnings."""
    facts = replay_facts(load_machine("m1-rosetta-x86-python"))
    policy = policy_from_table({"accept": [{"id": i, "reason": "x"} for i in DEVICE_WORK]} if accept else {})
    report = run_checks(facts, Options(device="cpu", requested_device="cpu", policy=policy))
    assert report.result("device.parity").status == Status.WARN
    assert not report.verdict.ready and report.exit_code() == 1 and report.verdict.root_cause == "device.parity"
    assert report.verdict.summary.startswith("not ready: device.parity could not judge the work on cpu: not probed on cpu")


# --- the fix plan obeys the policy: every install meets its torch and torchvision specifiers, once ------------------

PLAN_POLICIES = ({"torch": ">=2.9,<2.14"}, {"torch": "==2.11.*"}, {"torchvision": "<0.27"},
                 {"torch": ">=2.9,<2.13.2"}, {"torch": "!=2.15.*", "torchvision": ">=0.25"})


def install_requirements(text, package, per_environment=False):
    """The requirements of PACKAGE in the install commands of a bash or zsh plan (with PER_ENVIRONMENT, as
    (the environment's python or conda name, requirement) pairs)."""
    import shlex

    from packaging.requirements import Requirement

    found = []
    for line in text.splitlines():
        if line.lstrip().startswith("#") or " pip install " not in line:
            continue
        words = shlex.split(line)
        where = words[words.index("--python") + 1] if "--python" in words else (
            words[words.index("-n") + 1] if "-n" in words else next(w for w in words if w.endswith("python")))
        for word in words:
            if re.match(r"%s\s*[=<>!~]" % package, word):
                found.append((where, Requirement(word)) if per_environment else Requirement(word))
    return found


def admitted_versions(requirement):
    """The versions a ==X.Y.* or ==X.Y.Z requirement admits, among patches 0 to 30 of that minor (post-releases
    and local versions aside)."""
    from packaging.version import Version

    exact = [s.version for s in requirement.specifier if s.operator == "==" and not s.version.endswith("*")]
    minor = next(s.version[:-2] for s in requirement.specifier if s.operator == "==" and s.version.endswith("*")) \
        if not exact else ".".join(exact[0].split(".")[:2])
    return [v for v in ("%s.%d" % (minor, patch) for patch in range(31)) if Version(v) in requirement.specifier]


def assert_within(requirement, spec):
    """Every version REQUIREMENT lets pip install meets SPEC, and it lets pip install one at all."""
    from packaging.specifiers import SpecifierSet

    admitted = admitted_versions(requirement)
    assert admitted, requirement
    assert all(v in SpecifierSet(spec) for v in admitted), (str(requirement), spec)


def policy_file(tmp_path, table):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.mps-doctor]\n" + "".join('%s = "%s"\n' % item for item in table.items()))
    return str(path)




@pytest.mark.parametrize("table", PLAN_POLICIES)
@pytest.mark.parametrize("name", machine_names())
def test_every_install_of_every_plan_meets_the_policy_once(name, table):
    """Every torch and torchvision requirement that a plan installs admits only versions the policy allows, and each
    environment gets torch once."""
    from mps_doctor.remedies.plan import build_plan
    from mps_doctor.render.script import render_script

    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    options = Options(device=device, requested_device=device, policy=policy_from_table(table))
    text = render_script(build_plan(run_checks(replay_facts(machine), options), shell="bash", doctor=("mps-doctor",)))
    for package in ("torch", "torchvision"):
        requirements = install_requirements(text, package, per_environment=True)
        for _, requirement in requirements if package in table else ():
            assert_within(requirement, table[package])
        environments = [where for where, _ in requirements]
        assert len(environments) == len(set(environments)), text


def plan_for(name, table, python=None, **plan_options):
    """The bash plan of a recorded machine under the policy TABLE (its Python replaced by PYTHON when given)."""
    import dataclasses

    from mps_doctor.remedies.plan import build_plan
    from mps_doctor.render.script import render_script

    facts = replay_facts(load_machine(name))
    if python is not None:
        interp = dataclasses.replace(facts.target.interpreter, version=python)
        facts = dataclasses.replace(facts, target=dataclasses.replace(facts.target, interpreter=interp))
    report = run_checks(facts, Options(device="auto", requested_device="auto", policy=policy_from_table(table)))
    return report, render_script(build_plan(report, shell="bash", doctor=("mps-doctor",), **plan_options))


def test_a_new_environment_gets_a_python_the_policy_allows():
    """Python 3.16 is unsupported and the team requires 3.11: the one new environment is a 3.11 one (it was 3.12)."""
    _, text = plan_for("m3-python316-no-torch", {"python": ">=3.11,<3.12"})
    assert "uv venv --python cpython-3.11-macos-aarch64-none /Users/alex/proj/.venv-py311" in text
    assert "3.12" not in text and text.count("\nuv venv ") == 1


def test_a_torch_pin_only_another_python_gets_makes_a_new_environment_not_an_install_here():
    """torch ==2.15.* on Python 3.10 (2.15 needs 3.11+): no install into the 3.10 environment, one environment with a
    Python that torch 2.15 supports, torch 2.15 in it."""
    report, text = plan_for("m3-torch-missing", {"torch": "==2.15.*"}, python=(3, 10, 14))
    assert report.result("policy.torch").remedy.actions[0].python == "3.12"
    installs = install_requirements(text, "torch", per_environment=True)
    assert [(where, str(r)) for where, r in installs] == [("/Users/alex/proj/.venv-py312/bin/python", "torch==2.15.*")]


def test_a_policy_no_release_meets_here_installs_nothing():
    """An Intel Mac gets torch 2.2 at most: under torch >=2.9 the plan says so instead of installing 2.2."""
    _, text = plan_for("intel-mac-torch222", {"torch": ">=2.9"})
    assert not install_requirements(text, "torch")
    assert "# no torch release that installs here meets the team's torch >=2.9: see mps-doctor policy show" in text




# A typo never weakens the gate: packaging's SpecifierSet drops empty clauses, so "," parsed to a set that admits every
# torch, and ">=2.9,," to ">=2.9". Each is exit 2 with one line naming the key.
EMPTY_CLAUSES = [
    ("torch", ","), ("torch", ">=2.9,,"), ("torch", ",>=2.9"), ("torch", ">=2.9,"), ("torch", " , "), ("torch", ",,"),
    ("torchvision", ">=0.24, ,<0.30"), ("torchvision", "\t,"), ("python", ">=3.10,\u00a0"),
]






# --- policy init writes what the release table says ---------------------------------------------------------------

def initial_policy(name):
    """`policy init`'s text for a recorded machine."""
    from mps_doctor.policy_init import render_policy

    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    return render_policy(run_checks(replay_facts(machine), Options(device=device, requested_device=device)))


def test_policy_init_without_torch_suggests_the_pair_of_the_release_for_this_machine():
    """issue 24 item 7: torchvision ==0.28.* was written beside torch 2.15 (the table pairs 0.29)."""
    from mps_doctor.versions import load_releases

    current = load_releases().current
    lines = initial_policy("m3-torch-missing").splitlines()
    assert '# torch = "==%s"' % current.torch_pin in "\n".join(lines)
    assert [line.split("#")[1].strip() for line in lines if line.startswith("# torchvision =")] == [
        'torchvision = "==%s"' % current.torchvision_pin]
    text = initial_policy("m1-macos13-wants-mps")
    assert re.search(r'# torch = "==2\.8\.\*"    # no torch version here: .*; the newest release '
                     r'for this machine is 2\.8', text)
    assert '# torchvision = "==0.23.*"' in text


@pytest.mark.parametrize("name", machine_names())
def test_policy_init_pairs_torch_and_torchvision_as_the_release_table_does(name):
    """Written or suggested (commented), torch is a row's pin and torchvision that row's; the policy loads."""
    from mps_doctor.versions import load_releases

    text = initial_policy(name)
    uncommented = re.sub(r"(?m)^# ((?:torch|torchvision) = \"[^\"]*\").*$", r"\1", text)
    table = tomllib.loads(uncommented)["tool"]["mps-doctor"]
    policy_from_table(table)
    torch = table.get("torch")
    assert torch and torch.startswith("==")
    release, exact = load_releases().row_for(torch[2:].replace(".*", ""))
    if exact:
        assert torch == "==" + release.torch_pin
        assert table.get("torchvision") == "==" + release.torchvision_pin
    else:
        assert not re.search(r"(?m)^torchvision =", text) and "the release table has no row for torch" in text


@pytest.mark.parametrize("name", machine_names())
def test_the_policy_that_policy_init_writes_passes_on_its_own_machine(name):
    """Pasted into the project, the policy written from a machine fails none of its policy checks on that machine: a
    torch 2.13 without torchvision got an active `torchvision = "==0.28.*"`, and then "torchvision (not installed)
    does not meet the team's ==0.28.*"."""
    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    policy = policy_from_table(tomllib.loads(initial_policy(name))["tool"]["mps-doctor"])
    report = run_checks(replay_facts(machine), Options(device=device, requested_device=device, policy=policy))
    judged = [r for r in report.results if r.id.startswith("policy.")]
    assert {"policy.device", "policy.python"} <= {r.id for r in judged}
    assert [(r.id, r.status, r.summary) for r in judged
            if r.status != Status.PASS and (r.id, r.status, r.summary) != ("policy.macos", Status.SKIP, "not macOS")] == []


def test_policy_init_writes_torchvision_as_a_comment_where_it_is_not_installed():
    text = initial_policy("linux-pypi-torch213-driver-570")
    assert re.search(r'(?m)^torch = "==2\.13\.\*"$', text) and not re.search(r"(?m)^torchvision", text)
    assert ('# torchvision = "==0.28.*"    # not installed here; the release table pairs it with torch 2.13, for when '
            "the team installs torchvision") in text
    assert re.search(r'(?m)^torchvision = "==0\.28\.\*"$', initial_policy("m2-native-torch213"))


def test_a_plan_that_moves_to_a_new_environment_installs_torch_there_only():
    """torch missing and the team requires Python 3.13: the 3.12 environment gets no install (it was torch there, and
    none in the new environment), the new one gets the nearest allowed Python and torch; check shows those steps for
    the root cause."""
    report, text = plan_for("m3-torch-missing", {"python": ">=3.13"})
    new = "/Users/alex/proj/.venv-team/bin/python"
    assert "uv venv --python cpython-3.13-macos-aarch64-none /Users/alex/proj/.venv-team" in text
    assert [(where, str(r)) for where, r in install_requirements(text, "torch", per_environment=True)] == [
        (new, "torch==2.15.*")]
    assert shown_commands(report, "torch.import") == shown_commands(report, "policy.python")
    assert any(new in command for command in shown_commands(report, "torch.import"))
