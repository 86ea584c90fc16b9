"""`mps-doctor fix`: golden plans per recorded machine and shell, shell syntax, safety, and a real run here."""

import os
import re
import shutil

import pytest

from mps_doctor.checking.model import Options
from mps_doctor.remedies.plan import build_plan
from mps_doctor.remedies.setup import python_source
from mps_doctor.render.script import fish_quote, render_script
from mps_doctor.report import run_checks
from tests.goldens import assert_golden, assert_no_golden, golden_path
from tests.machines import load_machine, machine_names, replay_facts

SHELLS = ("zsh", "bash", "fish")
FORBIDDEN = [r"\bsudo\b", r"\brm\b", r"\bcurl\b", r"\bwget\b", r"\|\s*(sh|bash|zsh)\b", r"conda (env )?remove",
             r"\buninstall\b", r"--clear\b", r"\bmv\b"]


def plan_text(name, shell):
    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    report = run_checks(replay_facts(machine), Options(device=device, requested_device=device))
    return render_script(build_plan(report, shell=shell, doctor=("mps-doctor",)))


def plan_golden(name, shell):
    return golden_path("fix", "%s.%s" % (name, "fish" if shell == "fish" else shell + ".sh"))


def body(text):
    """The steps, without the header (shebang and the setup line name the shell)."""
    return text.split("\n\n", 1)[1] if "\n\n" in text else text.rstrip().splitlines()[-1]


@pytest.mark.parametrize("name", machine_names())
def test_golden_plans(name):
    """zsh always has a golden file; bash and fish have one where they differ from zsh beyond the shebang."""
    zsh = plan_text(name, "zsh")
    for shell in SHELLS:
        text = plan_text(name, shell)
        path = plan_golden(name, shell)
        if shell == "zsh" or body(text) != body(zsh):
            assert_golden(path, text)
        else:
            assert_no_golden(path)


def commands_of(text):
    return [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.mark.parametrize("name", machine_names())
@pytest.mark.parametrize("shell", SHELLS)
def test_plans_are_safe_and_pin_pairs(name, shell):
    for line in commands_of(plan_text(name, shell)):
        for pattern in FORBIDDEN:
            assert not re.search(pattern, line), (pattern, line)
        if "torch==" in line and "pip install" in line and "torch==2.2.2" not in line:
            assert "torchvision==" in line, line






def test_shell_tools_are_really_there_in_ci():
    if os.environ.get("CI"):
        assert shutil.which("shellcheck") and shutil.which("fish") and shutil.which("zsh")


@pytest.mark.parametrize(("word", "quoted"), [("torch==2.13.*", "'torch==2.13.*'"), ("plain", "plain"),
                                              ("it's", "'it\\'s'"), ("a\\b", "'a\\\\b'")])
def test_fish_quoting(word, quoted):
    assert fish_quote(word) == quoted


def test_ready_machine_has_nothing_to_fix():
    text = plan_text("m2-native-torch213", "zsh")
    assert text.rstrip().endswith("# nothing to fix") and not commands_of(text)


def test_externally_managed_python_gets_a_venv_before_any_install():
    steps = commands_of(plan_text("m2-homebrew-python-no-venv", "zsh"))
    assert steps[0] == "/opt/homebrew/bin/python3 -m venv .venv"
    assert steps[2].startswith(".venv/bin/python -m pip install 'torch==2.15.*'")


def test_new_environment_makes_old_environment_warnings_moot():
    text = plan_text("m1-conda-osx64", "zsh")
    assert "conda.platform" not in text and text.count("Check again") == 1


@pytest.mark.parametrize(("real", "source"), [
    ("/Users/a/.local/share/uv/python/cpython-3.12.7-macos-aarch64-none/bin/python3.12", "uv"),
    ("/opt/homebrew/Cellar/python@3.12/3.12.7/bin/python3.12", "homebrew"),
    ("/usr/local/Cellar/python@3.11/3.11.9/bin/python3.11", "homebrew-intel"),
    ("/Users/a/.pyenv/versions/3.11.9/bin/python3.11", "pyenv"),
    ("/Users/a/miniforge3/envs/x/bin/python3.12", "miniforge"),
    ("/Library/Frameworks/Python.framework/Versions/3.12/bin/python3.12", "python.org"),
    ("/usr/bin/python3", "system"),
])
def test_python_source_heuristics(real, source):
    assert python_source(real, "", "") == source










def plan_under(name, policy):
    machine = load_machine(name)
    report = run_checks(replay_facts(machine), Options(device="auto", requested_device="auto", policy=policy))
    return render_script(build_plan(report, shell="bash"))


def test_policy_pins_become_a_pinned_install_step():
    from mps_doctor.policy import policy_from_table

    text = plan_under("m2-native-torch213", policy_from_table({"torch": ">=2.14"}))
    assert "Install the torch release the team pins" in text
    assert "/Users/alex/proj/.venv/bin/python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'" in text


def test_a_plan_names_the_policy_file_read_here_and_strict_where_it_runs_mps_doctor_again():
    """The closing check (and `policy show`) of a plan for this machine carry --config FILE and --strict, so that they
    judge as the run did from any folder; a plan for a saved report's machine names no file of this one."""
    from dataclasses import replace

    from mps_doctor.policy import policy_from_table

    policy = policy_from_table({"python": "<3.0"}, "/team/pyproject.toml")
    options = Options(device="cpu", requested_device="cpu", policy=policy, strict=True, config="/team/pyproject.toml")
    report = run_checks(replay_facts(load_machine("linux-x86-cpu-torch")), options)
    here = render_script(build_plan(report, shell="bash", doctor=("mps-doctor",))).rstrip().splitlines()
    assert "mps-doctor policy show --config /team/pyproject.toml" in here
    assert here[-1].endswith(" --device cpu --config /team/pyproject.toml --strict")
    replayed = replace(report, options=replace(options, replayed_from="report.json"))
    there = render_script(build_plan(replayed, shell="bash")).rstrip().splitlines()
    assert "mps-doctor policy show" in there and there[-1].endswith(" --device cpu --strict")
    assert not [line for line in there if "/team/pyproject.toml" in line]


def test_accepted_warnings_are_not_in_the_plan():
    from mps_doctor.policy import policy_from_table

    name = "m2-python-reports-1016"
    assert "macos.python-view" in plan_text(name, "bash") or "old macOS SDK" in plan_text(name, "bash")
    accepted = plan_under(name, policy_from_table({"accept": [{"id": "macos.python-view", "reason": "known"}]}))
    assert accepted.rstrip().endswith("# nothing to fix")




@pytest.mark.parametrize(("torch", "expected"), [("2.10", "torchaudio==2.10.*"), ("2.13", "torchaudio>=2.11,<2.14"),
                                                 ("1.12", "torchaudio==0.12.*")])
def test_torchaudio_requirement_follows_the_table(torch, expected):
    from mps_doctor.versions import load_releases

    table = load_releases()
    release, _ = table.row_for(torch)
    assert release.torchaudio_requirement(table.torchaudio_stable_abi_from) == expected


def test_a_pinned_alternative_is_titled_by_the_release_it_installs():
    machine = load_machine("m1-macos13-wants-mps")
    report = run_checks(replay_facts(machine), Options(device="mps", requested_device="mps"))
    plan = build_plan(report, shell="zsh", torch_pin="2.5")
    task = next(step for step in plan.steps if step.key == "pin-torch")
    assert task.title == "Or: install torch 2.5 and torchvision, pinned together (--torch)"
    assert [a for a in task.commands[0].argv if a.startswith("torch")] == ["torch==2.5", "torchvision==0.20.*"]


def too_old_plan(real, tools=None, distro=None, conda_meta=False):
    """The fix plan for the CI box's facts with a Python 2.7 at REAL (too old for the probe), TOOLS on PATH and DISTRO."""
    import dataclasses

    from mps_doctor.facts import Interpreter

    facts = replay_facts(load_machine("linux-x86-cpu-torch"))
    prefix = real.rsplit("/bin/", 1)[0]
    interp = Interpreter(version=(2, 7, 18), too_old=True, executable=real, executable_realpath=real, prefix=prefix,
                         base_prefix=prefix, conda_meta=conda_meta)
    host = dataclasses.replace(facts.host, tools=tools or {}, linux_distro=distro or facts.host.linux_distro)
    target = dataclasses.replace(facts.target, python=real, interpreter=interp, torch=None, parity=None, smoke=None)
    report = run_checks(dataclasses.replace(facts, host=host, target=target), Options(device="auto", requested_device="auto"))
    return render_script(build_plan(report, shell="bash", doctor=("mps-doctor",)))


@pytest.mark.parametrize(("real", "tools", "distro", "expected"), [
    # pyenv's Python: pyenv installs the new one, even with uv on PATH.
    ("/home/dev/.pyenv/versions/2.7.18/bin/python2.7", {"uv": "/home/dev/.local/bin/uv"}, None,
     ["pyenv install --skip-existing 3.12", "PYENV_VERSION=3.12 pyenv exec python -m venv .venv-py312"]),
    # uv's own Python: uv, whether or not uv is on the doctor's PATH.
    ("/home/dev/.local/share/uv/python/cpython-2.7.18-linux-x86_64-gnu/bin/python2.7", {}, None,
     ["uv python install 3.12", "uv venv --python 3.12 .venv-py312"]),
    # Homebrew on Linux: its brew, in its prefix.
    ("/home/linuxbrew/.linuxbrew/Cellar/python@2/2.7.18/bin/python2.7", {}, None,
     ["/home/linuxbrew/.linuxbrew/bin/brew install python@3.12",
      "/home/linuxbrew/.linuxbrew/bin/python3.12 -m venv .venv-py312"]),
    # The distribution's Python: its packages, named, with the other ways beside them.
    ("/usr/bin/python2.7", {}, {"id": "ubuntu", "version": "20.04", "name": "Ubuntu 20.04.6 LTS"},
     ["# Install Python 3.12 from Ubuntu 20.04.6 LTS's packages (apt) first if it has it, else with pyenv, or uv: "
      "https://docs.astral.sh/uv/guides/install-python/", "python3.12 -m venv .venv-py312"]),
])
def test_a_too_old_python_is_replaced_the_way_it_was_installed(real, tools, distro, expected):
    lines = too_old_plan(real, tools, distro).splitlines()
    start = lines.index(expected[0])
    assert lines[start:start + len(expected)] == expected


def test_a_conda_environment_on_linux_is_replaced_by_conda_without_mps_wording():
    text = too_old_plan("/home/dev/miniforge3/envs/old/bin/python2.7", conda_meta=True)
    assert "conda create -y -n torch-py312 python=3.12" in text
    assert "pip installs PyTorch's own CPU or CUDA wheels" in text and "MPS" not in text
