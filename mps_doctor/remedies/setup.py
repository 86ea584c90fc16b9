"""How the target Python was installed and which shell and package manager the user has: a pure reading of facts.

Each heuristic names where it comes from, like hatch's get_install_source.
"""

import os
from dataclasses import dataclass
from typing import Optional

from mps_doctor.facts import Facts


@dataclass(frozen=True)
class Setup:
    """The user's environment as the fix plan needs it."""

    env_kind: str  # venv | uv-venv | virtualenv | conda | none
    env_path: Optional[str]
    conda_env: Optional[str]
    python_source: str  # uv | homebrew | homebrew-intel | pyenv | python.org | system | conda | miniforge | unknown
    externally_managed: bool
    manager: str  # pip | uv | conda
    shell: str  # zsh | bash | fish | powershell

    def describe(self) -> str:
        where = {"venv": "a venv", "uv-venv": "a uv venv", "virtualenv": "a virtualenv", "conda": "a conda environment",
                 "none": "no virtual environment"}[self.env_kind]
        return "%s, Python from %s, %s, %s" % (where, self.python_source, self.manager, self.shell)


def python_source(real: str, prefix: str, base_prefix: str) -> str:
    """Where the base interpreter comes from, read from its real path."""
    # uv keeps managed Pythons in ~/.local/share/uv/python (docs.astral.sh/uv/concepts/python-versions).
    if "/uv/python/" in real:
        return "uv"
    # Homebrew: /opt/homebrew on Apple Silicon, /usr/local on Intel (docs.brew.sh/Installation).
    if real.startswith("/opt/homebrew/") or "/linuxbrew/" in real:
        return "homebrew"
    if real.startswith(("/usr/local/Cellar/", "/usr/local/opt/")):
        return "homebrew-intel"
    # pyenv builds into $PYENV_ROOT/versions/<version> (github.com/pyenv/pyenv#how-it-works).
    if "/.pyenv/versions/" in real:
        return "pyenv"
    # conda-forge's Miniforge/Mambaforge installers (github.com/conda-forge/miniforge).
    if "miniforge" in real.lower() or "mambaforge" in real.lower():
        return "miniforge"
    if "conda" in real.lower() or os.path.isabs(real) and "/envs/" in real:
        return "conda"
    # The python.org installer puts a universal2 framework under /Library/Frameworks.
    if real.startswith("/Library/Frameworks/Python.framework/"):
        return "python.org"
    # Apple's Command Line Tools / Xcode Python, and the distribution's own /usr/bin/python3.
    if real.startswith(("/Library/Developer/CommandLineTools/", "/Applications/Xcode", "/usr/bin/", "/System/")):
        return "system"
    return "unknown"


def detect_setup(facts: Facts, manager: Optional[str] = None, shell: Optional[str] = None) -> Setup:
    """The Setup of the target interpreter; MANAGER and SHELL override what was detected."""
    interp = facts.target.interpreter
    env = facts.host.env
    real = (interp.executable_realpath or interp.executable or "") if interp else ""
    prefix = (interp.prefix or "") if interp else ""
    base = (interp.base_prefix or prefix) if interp else ""
    cfg = (interp.pyvenv_cfg or {}) if interp else {}
    if interp is not None and interp.conda_meta:
        kind, conda_env = "conda", os.path.basename(prefix.rstrip("/")) if "/envs/" in prefix else "base"
    elif "uv" in cfg:  # uv writes `uv = <version>` into pyvenv.cfg
        kind, conda_env = "uv-venv", None
    elif "virtualenv" in cfg:  # virtualenv writes `virtualenv = <version>`
        kind, conda_env = "virtualenv", None
    elif cfg:
        kind, conda_env = "venv", None
    else:
        kind, conda_env = "none", None
    source = python_source(real, prefix, base)
    if kind == "conda" and source not in ("miniforge",):
        source = "conda"
    detected_manager = {"conda": "conda", "uv-venv": "uv"}.get(kind, "pip")
    # macOS's login shell is zsh since Catalina; Windows' is PowerShell (a Windows paste: check runs on macOS and Linux).
    default_shell = {"Darwin": "zsh", "Windows": "powershell"}.get(facts.host.system, "bash")
    detected_shell = os.path.basename(env.get("SHELL", "")) or default_shell
    if detected_shell not in ("zsh", "bash", "fish"):
        detected_shell = default_shell
    return Setup(
        env_kind=kind, env_path=prefix if kind != "none" else None, conda_env=conda_env, python_source=source,
        externally_managed=bool(interp and interp.externally_managed), manager=manager or detected_manager,
        shell=shell or detected_shell,
    )
