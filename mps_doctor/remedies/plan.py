"""Build the fix plan: ordered, safe steps for this setup, from the root cause and the warnings of a report.

Safe by construction: no sudo, no deletion (new environments go beside the old ones), no download-and-run
without saying so (and then only as a comment), torch and torchvision always pinned together.
"""

import os
import posixpath
import sys
from typing import List, Optional, Tuple

from mps_doctor.checks.advisories import LOWER_LIMITS, pytorch_env_problems
from mps_doctor.checks.context import CPU_INDEX, Context, longer_timeout
from mps_doctor.checks.cuda import best_build, cuda_index, driver_cuda, gpu_capabilities, parse_visible_devices
from mps_doctor.checks.layers import missing_dependency
from mps_doctor.checks.model import Status
from mps_doctor.checks.policy_checks import release_for
from mps_doctor.errors import UsageError
from mps_doctor.remedies.model import Cmd, InCondaBase, Plan, Step, activate_conda, activate_venv, export, note, run, unset
from mps_doctor.remedies.setup import Setup, detect_setup
from mps_doctor.report import Report
from mps_doctor.versions import Release, load_releases, minor_of

NEW_PYTHON = "3.12"
# uv names a CPython build by implementation-version-os-arch-libc (docs.astral.sh/uv/concepts/python-versions):
# asking for the aarch64 build gets a native Python even when uv itself runs under Rosetta.
UV_ARM64_PYTHON = "cpython-3.12-macos-aarch64-none"
# Binaries that run as x86_64 under a Rosetta shell unless started with `arch -arm64`: universal2 builds.
UNIVERSAL_SOURCES = ("python.org", "system")


class Planner:
    """Accumulates steps for one report; `python` follows the environment the later steps should use."""

    def __init__(self, report: Report, setup: Setup, torch_pin: Optional[str], index: Optional[str],
                 doctor: Tuple[str, ...] = ("mps-doctor",)):
        self.report, self.setup, self.doctor = report, setup, doctor
        self.releases = load_releases()
        self.ctx = Context(report.facts, report.options, self.releases)
        self.torch_pin, self.index = torch_pin, index
        self.pinned: Optional[Release] = pinned_release(torch_pin) if torch_pin else None
        self.python = report.facts.target.python
        self.new_python: Optional[str] = None
        self.steps: List[Step] = []
        self.arch_prefix: Tuple[str, ...] = ()
        self.verify_device = report.options.requested_device

    def add(self, key: str, title: str, reason: str, *commands: Cmd) -> None:
        if any(step.key == key for step in self.steps):
            return
        self.steps.append(Step(key, title, reason, tuple(commands)))

    def pins(self, release: Optional[Release]) -> Tuple[str, ...]:
        """torch and torchvision requirements, pinned together (an explicit --torch wins)."""
        if self.pinned is not None:
            return "torch==%s" % self.torch_pin, "torchvision==%s" % self.pinned.torchvision_pin
        release = release or self.ctx.install_release() or self.releases.current
        return release.pip_args()

    def index_args(self, cuda_build: Optional[str] = None) -> Tuple[str, ...]:
        """--index-url for this platform (cpu or cuXYZ on Linux, PyPI on macOS), unless --index-url/--pypi said otherwise."""
        if self.index is not None:
            return ("--index-url", self.index) if self.index else ()
        if cuda_build:
            return ("--index-url", cuda_index(cuda_build))
        if self.report.facts.host.system == "Linux" and self.report.options.device != "cuda":
            return ("--index-url", CPU_INDEX)
        return ()

    def ensure_installable(self) -> None:
        """Before the first install into an interpreter that is not a virtual environment and is externally managed
        (PEP 668: pip refuses, e.g. Homebrew's or a distribution's Python), create a venv with it and use that."""
        if self.new_python is not None or self.setup.env_kind != "none" or not self.setup.externally_managed:
            return
        folder = ".venv"
        self.add("create-venv", "Create a virtual environment %s with this Python" % folder,
                 "%s is externally managed (PEP 668): pip refuses to install into it." % self.python,
                 run(self.python, "-m", "venv", folder))
        self.python = self.new_python = posixpath.join(folder, "bin", "python")
        self.add("switch", "Use the new environment", "Activate it in every shell where you train.",
                 activate_venv(folder))

    def pip(self, *args: str, force: bool = False, python: Optional[str] = None) -> Cmd:
        """`pip install ARGS` into PYTHON's environment with the user's manager."""
        if python is None:
            self.ensure_installable()
        python = python or self.python
        if self.setup.manager == "uv":
            return run("uv", "pip", "install", "--python", python, *(("--reinstall",) if force else ()), *args)
        return run(*self.arch_prefix, python, "-m", "pip", "install", *(("--force-reinstall",) if force else ()), *args)

    def install_torch(self, release: Optional[Release] = None, force: bool = False, cuda_build: Optional[str] = None,
                      python: Optional[str] = None) -> Cmd:
        return self.pip(*self.pins(release), *self.index_args(cuda_build), force=force, python=python)


def pinned_release(torch_pin: str) -> Release:
    """The release table's row for `--torch TORCH_PIN`; a UsageError naming the known range when there is none."""
    releases = load_releases()
    row, exact = releases.row_for(torch_pin) if minor_of(torch_pin) else (None, False)
    if row is None or not exact:
        known = "torch %s to %s (release table of %s)" % (releases.releases[0].torch, releases.releases[-1].torch,
                                                          releases.updated)
        if minor_of(torch_pin) is None:
            raise UsageError("--torch %s: not a version such as %s" % (torch_pin, releases.current.torch + ".0"))
        raise UsageError("--torch %s: not a release mps-doctor knows; it knows %s" % (torch_pin, known))
    return row


def doctor_command() -> Tuple[str, ...]:
    """This mps-doctor as a command that still works after the plan activates another environment: the absolute
    path of its console script, else `<its python> -m mps_doctor`."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == "mps-doctor" and os.path.isfile(script):
        return (script,)
    return (sys.executable, "-m", "mps_doctor")


def build_plan(report: Report, manager: Optional[str] = None, shell: Optional[str] = None,
               torch_pin: Optional[str] = None, index: Optional[str] = None,
               doctor: Optional[Tuple[str, ...]] = None) -> Plan:
    """The plan for REPORT; empty when the machine is ready and nothing warns. DOCTOR is how its steps start
    mps-doctor (default: doctor_command())."""
    setup = detect_setup(report.facts, manager, shell)
    planner = Planner(report, setup, torch_pin, index, doctor or doctor_command())
    root = report.result(report.verdict.root_cause) if report.verdict.root_cause else None
    if root is not None and root.status == Status.FAIL:
        root_fix(root)(planner, root)
    for result in report.results:
        if result.status == Status.FAIL and result is not root:
            root_fix(result)(planner, result)
        elif result.status == Status.WARN and not result.accepted:
            WARNING_FIXES.get(result.id, generic_fix)(planner, result)
    if planner.steps:
        verify(planner)
    return Plan(steps=tuple(planner.steps), shell=setup.shell, manager=setup.manager, setup_summary=setup.describe(),
                verdict=report.verdict.summary, target_python=report.facts.target.python, new_python=planner.new_python)


def root_fix(result):
    """The fixer for a failed check: more time when its probe stage timed out, else the check's own."""
    if result.remedy is not None and result.remedy.key == "probe-timeout":
        return fix_timeout
    return ROOT_FIXES.get(result.id, generic_fix)


def verify(planner: Planner) -> None:
    device = planner.verify_device
    extra = ("--device", device) if device != "auto" else ()
    planner.add("verify", "Check again", "Confirms the fix and shows the next problem, if any.",
                run(*planner.doctor, "check", "--python", planner.new_python or planner.python, *extra))


def generic_fix(planner: Planner, result) -> None:
    """Fall back on the check's own remedy commands, shown as notes (they were written for POSIX shells)."""
    if result.remedy is None:
        return
    planner.add(result.id, result.remedy.problem, result.remedy.why,
                *[note("run: " + command) for command in result.remedy.commands])


def new_env_folder(planner: Planner, suffix: str) -> str:
    """A folder beside the current environment (or in the working directory) for the new one."""
    base = planner.setup.env_path if planner.setup.env_kind in ("venv", "uv-venv", "virtualenv") else None
    return (base.rstrip("/") + "-" + suffix) if base else ".venv-" + suffix


def create_env(planner: Planner, suffix: str, python_version: str, arm64: bool, reason: str, install: bool = True) -> None:
    """A new environment beside the old one with a (native) Python, then torch, then how to switch."""
    setup, host = planner.setup, planner.report.facts.host
    old = setup.env_path or planner.python
    release = planner.ctx.install_release(tuple(int(part) for part in python_version.split(".")))
    if setup.manager == "conda":
        name = "torch-" + suffix
        subdir_env = (("CONDA_SUBDIR", "osx-arm64"),) if arm64 else ()
        commands = [run("conda", "create", "-y", "-n", name, "python=" + python_version, env=subdir_env)]
        # Keep later installs into this environment arm64 (conda-forge/miniforge#165).
        if arm64:
            commands.append(run("conda", "config", "--file", in_conda_root(planner, "envs/%s/.condarc" % name),
                                "--set", "subdir", "osx-arm64"))
        planner.add("create-env", "Create the conda environment %s beside the current one" % name, reason, *commands)
        planner.python = "python"
        planner.add("install-torch", "Install torch and torchvision, pinned together", "pip wheels from PyPI are the "
                    "MPS builds on Apple Silicon; inside a conda environment pip is the supported route since the "
                    "official conda channel was deprecated (pytorch/pytorch#138506).",
                    run("conda", "run", "-n", name, "python", "-m", "pip", "install", *planner.pins(release), *planner.index_args()))
        planner.new_python = in_conda_root(planner, "envs/%s/bin/python" % name)
        planner.add("switch", "Switch to the new environment", "The old environment %s is left as it was; remove it "
                    "yourself once the new one works." % old, activate_conda(name))
        return
    folder = new_env_folder(planner, suffix)
    new_python = posixpath.join(folder, "bin", "python")
    if setup.manager == "uv" or (host.tools.get("uv") and setup.python_source not in ("homebrew",)):
        request = UV_ARM64_PYTHON if arm64 else python_version
        planner.add("create-env", "Create %s with a %sPython %s" % (folder, "native arm64 " if arm64 else "", python_version),
                    reason, run("uv", "python", "install", request), run("uv", "venv", "--python", request, folder))
        planner.setup = Setup(**dict(setup.__dict__, manager="uv"))
    else:
        base = base_python_for(planner, python_version, arm64)
        planner.arch_prefix = ("arch", "-arm64") if arm64 and planner.setup.python_source in UNIVERSAL_SOURCES else ()
        commands = list(base[1]) + [run(*planner.arch_prefix, base[0], "-m", "venv", folder)]
        planner.add("create-env", "Create %s with a %sPython %s" % (folder, "native arm64 " if arm64 else "", python_version),
                    reason, *commands)
    planner.python = new_python
    planner.new_python = new_python
    if install:
        planner.add("install-torch", "Install torch and torchvision in %s, pinned together" % folder,
                    "torch and torchvision from different releases fail at import; pinning both keeps pip from pulling "
                    "another torch.", planner.install_torch(release))
    planner.add("switch", "Switch to the new environment", "The old environment %s is left as it was; remove it "
                "yourself once the new one works." % old, activate_venv(folder))


def in_conda_root(planner: Planner, relative: str) -> str:
    """RELATIVE under the conda installation: the one owning the target environment when it is a conda env, else
    the one of `conda` on PATH (ROOT/bin/conda or ROOT/condabin/conda); spelled by the shell when unknown."""
    root = None
    if planner.setup.env_kind == "conda" and planner.setup.env_path:
        prefix = planner.setup.env_path.rstrip("/")
        root = prefix.split("/envs/")[0] if "/envs/" in prefix else prefix
    conda = planner.report.facts.host.tools.get("conda")
    if root is None and conda and posixpath.isabs(conda):
        root = posixpath.dirname(posixpath.dirname(conda))
    return posixpath.join(root, relative) if root else InCondaBase(relative)


def base_python_for(planner: Planner, version: str, arm64: bool) -> Tuple[str, Tuple[Cmd, ...]]:
    """(python executable, commands that provide it) for a new venv, without uv."""
    facts, setup = planner.report.facts, planner.setup
    interp = facts.target.interpreter
    if facts.host.system == "Darwin" and "/opt/homebrew" in facts.host.brew_prefixes:
        return "/opt/homebrew/bin/python%s" % version, (run("/opt/homebrew/bin/brew", "install", "python@" + version),)
    if arm64 and setup.python_source in UNIVERSAL_SOURCES and interp is not None and interp.executable_realpath:
        return interp.executable_realpath, (note("%s is a universal2 build: `arch -arm64` runs it natively" %
                                                 interp.executable_realpath),)
    if facts.host.system == "Darwin":
        return "/usr/local/bin/python%s" % version, (
            note("Install Python %s for macOS (universal2) from https://www.python.org/downloads/macos/ first" % version),)
    return "python%s" % version, (note("Install Python %s with your distribution's package manager first" % version),)


# --- fixes for a failing root cause -------------------------------------------------------------------------


def fix_use_other_device(planner: Planner, result) -> None:
    other = result.remedy.commands[0].split()[-1]
    planner.add("other-device", "Diagnose the device this machine has (%s)" % other, result.remedy.why,
                note("MPS needs macOS on Apple Silicon; CUDA needs Linux with an NVIDIA GPU"))
    planner.verify_device = other


def fix_intel_mac(planner: Planner, result) -> None:
    py = planner.ctx.python_version or (3, 11)
    reason = ("Intel Macs have no MPS in PyTorch wheels, and their last wheels are torch 2.2.2 with torchvision "
              "0.17.2 (PyTorch 2.2 release notes), for Python 3.8 to 3.11.")
    last = ("torch==%s" % planner.releases.last_intel_torch, "torchvision==%s" % planner.releases.last_intel_torchvision)
    if py[:2] > (3, 11):
        create_env(planner, "py311", "3.11", False, reason, install=False)
    planner.add("install-torch", "Install the last Intel-Mac torch for the CPU", reason, planner.pip(*last))
    planner.verify_device = "cpu"


def fix_rosetta(planner: Planner, result) -> None:
    interp = planner.report.facts.target.interpreter
    conda = planner.setup.manager == "conda" or (interp is not None and interp.conda_subdir == "osx-64")
    if conda:
        planner.setup = Setup(**dict(planner.setup.__dict__, manager="conda"))
    reason = ("%s runs as x86_64 under Rosetta, so pip picks x86_64 wheels, which stop at torch 2.2.2 and never use the "
              "Apple GPU. A native environment is created beside it; nothing is deleted." % planner.python)
    version = NEW_PYTHON
    if not conda and planner.setup.python_source in UNIVERSAL_SOURCES:
        shell = "/opt/homebrew/bin/fish" if planner.setup.shell == "fish" else "/bin/" + planner.setup.shell
        planner.add("native-shell", "Stop the terminal from running under Rosetta",
                    "This Python is a universal2 build: it runs as x86_64 only because the shell that starts it does. "
                    "The commands below say `arch -arm64` explicitly; for your own sessions untick 'Open using Rosetta' "
                    "in the terminal app's Get Info window.",
                    note("a native shell for this session: arch -arm64 %s -l" % shell))
        if interp is not None and interp.version and tuple(interp.version[:2]) >= (3, 10):
            version = "%d.%d" % tuple(interp.version[:2])
    create_env(planner, "arm64", version, True, reason)


def fix_macos_version(planner: Planner, result) -> None:
    macos = planner.ctx.macos()
    fallback = planner.releases.newest_for_macos(macos, planner.ctx.python_version) if macos else None
    planner.add("upgrade-macos", "Upgrade macOS (the lasting fix)",
                "torch %s needs a newer macOS for MPS; Software Update in System Settings installs it." %
                (planner.ctx.torch_version() or planner.releases.current.torch), run("softwareupdate", "--list"))
    if fallback is not None:
        if planner.pinned is not None:
            planner.add("pin-torch", "Or keep this macOS and install torch %s (--torch)" % planner.torch_pin,
                        "Data row: %s." % planner.pinned.label, planner.install_torch(fallback))
        else:
            planner.add("pin-torch", "Or keep this macOS and pin torch %s, the newest whose MPS runs on macOS %s"
                        % (fallback.torch, macos), "Data row: %s%s." % (fallback.label, planner.ctx.unpinned_gap(fallback)),
                        planner.install_torch(fallback))


def fix_python_version(planner: Planner, result) -> None:
    create_env(planner, "py" + NEW_PYTHON.replace(".", ""), NEW_PYTHON, planner.report.facts.host.system == "Darwin"
               and bool(planner.report.facts.host.hw_arm64), "%s is outside the Python range of torch; torch %s supports "
               "%s." % (planner.ctx.python_label(), planner.releases.current.torch, planner.releases.current.python))


def fix_timeout(planner: Planner, result) -> None:
    """A probe stage that ran out of time: check again with more time; nothing is installed or reinstalled."""
    longer = longer_timeout(planner.report.facts.target.failure.timeout_seconds or 0)
    device = ("--device", planner.verify_device) if planner.verify_device != "auto" else ()
    planner.add("verify", "Check again with a longer --timeout", result.remedy.why,
                run("mps-doctor", "check", "--python", planner.python, *device, "--timeout", "%g" % longer))


def fix_torch_import(planner: Planner, result) -> None:
    info = planner.report.facts.target.torch
    failure = planner.report.facts.target.failure
    if info is not None and not info.installed and failure is None:
        planner.add("install-torch", "Install torch and torchvision, pinned together",
                    "There is no torch in %s." % planner.python, planner.install_torch())
        return
    if result.remedy is not None and result.remedy.key == "torch-shadowed":
        shadows = info.shadows if info is not None else ()
        listed = run("ls", "-ld", shadows[0].path) if shadows else run("ls", "-d", "torch", "torch.py")
        planner.add("shadowed", "Rename the local `torch` that hides the installed package", result.remedy.why,
                    listed, note("rename or move it (for example to torch_local), then check again"))
        return
    dependency = missing_dependency(result.remedy.problem) if result.remedy is not None else None
    if dependency:
        planner.add("install-dependency", "Install %s, which torch needs" % dependency, result.remedy.why,
                    planner.pip(dependency))
        return
    planner.add("reinstall-torch", "Reinstall torch and torchvision, pinned together",
                "The installed torch does not import (%s)." % result.summary,
                planner.install_torch(planner.ctx.installed_release(), force=True))


def fix_mps_built(planner: Planner, result) -> None:
    planner.add("reinstall-torch", "Reinstall torch from PyPI, whose macOS arm64 wheel is the MPS build", result.remedy.why,
                planner.install_torch(planner.ctx.installed_release(), force=True))


def fix_mps_available(planner: Planner, result) -> None:
    if result.remedy is not None and result.remedy.key == "vm-mps":
        use_cpu_here(planner, result.remedy.why)
        return
    if result.remedy is not None and result.remedy.key == "upgrade-macos-or-pin":
        fix_macos_version(planner, result)
        return
    if result.remedy is not None and result.remedy.key == "sandbox":
        planner.add("sandbox", "Run outside the sandbox", result.remedy.why,
                    note("start a terminal that is not sandboxed and run the check from there"))
        return
    planner.add("mps-unavailable", "Run outside the sandbox or VM, with access to the GPU", result.remedy.why,
                run("system_profiler", "SPDisplaysDataType"), note("look for 'Metal Support' in the output above"))


def use_cpu_here(planner: Planner, why: str) -> None:
    planner.add("use-cpu", "Use the CPU on this machine (gate MPS on a bare-metal Mac)", why,
                run(*planner.doctor, "check", "--device", "cpu", "--python", planner.python))


def fix_wrong_results(planner: Planner, result) -> None:
    if result.remedy is not None and result.remedy.key == "probe-device":
        generic_fix(planner, result)
        return
    key = result.remedy.key if result.remedy is not None else None
    smoke = planner.report.facts.target.smoke
    if key == "mps-missing-operator" or (
            smoke is not None and smoke.error is not None and "not currently implemented" in smoke.error.message):
        planner.add("mps-fallback", "Let operators missing on MPS run on the CPU",
                    "torch reads PYTORCH_ENABLE_MPS_FALLBACK once, at import: set it before starting Python.",
                    export("PYTORCH_ENABLE_MPS_FALLBACK", "1"))
        return
    if key == "mps-memory-limit":
        names = [n for n in ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "PYTORCH_MPS_LOW_WATERMARK_RATIO")
                 if planner.report.facts.host.env.get(n) not in (None, "")]
        planner.add("mps-memory-limit", "Lift the MPS memory limit back to torch's default", result.remedy.why,
                    *[unset(name) for name in names], note("also remove them from your shell profile if they are set there"))
        return
    if key == "mps-out-of-memory":
        generic_fix(planner, result)
        return
    planner.add("upgrade-torch", "Upgrade torch and torchvision to the newest pair for this machine",
                "%s. Correctness bugs of this kind were fixed in later torch releases." % result.summary,
                planner.install_torch(force=True))
    if planner.report.facts.host.vmm_present:
        use_cpu_here(planner, "Inside a virtual machine MPS results are not trustworthy (actions/runner-images#14380).")


def fix_cuda_build(planner: Planner, result) -> None:
    release = planner.pinned or planner.ctx.installed_release()
    build = best_build(release, gpu_capabilities(planner.ctx), driver_cuda(planner.ctx))
    if build is None:
        planner.add("update-driver", "Update the NVIDIA driver", "No CUDA build of torch %s runs on this driver and GPU."
                    % (release.torch if release else "?"), run("nvidia-smi"),
                    note("install a newer driver: https://www.nvidia.com/Download/index.aspx"))
        return
    planner.add("reinstall-torch-cuda", "Reinstall torch %s from the CUDA %s index, pinned with torchvision"
                % (planner.torch_pin or release.torch, build), result.remedy.why if result.remedy else result.summary,
                planner.install_torch(release, force=True, cuda_build=build))


def fix_cuda_driver(planner: Planner, result) -> None:
    planner.add("install-driver", "Install the NVIDIA driver (or pass the GPU into the container)", result.remedy.why,
                run("nvidia-smi"), note("driver downloads: https://www.nvidia.com/Download/index.aspx"))


def fix_visible_devices(planner: Planner, result) -> None:
    value = planner.report.facts.host.env.get("CUDA_VISIBLE_DEVICES", "")
    smi = planner.report.facts.host.nvidia_smi
    visible, _ = parse_visible_devices(value, len(smi.gpus) if smi and smi.gpus else None)
    command = export("CUDA_VISIBLE_DEVICES", ",".join(visible)) if visible else unset("CUDA_VISIBLE_DEVICES")
    planner.add("visible-devices", "Make the GPUs visible again", result.remedy.why, command,
                note("also remove the setting from your shell profile if it is there"))


def fix_policy_versions(planner: Planner, result) -> None:
    policy = planner.report.options.policy
    release = release_for(planner.ctx, torch_spec=policy.torch, vision_spec=policy.torchvision)
    if release is None:
        generic_fix(planner, result)
        return
    planner.add("policy-pins", "Install the torch release the team pins (%s)" % (planner.torch_pin or release.torch),
                "%s Data row: %s." % (result.summary, release.label), planner.install_torch(release))


ROOT_FIXES = {
    "os.macos": fix_use_other_device, "os.linux": fix_use_other_device, "hardware.apple-silicon": fix_intel_mac,
    "python.rosetta": fix_rosetta, "macos.version": fix_macos_version, "python.version": fix_python_version,
    "torch.import": fix_torch_import, "torch.mps-built": fix_mps_built, "torch.mps-available": fix_mps_available,
    "device.parity": fix_wrong_results, "device.smoke": fix_wrong_results, "cuda.driver": fix_cuda_driver,
    "torch.cuda-built": fix_cuda_build, "cuda.driver-version": fix_cuda_build, "cuda.capability": fix_cuda_build,
    "cuda.visible-devices": fix_visible_devices,
    "policy.torch": fix_policy_versions, "policy.torchvision": fix_policy_versions,
}


# --- fixes for warnings --------------------------------------------------------------------------------------


def warn_env_vars(planner: Planner, result) -> None:
    env = planner.report.facts.host.env
    commands = []
    for name, _problem, fix in pytorch_env_problems(env):
        commands.append(unset(name) if fix.startswith("unset") else export(name, fix.split("=", 1)[1]))
    if not commands and env.get("PYTORCH_MPS_HIGH_WATERMARK_RATIO") is not None:
        commands += [export(name, value) for name, value in LOWER_LIMITS]
    planner.add("pytorch-env", "Fix the PYTORCH_* variables", result.remedy.problem, *commands,
                note("also fix them in your shell profile if they are set there"))


def warn_only_in_old_env(fix):
    """Skip a warning about the old environment once the plan creates a new one."""
    def guarded(planner: Planner, result) -> None:
        if planner.new_python is None:
            fix(planner, result)
    return guarded


def warn_companions(planner: Planner, result) -> None:
    planner.add("pin-companions", "Reinstall torchvision pinned to torch's release", result.remedy.why,
                planner.install_torch(planner.ctx.installed_release()))


def warn_numpy(planner: Planner, result) -> None:
    planner.add("install-numpy", "Install numpy", result.remedy.why, planner.pip("numpy"))


def warn_hosted_runner(planner: Planner, result) -> None:
    use_cpu_here(planner, result.remedy.why)


def warn_brew(planner: Planner, result) -> None:
    if planner.new_python is None and not any(s.key == "create-env" for s in planner.steps):
        planner.add("brew-arm64", "Install Homebrew for Apple Silicon in /opt/homebrew (beside the Intel one)",
                    result.remedy.why, note("this downloads and runs Homebrew's installer; read it first:"),
                    note('arch -arm64 /bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)"'))


def warn_note(planner: Planner, result) -> None:
    planner.add(result.id, result.remedy.problem, result.remedy.why, *[note(c) for c in result.remedy.commands])


def warn_smoke(planner: Planner, result) -> None:
    planner.add("fallback", "Operators fell back to the CPU", result.remedy.problem + " " + result.remedy.why,
                note("upgrading torch brings more MPS operators:"), planner.install_torch(force=False))


def warn_macos_version(planner: Planner, result) -> None:
    if not any(step.key == "upgrade-macos" for step in planner.steps):
        generic_fix(planner, result)


WARNING_FIXES = {
    "macos.version": warn_macos_version,
    "env.pytorch-vars": warn_env_vars,
    "torch.companions": warn_only_in_old_env(warn_companions),
    "python.numpy": warn_only_in_old_env(warn_numpy),
    "ci.hosted-runner": warn_hosted_runner,
    "torch.mps-available": warn_hosted_runner,
    "brew.prefix": warn_brew,
    "conda.platform": warn_only_in_old_env(warn_note),
    "macos.python-view": warn_only_in_old_env(warn_note),
    "host.memory": warn_note,
    "device.smoke": warn_smoke,
    "device.parity": warn_smoke,
    "python.rosetta": warn_only_in_old_env(warn_note),
    "python.version": warn_only_in_old_env(warn_note),
    "cuda.driver-version": warn_note,
    "cuda.visible-devices": fix_visible_devices,
}

