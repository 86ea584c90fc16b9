"""The known-error catalogue's actions (known_errors.Intent, also what triage's parsers give their evidence) as the
checks' actions for one machine.

Installs become the intents the checks use (InstallTorch, InstallPackages, NewEnvironment, CheckAgain), which
remedies/ spells for the user's manager; settings and diagnostics run as written, a diagnostic that starts with
"python" with the user's Python. What does not apply to the machine is left out: nvidia-smi and a CUDA build on a Mac,
macOS's own tools elsewhere, CUDA's and NCCL's settings on a Mac, and a new environment with the Python it already runs.
"""

from typing import List, Optional, Sequence, Tuple

from mps_doctor.checking.model import Action, CheckAgain, InstallPackages, InstallTorch, NewEnvironment, export, note, run, unset
from mps_doctor.known_errors import MAC_ONLY, NVIDIA_ONLY, Intent
from mps_doctor.versions import load_releases, version_tuple

# Settings that only a CUDA (or NCCL) build of torch reads: nothing to set on a Mac.
CUDA_SETTINGS = ("CUDA_", "NCCL_", "PYTORCH_CUDA_")


def actions_of(intents: Sequence[Intent], system: Optional[str], python: str,
               python_version: Tuple[int, ...] = ()) -> Tuple[Action, ...]:
    """INTENTS as actions for a machine running SYSTEM (None: unknown), whose Python is started as PYTHON and is
    PYTHON_VERSION (() unknown), each once, in order; those that do not apply there are left out."""
    actions: List[Action] = []
    for intent in intents:
        action = action_of(intent, system, python, python_version)
        if action is not None and action not in actions:
            actions.append(action)
    return tuple(actions)


def action_of(intent: Intent, system: Optional[str], python: str, python_version: Tuple[int, ...]) -> Optional[Action]:
    """One INTENT as an action for the machine, or None where it does not apply there."""
    if intent.kind == "run":
        program = intent.words[0]
        if (system == "Darwin" and program in NVIDIA_ONLY) or (system in ("Linux", "Windows") and program in MAC_ONLY):
            return None
        return run(python if program == "python" else program, *intent.words[1:])
    if intent.kind in ("export", "unset"):
        if system == "Darwin" and intent.words[0].startswith(CUDA_SETTINGS):
            return None
        return export(*intent.words) if intent.kind == "export" else unset(intent.words[0])
    if intent.kind == "install_torch":
        cuda = intent.option("cuda")
        return None if cuda and system == "Darwin" else InstallTorch(
            intent.option("torch"), force=intent.option("force", False), cuda=cuda, audio=intent.option("audio", False))
    if intent.kind == "install_packages":
        return InstallPackages(intent.words, upgrade=intent.option("upgrade", False))
    if intent.kind == "new_environment":
        wanted = intent.option("python") or load_releases().python_for(None)
        if tuple(python_version[:2]) == version_tuple(wanted):
            return None
        return NewEnvironment("py" + wanted.replace(".", ""), wanted)
    if intent.kind == "check_again":
        return CheckAgain(device=intent.option("device"))
    return note(intent.words[0])


__all__ = ["actions_of"]
