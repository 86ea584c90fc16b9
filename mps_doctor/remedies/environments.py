"""New environments in a fix plan: where the new venv or conda environment goes, which Python it gets (uv, pyenv,
Homebrew, python.org, the distribution's packages) and the steps that create it, install torch in it and switch to it.

Each function takes the plan's `Planner` (remedies/plan.py) as PLANNER and adds its steps to it.
"""

import ntpath
import posixpath
from dataclasses import replace
from typing import Optional, Tuple

from mps_doctor.checking.model import Cmd, InstallTorch, NewEnvironment, activate_conda, activate_venv, note, run
from mps_doctor.remedies.model import InCondaBase
from mps_doctor.remedies.setup import Setup
from mps_doctor.versions import version_tuple

# uv names a CPython build by implementation-version-os-arch-libc (docs.astral.sh/uv/concepts/python-versions):
# asking for the aarch64 build gets a native Python even when uv itself runs under Rosetta.
UV_ARM64_PYTHON = "cpython-%s-macos-aarch64-none"
# Binaries that run as x86_64 under a Rosetta shell unless started with `arch -arm64`: universal2 builds.
UNIVERSAL_SOURCES = ("python.org", "system")
# The key of the step that installs torch into the plan's new environment (a remedy's own install has another).
NEW_ENV_TORCH = "new-env-torch"


def new_env_folder(planner, suffix: str) -> str:
    """A folder beside the current environment (or in the working directory) for the new one."""
    base = planner.setup.env_path if planner.setup.env_kind in ("venv", "uv-venv", "virtualenv") else None
    return (base.rstrip("/") + "-" + suffix) if base else ".venv-" + suffix


def translated(planner) -> bool:
    """Whether the target Python runs as x86_64 on an Apple Silicon Mac (under Rosetta)."""
    interp, host = planner.report.facts.target.interpreter, planner.report.facts.host
    return bool(interp is not None and host.hw_arm64 and (interp.proc_translated == 1 or interp.machine == "x86_64"))


def create_env(planner, action: NewEnvironment, reason: str) -> None:
    """A new environment beside the old one with a (native) Python, then torch, then how to switch; a plan makes one."""
    if planner.has("create-env"):
        for index, step in enumerate(planner.steps):
            if step.key in ("create-env", NEW_ENV_TORCH, "switch"):
                planner.mark(index)
        return
    setup, host = planner.setup, planner.report.facts.host
    interp = planner.report.facts.target.interpreter
    old = setup.env_path or planner.python
    version = action.python
    if action.arm64 and interp is not None and interp.conda_subdir == "osx-64":
        # An osx-64 conda on Apple Silicon: the fix is an osx-arm64 environment of the same conda.
        planner.setup = setup = replace(setup, manager="conda")
    if action.arm64 and setup.manager != "conda" and setup.python_source in UNIVERSAL_SOURCES and translated(planner):
        shell = "/opt/homebrew/bin/fish" if setup.shell == "fish" else "/bin/" + setup.shell
        planner.add("native-shell", "Stop the terminal from running under Rosetta",
                    "This Python is a universal2 build: it runs as x86_64 only because the shell that starts it does. "
                    "The commands below say `arch -arm64` explicitly; for your own sessions untick 'Open using Rosetta' "
                    "in the terminal app's Get Info window.",
                    note("a native shell for this session: arch -arm64 %s -l" % shell))
        if interp.version and tuple(interp.version[:2]) >= (3, 10):
            version = "%d.%d" % tuple(interp.version[:2])
    release = planner.choice.release_to_install(version_tuple(version))
    what = "%sPython %s" % ("native arm64 " if action.arm64 else "", version)
    if setup.manager == "conda":
        name = "torch-" + action.suffix
        subdir_env = (("CONDA_SUBDIR", "osx-arm64"),) if action.arm64 else ()
        commands = [run("conda", "create", "-y", "-n", name, "python=" + version, env=subdir_env)]
        # Keep later installs into this environment arm64 (conda-forge/miniforge#165).
        if action.arm64:
            commands.append(run("conda", "config", "--file", in_conda_root(planner, "envs/%s/.condarc" % name),
                                "--set", "subdir", "osx-arm64"))
        planner.add("create-env", "Create the conda environment %s (%s) beside the current one" % (name, what), reason,
                    *commands)
        planner.python = "python"
        if action.install_torch:
            # PyPI's macOS arm64 wheels are the MPS builds; on Linux pip gets PyTorch's CPU or CUDA wheels (index_args).
            wheels = ("pip wheels from PyPI are the MPS builds on Apple Silicon" if host.system == "Darwin" else
                      "pip installs PyTorch's own CPU or CUDA wheels")
            planner.add(NEW_ENV_TORCH, "Install torch and torchvision, pinned together", wheels + "; inside a conda "
                        "environment pip is the supported route since the official conda channel was deprecated "
                        "(pytorch/pytorch#138506).",
                        run("conda", "run", "-n", name, "python", "-m", "pip", "install", *planner.pins(release),
                            *planner.index_args()))
        planner.new_python = in_conda_root(planner, "envs/%s/bin/python" % name)
        planner.add("switch", "Switch to the new environment", "The old environment %s is left as it was; remove it "
                    "yourself once the new one works." % old, activate_conda(name))
        return
    folder = new_env_folder(planner, action.suffix)
    launcher: Tuple[str, ...] = ()
    if uses_uv(setup, host):
        request = UV_ARM64_PYTHON % version if action.arm64 else version
        planner.add("create-env", "Create %s with a %s" % (folder, what), reason,
                    run("uv", "python", "install", request), run("uv", "venv", "--python", request, folder))
        planner.setup = replace(setup, manager="uv")
    elif setup.python_source == "pyenv":
        # pyenv 2.3.6 and later resolve a prefix such as 3.12 to its newest 3.12.x, to install and to run (pyenv#2487).
        planner.add("create-env", "Create %s with a %s from pyenv" % (folder, what), reason,
                    run("pyenv", "install", "--skip-existing", version),
                    run("pyenv", "exec", "python", "-m", "venv", folder, env=(("PYENV_VERSION", version),)))
    else:
        base, provide = base_python_for(planner, version, action.arm64)
        planner.arch_prefix = ("arch", "-arm64") if action.arm64 and setup.python_source in UNIVERSAL_SOURCES else ()
        # Windows' py launcher picks the installed Python by its version (docs.python.org, "Using Python on Windows").
        launcher = ("-" + version,) if base == "py" else ()
        planner.add("create-env", "Create %s with a %s" % (folder, what), reason,
                    *provide, run(*planner.arch_prefix, base, *launcher, "-m", "venv", folder))
    planner.python = planner.new_python = venv_python(host, folder)
    if action.install_torch:
        planner.add(NEW_ENV_TORCH, "Install torch and torchvision in %s, pinned together" % folder,
                    "torch and torchvision from different releases fail at import; pinning both keeps pip from pulling "
                    "another torch.", planner.install_torch(InstallTorch(release.torch if release else None)))
    planner.add("switch", "Switch to the new environment", "The old environment %s is left as it was; remove it "
                "yourself once the new one works." % old, activate_venv(folder))


def venv_python(host, folder: str) -> str:
    """The Python of the venv in FOLDER: bin/python, or Scripts\\python.exe on Windows (the venv module's layout)."""
    return ntpath.join(folder, "Scripts", "python.exe") if host.system == "Windows" else posixpath.join(folder, "bin", "python")


def uses_uv(setup: Setup, host) -> bool:
    """Whether uv provides a new environment's Python: for a uv project or a uv-managed Python, and wherever uv is on
    PATH unless the target Python came from Homebrew or pyenv, whose users get a Python their own way."""
    if setup.manager == "uv" or setup.python_source == "uv":
        return True
    return bool(host.tools.get("uv")) and setup.python_source not in ("homebrew", "homebrew-intel", "pyenv")


def in_conda_root(planner, relative: str) -> str:
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


def base_python_for(planner, version: str, arm64: bool) -> Tuple[str, Tuple[Cmd, ...]]:
    """(python executable, commands that provide it) for a new venv, without uv or pyenv: Homebrew's for a Homebrew
    Python, else this platform's way (arm64 Homebrew or python.org on macOS, the distribution's packages on Linux)."""
    facts, setup = planner.report.facts, planner.setup
    interp = facts.target.interpreter
    if facts.host.system == "Darwin" and "/opt/homebrew" in facts.host.brew_prefixes:
        return "/opt/homebrew/bin/python%s" % version, (run("/opt/homebrew/bin/brew", "install", "python@" + version),)
    brew = homebrew_prefix(interp) if setup.python_source in ("homebrew", "homebrew-intel") and not arm64 else None
    if brew:
        return posixpath.join(brew, "bin", "python" + version), (
            run(posixpath.join(brew, "bin", "brew"), "install", "python@" + version),)
    if arm64 and setup.python_source in UNIVERSAL_SOURCES and interp is not None and interp.executable_realpath:
        return interp.executable_realpath, (note("%s is a universal2 build: `arch -arm64` runs it natively" %
                                                 interp.executable_realpath),)
    if facts.host.system == "Windows":
        return "py", (note("Install Python %s from https://www.python.org/downloads/windows/ first (with its py launcher)" %
                           version),)
    if facts.host.system == "Darwin":
        # The user's own Python of that version is no fix when it is the x86_64 one: say which build, and why.
        same = interp is not None and ".".join(map(str, interp.version[:2])) == version and interp.machine == "x86_64"
        return "/usr/local/bin/python%s" % version, (
            note("Install %s from https://www.python.org/downloads/macos/ first%s" % (
                "python.org's Python %s for macOS (universal2, native on Apple Silicon)" % version if arm64 else
                "Python %s for macOS (universal2)" % version,
                "; the Python %s you run is an x86_64 build" % ".".join(map(str, interp.version)) if same else "")),)
    return "python%s" % version, (note(linux_python_note(facts.host, setup, version)),)


def homebrew_prefix(interp) -> Optional[str]:
    """The Homebrew prefix that a Python from Homebrew lives in: the part of its real path before /Cellar/ (Homebrew
    installs formulae to PREFIX/Cellar, docs.brew.sh/Installation), or None."""
    real = (interp.executable_realpath or "") if interp is not None else ""
    prefix = real.split("/Cellar/")[0] if "/Cellar/" in real else ""
    return prefix if prefix.startswith("/") else None


# The package manager of a distribution, by its os-release ID (the `distro` package's id).
DISTRO_PACKAGES = {"debian": "apt", "ubuntu": "apt", "fedora": "dnf", "rhel": "dnf", "rocky": "dnf",
                   "almalinux": "dnf", "centos": "dnf", "arch": "pacman", "alpine": "apk"}


def linux_python_note(host, setup: Setup, version: str) -> str:
    """Where a Linux machine gets Python VERSION for a new venv: for the distribution's Python (/usr/bin) its
    packages, which may not carry that version; else, or as well, pyenv or uv."""
    distro = host.linux_distro or {}
    name, manager = distro.get("name") or "your distribution", DISTRO_PACKAGES.get((distro.get("id") or "").lower())
    others = "pyenv, or uv: https://docs.astral.sh/uv/guides/install-python/"
    if setup.python_source == "system":
        return "Install Python %s from %s's packages%s first if it has it, else with %s" % (
            version, name, " (%s)" % manager if manager else "", others)
    return "Install Python %s first: from %s's packages, with %s" % (version, name, others)
