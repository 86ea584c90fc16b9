"""What a newcomer meets first: the default target, strict verdicts, shadowing, fix pins, replays, wording."""

import json
import os
import subprocess
import sys

import pytest

from mps_doctor.checking.model import Options
from mps_doctor.report import report_to_dict, run_checks
from tests.helpers import TARGET_PYTHON, doctor, make_venv, site_packages
from tests.machines import load_machine, replay_facts
from tests.paths import ROOT_DIR


def saved_report(tmp_path, name, device="auto"):
    """A recorded machine's report saved as JSON, as `check --format json --output` writes it."""
    report = run_checks(replay_facts(load_machine(name)), Options(device=device, requested_device=device))
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps(report_to_dict(report)))
    return str(path)


# --- 2. strict means not ready, everywhere ---------------------------------------------------------------------


def test_strict_with_a_warning_is_not_ready_in_the_summary_and_the_json(tmp_path, cli):
    report = saved_report(tmp_path, "m2-python-reports-1016")
    result = cli("check", "--from", report, "--strict", "--format", "json")
    doc = json.loads(result.output)
    assert result.exit_code == 1
    assert doc["verdict"]["ready"] is False and doc["verdict"]["state"] == "not-ready"
    assert doc["verdict"]["root_cause"] == "macos.python-view"
    text = cli("check", "--from", report, "--strict")
    assert text.exit_code == 1
    assert "ready to train" not in text.output and "not ready (--strict" in text.output
    plain = cli("check", "--from", report, "--format", "json")
    assert plain.exit_code == 0 and json.loads(plain.output)["verdict"]["ready"] is True


def test_strict_policy_makes_the_verdict_not_ready_too(tmp_path, cli):
    report = saved_report(tmp_path, "m2-python-reports-1016")
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.mps-doctor]\nstrict = true\n")
    result = cli("check", "--from", report, "--config", str(config), "--format", "json")
    doc = json.loads(result.output)
    assert result.exit_code == 1 and doc["verdict"]["ready"] is False
    assert "strict = true" in doc["verdict"]["summary"]


# --- 3. a local torch that shadows the installed one ------------------------------------------------------------


def shadow_env(folder):
    return {"PYTHONPATH": str(folder)}


@pytest.mark.parametrize("make", ["package", "module"])
def test_a_torch_on_pythonpath_is_named_as_the_shadow(tmp_path, make):
    if make == "package":
        (tmp_path / "torch").mkdir()
        (tmp_path / "torch" / "__init__.py").write_text("")
        shadow = tmp_path / "torch"
    else:
        (tmp_path / "torch.py").write_text("x = 1\n")
        shadow = tmp_path / "torch.py"
    code, out, err = doctor("check", "--device", "cpu", "--quick", "--python", sys.executable,
                            "--format", "json", env=shadow_env(tmp_path))
    doc = json.loads(out)
    result = next(r for r in doc["results"] if r["id"] == "torch.import")
    assert code == 1, err
    assert result["status"] == "fail" and str(shadow) in result["summary"] and "PYTHONPATH" in result["summary"]
    assert "--force-reinstall" not in json.dumps(result) and "dependency" not in result["summary"]
    assert doc["facts"]["target"]["torch"]["shadows"] == [{"path": str(shadow), "where": "PYTHONPATH"}]


def test_a_torch_folder_in_the_working_directory_fails(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("")
    full_env = dict(os.environ, NO_COLOR="1", PYTHONPATH=ROOT_DIR)
    done = subprocess.run([sys.executable, "-m", "mps_doctor", "check", "--device", "cpu", "--quick", "--python",
                           sys.executable], cwd=str(tmp_path), env=full_env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "%s in the working directory shadows torch" % (tmp_path / "torch") in done.stdout


def test_an_installed_torch_beside_its_metadata_is_no_shadow(tmp_path):
    sys.path.insert(0, os.path.join(ROOT_DIR, "mps_doctor", "child"))
    try:
        import mpsd_probe
    finally:
        sys.path.pop(0)
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("")
    assert mpsd_probe.local_torch(str(tmp_path)) == str(tmp_path / "torch")
    (tmp_path / "torch-2.13.0.dist-info").mkdir()
    assert mpsd_probe.local_torch(str(tmp_path)) is None


# --- 7. a missing dependency of torch is installed, torch is left alone --------------------------------------------


@pytest.mark.parametrize("module, dist", [("typing_extensions", "typing-extensions"), ("sympy", "sympy"),
                                         ("jinja2", "jinja2")])
def test_a_missing_dependency_module_is_installed_not_torch_reinstalled(tmp_path, module, dist):
    python = make_venv(tmp_path / "venv", TARGET_PYTHON)
    folder = os.path.join(site_packages(python), "torch")
    os.makedirs(folder)
    with open(os.path.join(folder, "__init__.py"), "w") as handle:
        handle.write("import %s\n" % module)
    code, out, err = doctor("check", "--python", python, "--device", "cpu", "--quick")
    assert code == 1, err
    assert "torch's dependency %s is not installed" % dist in out
    assert "%s -m pip install %s" % (python, dist) in out
    code, plan, err = doctor("fix", "--print-commands", "--python", python, "--device", "cpu", "--quick")
    assert code == 0, err
    commands = [line for line in plan.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "%s -m pip install %s" % (python, dist)
    assert "--force-reinstall" not in plan and "torchvision" not in plan


# --- 1. installed with pipx or `uv tool`, the doctor diagnoses the user's environment --------------------------------

ROOT = ROOT_DIR
DOCTOR_DEPENDENCIES = ("click", "packaging", "psutil", "distro")


def link_packages(into, names):
    """A folder holding links to the test interpreter's copies of NAMES (and nothing else, torch above all)."""
    into.mkdir()
    source = site_packages(sys.executable)
    for entry in os.listdir(source):
        if entry.split("-")[0].split(".")[0].lower() in names:
            os.symlink(os.path.join(source, entry), str(into / entry))
    return str(into)


@pytest.mark.slow
def test_built_wheel_in_its_own_venv_diagnoses_the_active_venv(tmp_path):
    """Like pipx: the doctor in a private venv without torch, the user's venv with torch active via VIRTUAL_ENV."""
    import shutil

    # Built from a copy: a build backend may write build/ or *.egg-info beside the sources; the checkout stays clean.
    source = tmp_path / "source"
    shutil.copytree(ROOT, str(source), ignore=shutil.ignore_patterns(".*", "tests", "build", "dist", "*.egg-info",
                                                                      "__pycache__"))
    wheels = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                    str(source)], check=True, cwd=str(tmp_path))
    wheel = str(next(wheels.glob("mps_doctor-*.whl")))
    home = tmp_path / "pipx" / "venvs" / "mps-doctor"
    doctor_python = make_venv(home)
    subprocess.run([sys.executable, "-m", "pip", "--python", doctor_python, "install", "-q", "--no-deps", wheel],
                   check=True)
    with open(os.path.join(site_packages(doctor_python), "deps.pth"), "w") as handle:
        handle.write(link_packages(tmp_path / "deps", DOCTOR_DEPENDENCIES) + "\n")
    code = subprocess.run([doctor_python, "-c", "import torch"], stderr=subprocess.DEVNULL).returncode
    assert code != 0, "the doctor's own venv must not have torch"
    user = tmp_path / "project" / ".venv-user"
    user_python = make_venv(user, TARGET_PYTHON)
    with open(os.path.join(site_packages(user_python), "torch-from-test-env.pth"), "w") as handle:
        handle.write(site_packages(TARGET_PYTHON) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH")}
    env.update(VIRTUAL_ENV=str(user), NO_COLOR="1")
    done = subprocess.run([str(home / "bin" / "mps-doctor"), "check", "--device", "cpu", "--quick", "--format", "json"],
                          cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=300)
    doc = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr + done.stdout[-3000:]
    assert doc["facts"]["target"]["python"] == user_python
    assert doc["facts"]["target"]["chosen_because"] == "the active virtual environment (VIRTUAL_ENV)"
    assert doc["facts"]["target"]["torch"]["version"].startswith("2.")
    env.pop("VIRTUAL_ENV")
    env["PATH"] = os.path.dirname(user_python) + os.pathsep + env.get("PATH", "")
    text = subprocess.run([str(home / "bin" / "mps-doctor"), "check", "--device", "cpu", "--quick"], cwd=str(tmp_path),
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300).stdout
    assert "Python chosen: python3 on PATH (mps-doctor runs in its own venv, which holds nothing but mps-doctor)" in text


def test_default_target_order(tmp_path):
    from mps_doctor.probe.default_target import default_python

    venv_a, conda, project, system = tmp_path / "a", tmp_path / "conda", tmp_path / "proj", tmp_path / "usr"
    for prefix in (venv_a, conda, project / ".venv", system):
        (prefix / "bin").mkdir(parents=True)
        for name in ("python", "python3"):
            (prefix / "bin" / name).write_text("")
            (prefix / "bin" / name).chmod(0o755)
    (project / "src").mkdir()
    own, private = "/opt/doctor/bin/python", tmp_path / "home" / ".local" / "pipx" / "venvs" / "mps-doctor"
    private.mkdir(parents=True)
    (private / "pipx_metadata.json").write_text("{}")
    on_path = str(system / "bin" / "python3")

    def choose(env, cwd=str(tmp_path), prefix=str(private)):
        return default_python(dict(env, PATH=str(system / "bin")), cwd, own=own, own_prefix=prefix)

    both = {"VIRTUAL_ENV": str(venv_a), "CONDA_PREFIX": str(conda)}
    assert choose(both) == (str(venv_a / "bin" / "python"), "the active virtual environment (VIRTUAL_ENV)")
    assert choose({"CONDA_PREFIX": str(conda)})[0] == str(conda / "bin" / "python")
    assert choose({}, cwd=str(project / "src"))[0] == str(project / ".venv" / "bin" / "python")
    assert choose({}) == (on_path, "python3 on PATH (mps-doctor runs in pipx's environment)")
    assert choose({}, prefix="/opt/doctor")[0] == own
    alone = default_python({"PATH": str(tmp_path / "nowhere")}, str(tmp_path), own=own, own_prefix=str(private))
    assert alone == (own, "mps-doctor's own environment (no other Python found; mps-doctor runs in pipx's environment)")
    gone = default_python({"VIRTUAL_ENV": str(tmp_path / "gone"), "PATH": ""}, str(tmp_path), own=own,
                          own_prefix=str(private))
    assert gone[0] == own
    uv_tool = tmp_path / "home" / ".local" / "share" / "uv" / "tools" / "mps-doctor"
    uv_tool.mkdir(parents=True)
    (uv_tool / "uv-receipt.toml").write_text("[tool]\n")
    assert choose({}, prefix=str(uv_tool))[0] == on_path


# --- 5. fix --torch: the title says what is installed, and only known releases are accepted --------------------------


def test_fix_torch_pin_titles_and_installs_the_same_release(tmp_path):
    report = saved_report(tmp_path, "linux-p40-sm61-cu130")
    code, out, err = doctor("fix", "--from", report, "--torch", "2.12")
    assert code == 0, err
    assert "Reinstall torch 2.12 from the CUDA" in out and "torch 2.13" not in out
    assert "torch==2.12 'torchvision==0.27.*'" in out


@pytest.mark.parametrize("version", ["9.9", "1.0", "3.0.1"])
def test_fix_torch_outside_the_release_table_is_exit_2_naming_the_range(tmp_path, version):
    from mps_doctor.versions import load_releases

    table = load_releases()
    report = saved_report(tmp_path, "m3-torch-missing")
    code, out, err = doctor("fix", "--from", report, "--torch", version)
    assert code == 2 and out == ""
    assert "--torch %s" % version in err
    assert "torch %s to %s" % (table.releases[0].torch, table.releases[-1].torch) in err


def test_fix_torch_in_the_table_always_pairs_torchvision(tmp_path):
    report = saved_report(tmp_path, "m3-torch-missing")
    code, out, err = doctor("fix", "--from", report, "--torch", "1.12.1", "--print-commands")
    assert code == 0, err
    assert "torch==1.12.1 'torchvision==0.13.*'" in out


# --- 6. fix --manager conda for a venv never treats the venv as conda's base ----------------------------------------


def rosetta_plan(tools=None, doctor=("mps-doctor",)):
    from dataclasses import replace

    from mps_doctor.remedies.plan import build_plan
    from mps_doctor.render.script import render_script

    facts = replay_facts(load_machine("m1-rosetta-x86-python"))
    if tools is not None:
        facts = replace(facts, host=replace(facts.host, tools=dict(facts.host.tools, **tools)))
    report = run_checks(facts, Options(device="auto", requested_device="auto"))
    return render_script(build_plan(report, manager="conda", shell="zsh", doctor=doctor))


def test_conda_plan_for_a_venv_report_does_not_use_the_venv_as_conda_base():
    plan = rosetta_plan()
    assert "/.venv/envs/" not in plan
    assert 'conda config --file "$(conda info --base)"/envs/torch-arm64/.condarc --set subdir osx-arm64' in plan
    assert plan.splitlines()[-1] == 'mps-doctor check --python "$(conda info --base)"/envs/torch-arm64/bin/python'
    with_exe = rosetta_plan({"conda": "/opt/homebrew/Caskroom/miniforge/base/condabin/conda"})
    assert "conda config --file /opt/homebrew/Caskroom/miniforge/base/envs/torch-arm64/.condarc" in with_exe
    assert with_exe.splitlines()[-1] == (
        "mps-doctor check --python /opt/homebrew/Caskroom/miniforge/base/envs/torch-arm64/bin/python")


# --- 9. a replay for another device than the probe ran on is a usage mismatch ----------------------------------------


def test_replaying_a_mac_report_for_the_cpu_is_exit_2_saying_why(tmp_path):
    report = saved_report(tmp_path, "m1-rosetta-x86-python")
    code, out, err = doctor("check", "--from", report, "--device", "cpu")
    assert code == 2 and out == ""
    assert "--device cpu: this report's device work was probed for mps" in err
    same, _, _ = doctor("check", "--from", saved_report(tmp_path, "linux-x86-cpu-torch"), "--device", "cpu")
    assert same == 0


def test_a_replayed_stage_for_another_device_is_never_a_check_error():
    facts = replay_facts(load_machine("m1-rosetta-x86-python"))
    report = run_checks(facts, Options(device="cpu", requested_device="cpu"))
    parity = report.result("device.parity")
    assert parity.status.value == "warn" and "not probed on cpu" in parity.summary
    assert report.verdict.state != "doctor-failed"


# --- 13. the environment summary -------------------------------------------------------------------------------------


def venv_with_test_torch(folder):
    """A venv of the target interpreter whose site-packages reaches its torch through a .pth file."""
    python = make_venv(folder, TARGET_PYTHON)
    with open(os.path.join(site_packages(python), "test-env.pth"), "w") as handle:
        handle.write(site_packages(TARGET_PYTHON) + "\n")
    return python


@pytest.mark.slow
def test_environment_summary_in_json_markdown_and_verbose_text(tmp_path):
    python = venv_with_test_torch(tmp_path / "venv")
    info = os.path.join(site_packages(python), "transformers-4.99.0.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as handle:
        handle.write("Metadata-Version: 2.1\nName: transformers\nVersion: 4.99.0\n")
    code, out, err = doctor("check", "--python", python, "--device", "cpu", "--quick", "--format", "json")
    doc = json.loads(out)
    environment = doc["environment"]
    assert "transformers 4.99.0" in environment["packages"]
    assert "BLAS" in environment["torch build"] and "OpenMP" in environment["torch build"]
    assert environment["libc"].startswith("glibc ") and environment["CPU"]
    build = doc["facts"]["target"]["torch"]["build"]
    assert build["BLAS_INFO"] and build["TORCH_VERSION"] == doc["facts"]["target"]["torch"]["version"].split("+")[0]
    code, text, err = doctor("check", "--python", python, "--device", "cpu", "--quick", "-v")
    assert "\nEnvironment:\n" in text and "transformers 4.99.0" in text
    code, markdown, err = doctor("check", "--python", python, "--device", "cpu", "--quick", "--format", "markdown")
    assert "- torch build: " in markdown and "- packages: " in markdown


# --- 14. the doctor knows its own age ----------------------------------------------------------------------------------


def test_version_names_the_release_table_date_and_newest_row():
    from mps_doctor.versions import load_releases

    table = load_releases()
    code, out, err = doctor("--version")
    assert code == 0
    assert out.strip() == "mps-doctor %s (release table of %s, newest row torch %s)" % (
        __import__("mps_doctor").__version__, table.updated, table.releases[-1].torch)


def test_a_torch_newer_than_the_table_is_said_so():
    from dataclasses import replace

    from mps_doctor.versions import load_releases

    newest = load_releases().releases[-1].torch
    newer = "%s.%d.0" % (newest.split(".")[0], int(newest.split(".")[1]) + 1)
    facts = replay_facts(load_machine("linux-x86-cpu-torch"))
    facts = replace(facts, target=replace(facts.target, torch=replace(facts.target.torch, version=newer)))
    report = run_checks(facts, Options(device="cpu", requested_device="cpu"))
    warnings = [r for r in report.results if r.status.value == "warn"]
    assert len(warnings) == 1
    assert "torch %s" % newer in warnings[0].summary and "release table" in warnings[0].summary
    assert newest in warnings[0].summary


# --- 15. wording, completion, and the options that said one thing and did another -------------------------------------


def test_policy_show_without_a_policy_says_so_plainly(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = cli("policy", "show")
    assert "nowhere" not in result.output
    assert result.output.startswith("no team policy: no pyproject.toml with a [tool.mps-doctor] table")


def test_bench_text_counts_in_the_singular():
    from mps_doctor.bench import BenchOptions, BenchReport, DeviceRun
    from mps_doctor.render.bench_text import render_bench_text

    report = BenchReport(BenchOptions(device="cpu", warmup=1, windows=1, steps=1), "python", "2.13.0",
                         (DeviceRun("cpu", window_ms=(10.0,)),), "data")
    text = render_bench_text(report)
    assert "1 warm-up step, then 1 window of 1 step;" in text
    assert "1 warm-up steps" not in text and "1 windows" not in text


def test_help_speaks_without_jargon_and_documents_every_option(cli):
    bench_help = cli("bench", "--help").output
    assert "seed" not in bench_help.lower()
    fix_help = cli("fix", "--help").output
    timeout = fix_help[fix_help.index("--timeout"):].split("\n  -")[0]
    assert "Seconds the target interpreter may take" in " ".join(timeout.split())


def test_not_ready_text_prints_the_exact_fix_command(tmp_path, cli):
    report = saved_report(tmp_path, "m3-torch-missing")
    result = cli("check", "--from", report)
    assert "To print the commands that fix this, run: %s -m mps_doctor fix --from %s\n" % (sys.executable, report) \
        in result.output
    assert "There is no torch package" not in result.output


def test_missing_torch_says_not_installed_and_an_unknown_machine_is_not_none():
    from dataclasses import replace

    from mps_doctor.render.text import render_text

    facts = replay_facts(load_machine("m3-torch-missing"))
    report = run_checks(facts, Options(device="auto", requested_device="auto"))
    assert report.result("torch.import").remedy.problem.startswith("torch is not installed for Python 3.")
    old = replace(facts.target.interpreter, version=(2, 7, 18), machine=None)
    text = render_text(run_checks(replace(facts, target=replace(facts.target, interpreter=old)),
                                  Options(device="cpu", requested_device="cpu")))
    assert "(Python 2.7.18)" in text.splitlines()[0] and "None" not in text.splitlines()[0]


@pytest.mark.slow
def test_require_device_cuda_checks_cuda_not_the_cpu(cli):
    doc = json.loads(cli("check", "--require-device", "cuda", "--quick", "--format", "json").output)
    assert doc["options"]["device"] == "cuda"
    assert doc["results"][0]["id"] == "os.linux"


def test_select_alone_never_claims_ready_to_train(tmp_path, cli):
    report = saved_report(tmp_path, "linux-x86-cpu-torch")
    result = cli("check", "--from", report, "--select", "device.parity")
    assert result.exit_code == 0
    assert "ready to train" not in result.output
    assert "the selected checks pass on cpu (device.parity), not a full verdict" in result.output


@pytest.mark.slow
def test_bench_no_cpu_without_an_accelerator_is_a_usage_error():
    code, out, err = doctor("bench", "--no-cpu", "--windows", "1", "--steps", "1", "--warmup", "0")
    assert code == 2 and out == ""
    assert "--no-cpu: torch in" in err and "sees no accelerator" in err


@pytest.mark.slow
def test_bench_auto_chooses_like_check_even_with_nvidia_smi_on_path(tmp_path):
    (tmp_path / "nvidia-smi").write_text("#!/bin/sh\nexit 9\n")
    (tmp_path / "nvidia-smi").chmod(0o755)
    env = {"PATH": str(tmp_path) + os.pathsep + os.environ["PATH"]}
    code, out, err = doctor("bench", "--windows", "1", "--steps", "1", "--warmup", "0", "--format", "json", env=env)
    assert code == 0, err
    doc = json.loads(out)
    assert [run["device"] for run in doc["runs"]] == ["cpu"]
    checked = json.loads(doctor("check", "--quick", "--format", "json", env=env)[1])
    assert checked["options"]["device"] == "cpu"


@pytest.mark.parametrize("shell", ["zsh", "bash", "fish"])
def test_shell_completion_as_the_readme_documents_it(shell):
    script = os.path.join(os.path.dirname(sys.executable), "mps-doctor")
    env = dict(os.environ, _MPS_DOCTOR_COMPLETE="%s_source" % shell)
    source = subprocess.run([script], env=env, stdout=subprocess.PIPE, text=True, timeout=60)
    assert source.returncode == 0 and "_MPS_DOCTOR_COMPLETE" in source.stdout
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        assert "_MPS_DOCTOR_COMPLETE=%s_source mps-doctor" % shell in handle.read()
    env = dict(os.environ, _MPS_DOCTOR_COMPLETE="bash_complete", COMP_WORDS="mps-doctor check --device ",
               COMP_CWORD="3")
    words = subprocess.run([script], env=env, stdout=subprocess.PIPE, text=True, timeout=60).stdout.split()
    assert words == ["plain,auto", "plain,mps", "plain,cpu", "plain,cuda"]


def test_readme_install_shows_venv_pipx_and_uv_tool_and_python():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    install = readme[readme.index("## Install and run"):readme.index("## Run the tests")]
    for way in ("pipx install .", "uv tool install .", "uvx --from . mps-doctor check", "python3 -m venv",
                "PEP 668", "--python path/to/project/.venv/bin/python"):
        assert way in install


def test_build_digest_of_a_cuda_build_reads_the_build_settings():
    sys.path.insert(0, os.path.join(ROOT, "mps_doctor", "child"))
    try:
        import mpsd_probe
    finally:
        sys.path.pop(0)
    from mps_doctor.env_summary import build_digest

    class Config:
        @staticmethod
        def show():
            # The layout of torch.__config__.show() on a CUDA wheel (torch 2.10 on CUDA 12.8; its CuDNN line reads
            # 91.0.2 for cuDNN 9.10.2, the build settings have it right).
            return ("PyTorch built with:\n  - GCC 13.3\n  - OpenMP 201511 (a.k.a. OpenMP 4.5)\n"
                    "  - CPU capability usage: AVX512\n  - CUDA Runtime 12.8\n"
                    "  - CuDNN 91.0.2  (built against CUDA 12.9)\n"
                    "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=12.8, CUDNN_VERSION=9.10.2, "
                    "CXX_FLAGS= -O2 -fPIC, LAPACK_INFO=mkl, USE_CUDA=ON, USE_CUDNN=ON, USE_OPENMP=ON, \n")

    class Version:
        hip = None

    class FakeTorch:
        __config__ = Config
        version = Version

    build = mpsd_probe.build_facts(FakeTorch)
    assert build["CUDA_VERSION"] == "12.8" and build["CUDNN_VERSION"] == "9.10.2" and build["USE_CUDA"] == "ON"
    assert "CXX_FLAGS" not in build
    assert build_digest(build) == ("GCC 13.3; BLAS mkl, LAPACK mkl; OpenMP 201511 (a.k.a. OpenMP 4.5); "
                                   "CPU capability AVX512; CUDA runtime 12.8; cuDNN 9.10.2")
