"""The commands a catalogue entry or a parser's evidence names, as actions for the pasted machine.

The catalogue writes its fixes as text for people (`pip install torch --index-url .../cu128`). A reply's Fix must run
where the paste came from and hold no value that is not the user's or the doctor's own: installs become the intents
the checks use (InstallTorch, InstallPackages, NewEnvironment, CheckAgain), which remedies/ spells for the user's
manager; settings and diagnostics run as written, with the user's Python; a command with a placeholder, or one for
another system (nvidia-smi and a CUDA index on a Mac, sw_vers off macOS), stays in the prose only.
"""

import re
import shlex
from typing import List, Optional, Sequence, Tuple

from mps_doctor.checking.model import Action, CheckAgain, InstallPackages, InstallTorch, NewEnvironment, export, note, run, unset
from mps_doctor.versions import load_releases, version_tuple

# A value the catalogue leaves for the reader to fill in: `torch==` (pip's list of versions), `torch==X`, `cuXYZ`,
# `<interface>`.
PLACEHOLDER = re.compile(r"==(?=\s|$|['\"])|==[A-Z]\b|\bcuXYZ\b|<[\w -]+>")
# Programs of one system: macOS's own tools, NVIDIA's driver tool.
MAC_ONLY = ("sw_vers", "softwareupdate", "sysctl", "arch", "xcode-select")
NVIDIA_ONLY = ("nvidia-smi",)
# Programs whose command runs as written on the machine that has them; anything else (conda, brew, sudo) is left out.
AS_WRITTEN = ("sw_vers", "softwareupdate", "sysctl", "arch", "nvidia-smi", "uname", "docker")
# The CUDA build an index serves: https://download.pytorch.org/whl/cu128 is CUDA 12.8.
CUDA_INDEX = re.compile(r"/whl/cu(\d+)(\d)/?$")
COMPANIONS = ("torch", "torchvision", "torchaudio")
SETTING = re.compile(r"^export ([A-Z][A-Z0-9_]*)=([\w.:,-]+)$")
REMOVAL = re.compile(r"^unset ([A-Z][A-Z0-9_]*)$")


def pasted_actions(commands: Sequence[str], system: Optional[str], python: str,
                   python_version: Tuple[int, ...] = ()) -> Tuple[Action, ...]:
    """The actions of COMMANDS for a machine running SYSTEM (None: unknown), whose Python is started as PYTHON and
    is PYTHON_VERSION (() unknown): a new environment with the Python it already runs is no fix and is left out."""
    actions: List[Action] = []
    for command in commands:
        command, _, remark = command.strip().partition("  # ")
        if command.startswith("# "):
            actions.append(note(command[2:]))
            continue
        found = setting_actions(command, system) if SETTING.match(command) or REMOVAL.match(command) else \
            () if PLACEHOLDER.search(command) else command_actions(command, system, python, python_version)
        if found and remark:
            actions.append(note(remark))
        actions += [action for action in found if action not in actions]
    return tuple(actions)


def setting_actions(command: str, system: Optional[str]) -> Tuple[Action, ...]:
    """`export NAME=value` and `unset NAME` as actions; CUDA's and NCCL's variables are left out on a Mac."""
    setting, removal = SETTING.match(command), REMOVAL.match(command)
    name = (setting or removal).group(1)
    if system == "Darwin" and name.startswith(("CUDA_", "NCCL_", "PYTORCH_CUDA_")):
        return ()
    return (export(name, setting.group(2)),) if setting else (unset(name),)


def command_actions(command: str, system: Optional[str], python: str,
                    python_version: Tuple[int, ...]) -> Tuple[Action, ...]:
    """The actions of one shell command (segments joined by &&), or () when it does not run on SYSTEM."""
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    segments: List[List[str]] = [[]]
    for word in words:
        if word == "&&":
            segments.append([])
        else:
            segments[-1].append(word)
    actions: List[Action] = []
    reinstall = False
    for argv in segments:
        if not argv:
            return ()
        argv = with_python(argv, python)
        if argv[1:3] == ["-m", "pip"] and argv[3:4] == ["uninstall"] and "torch" in argv:
            reinstall = True
            continue
        found = segment_actions(argv, system, python_version, reinstall)
        if found is None:
            return ()
        actions += found
    return tuple(actions)


def with_python(argv: List[str], python: str) -> List[str]:
    """ARGV started by the user's Python: `pip ...` as `PYTHON -m pip ...`, `python3 ...` as `PYTHON ...`."""
    if argv[0] in ("pip", "pip3"):
        return [python, "-m", "pip"] + argv[1:]
    if argv[0] in ("python", "python3"):
        return [python] + argv[1:]
    return argv


def segment_actions(argv: List[str], system: Optional[str], python_version: Tuple[int, ...],
                    reinstall: bool) -> Optional[List[Action]]:
    """The actions of one command ARGV, or None when it does not run on SYSTEM or says nothing runnable."""
    program = argv[0]
    if (system == "Darwin" and program in NVIDIA_ONLY) or (system in ("Linux", "Windows") and program in MAC_ONLY):
        return None
    if argv[1:4] == ["-m", "pip", "install"]:
        return install_actions(argv[4:], system, reinstall)
    if program == "uv":
        return uv_actions(argv[1:], python_version)
    if program == "mps-doctor" and argv[1:2] == ["check"]:
        device = argv[argv.index("--device") + 1] if "--device" in argv[:-1] else None
        return [CheckAgain(device=device)]
    if program in ("python", "python3") or program in AS_WRITTEN:
        return [run(*argv)]
    return None


def install_actions(args: List[str], system: Optional[str], reinstall: bool) -> Optional[List[Action]]:
    """`pip install ARGS` as intents: torch and its companions as InstallTorch (the release a pin names, pinned with its
    companions as the release table pairs them; from the CUDA index named, never on a Mac), other packages as
    InstallPackages; an option the intents cannot carry, or a torch the release table lacks, leaves it to the prose."""
    upgrade, force, cuda = False, reinstall, None
    packages: List[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-U", "--upgrade"):
            upgrade = True
        elif word == "--force-reinstall":
            force = True
        elif word == "--no-cache-dir":
            pass
        elif word in ("--index-url", "--extra-index-url") and index + 1 < len(args):
            found = CUDA_INDEX.search(args[index + 1])
            if found is None or system == "Darwin":
                return None
            cuda = "%s.%s" % found.groups()
            index += 1
        elif word.startswith("-"):
            return None
        else:
            packages.append(word)
        index += 1
    names = {re.split(r"[=<>!~;\[ ]", name, maxsplit=1)[0].lower(): name for name in packages}
    torch = [name for name in names if name in COMPANIONS]
    others = [spec for name, spec in names.items() if name not in COMPANIONS]
    pinned = re.fullmatch(r"torch==(\d+\.\d+)[\d.]*", names.get("torch", ""))
    release = load_releases().row_for(pinned.group(1)) if pinned else (None, False)
    if (cuda and not torch) or ("torch" in names and names["torch"] != "torch" and not release[1]) or (
            torch and "torch" not in torch):
        return None
    actions: List[Action] = []
    if torch:
        actions.append(InstallTorch(release[0].torch if release[1] else None, force=force, cuda=cuda,
                                    audio="torchaudio" in torch))
    if others:
        actions.append(InstallPackages(tuple(others), upgrade=upgrade))
    return actions or None


def uv_actions(args: List[str], python_version: Tuple[int, ...]) -> Optional[List[Action]]:
    """`uv python install X`, `uv python pin X` and `uv venv --python X` as one new environment with Python X; None
    for a bare `uv python install` or for the Python the machine already runs."""
    wanted = None
    if args[:2] in (["python", "install"], ["python", "pin"]) and len(args) > 2:
        wanted = args[2]
    elif args[:1] == ["venv"] and "--python" in args[:-1]:
        wanted = args[args.index("--python") + 1]
    if not wanted or not re.fullmatch(r"3\.\d+", wanted):
        return None
    if tuple(python_version[:2]) == version_tuple(wanted):
        return None
    return [NewEnvironment("py" + wanted.replace(".", ""), wanted)]


__all__ = ["pasted_actions"]
