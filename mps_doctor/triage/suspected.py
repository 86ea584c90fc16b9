"""Suspected causes: when the fact that decides a layer is not in the paste, the most likely answer from what is,
and the one command that settles it. A suspicion fails its layer (never passes it) and is marked `suspected` in the
verdict."""

import re
from typing import Any, Callable, Dict, Optional, Sequence

from mps_doctor import nvidia
from mps_doctor.checking.model import Outcome, Remedy, Status, run
from mps_doctor.triage.derived import wheel_cuda
from mps_doctor.triage.parsers.prose import APPLE_NAMED
from mps_doctor.triage.text import Line
from mps_doctor.versions import at_least, load_releases, version_tuple

SUSPECTED = "suspected"
COMPAT_DOCS = "https://docs.nvidia.com/deploy/cuda-compatibility/"


def old_driver(known: Dict[str, Any], alone: bool = False) -> Optional[Outcome]:
    """`torch.cuda.is_available()` is False, the paste shows the CUDA its torch is built with but not the driver: an
    older driver than that CUDA needs is the likeliest reason (torch returns False then, without an error), and
    `nvidia-smi` shows the driver."""
    available = known.get("torch.cuda_available")
    if available is None or available.value is not False or may_hide_gpus(known):
        return None
    system = known["host.system"].value if "host.system" in known else None
    cuda, how = wheel_cuda(known)
    minimum = nvidia.minimum_driver(cuda, system) if cuda else None
    if not minimum:
        return None
    return Outcome(
        Status.FAIL,
        "%s: the NVIDIA driver is older than CUDA %s needs (driver >= %s); the paste does not show the driver" % (
            SUSPECTED, cuda, minimum),
        ("torch.cuda.is_available() is False (pasted line %s); %s" % (
            ", ".join(map(str, available.lines)), how),),
        Remedy("torch.cuda.is_available() is False, and the paste does not show the NVIDIA driver's version.",
               "This torch is built with CUDA %s (%s), which needs NVIDIA driver %s or newer (NVIDIA's CUDA Toolkit "
               "release notes); with an older driver torch reports no GPU without an error. `nvidia-smi` prints the "
               "driver version: if it is older, update the driver, or install the same torch built for an older "
               "CUDA." % (cuda, how, minimum), (run("nvidia-smi"),), COMPAT_DOCS, key="suspected-old-driver",
               title="Read the driver version"),
    )


def cpu_build(known: Dict[str, Any], alone: bool = False) -> Optional[Outcome]:
    """`torch.cuda.is_available()` is False and the paste does not show torch's build, on Windows, on a machine whose
    system is not shown but whose NVIDIA GPU is named with no driver line, or on one whose system is not shown where
    the symptom stands ALONE (symptom_alone) and no fact of SAYS_MORE is pasted: a CPU build is the likeliest reason,
    since the torch that plain `pip install torch` gets on Windows is one (PyTorch's CUDA builds come from its own
    index, pytorch.org/get-started), a reinstall by another package's requirements brings it back, and a named GPU
    without a driver line leaves the build as the first thing to read. On Windows beside a named NVIDIA GPU, a torch
    version shown without its +cu label is suspected too."""
    # The artifact: PyPI's torch-2.15.0-cp312-cp312-win_amd64.whl (sha256 f2bd0a3709a7493a6ef2ac5a654111242a854439f7
    # 558f910b6b653b56f7504d) has torch/version.py `__version__ = '2.15.0+cpu'`, `cuda = None`, and every CUDA
    # Requires-Dist of its METADATA is marked `platform_system == "Linux"`.
    # A message only a CUDA build prints (the catalogue's cuda_build_only) shows the build.
    if "torch.cuda_shown" in known:
        return None
    available = known.get("torch.cuda_available")
    version = next((known[path] for path in ("torch.version", "packages.torch") if path in known), None)
    # The GPUs hidden by a stated CUDA_VISIBLE_DEVICES, or a build shown by its label (+xpu, +rocm6.2): the paste says
    # more than a suspicion could (review15 H2, M3).
    if may_hide_gpus(known) or version is not None and OTHER_BUILD.search(str(version.value)):
        return None
    system = known["host.system"].value if "host.system" in known else None
    gpu_without_driver = "nvidia_smi.gpu" in known and "nvidia_smi.driver_version" not in known
    # With the system not shown, a CPU build is the likeliest only where the symptom stands alone (symptom_alone) and no
    # pasted fact says more: a driver, a CUDA build asked for, torch's version (+rocm, +xpu, NVIDIA's container builds),
    # or the GPUs hidden (nougat#1's "No GPU found" beside "a modern nvidia GPU"; satflow#18).
    unexplained = system is None and alone and not SAYS_MORE & set(known)
    if available is not None and available.value is False and (system == "Windows" or gpu_without_driver and system is None
                                                                or unexplained):
        where = "on Windows" if system == "Windows" else "with an NVIDIA GPU named" if gpu_without_driver else \
            "on a system the paste does not name"
        return cpu_build_outcome("torch.cuda.is_available() is False (pasted line %s) %s" % (
            ", ".join(map(str, available.lines)), where), "torch.cuda.is_available() is False %s" % where, system)
    # PyTorch's CUDA wheels for Windows carry their CUDA in the version (2.5.1+cu124): a version shown without it, beside
    # the NVIDIA GPU the user expects torch to use, is PyPI's CPU build (F5-TTS#404: "so it seems like a torch-cpu
    # version").
    if system == "Windows" and "nvidia_smi.gpu" in known and version is not None and "+" not in str(version.value) and \
            (available is None or available.value is False):
        return cpu_build_outcome("torch %s shows no +cu label (pasted line %s) on Windows beside an NVIDIA GPU" % (
            version.value, ", ".join(map(str, version.lines))),
            "torch %s, as pasted, carries no +cu label on Windows" % version.value, system)
    return None


def may_hide_gpus(known: Dict[str, Any]) -> bool:
    """Whether the paste sets CUDA_VISIBLE_DEVICES to a value that hides every GPU of a one-GPU machine under NVIDIA's
    rules (nvidia.parse_visible_devices): empty, -1, an index but 0 first; `=0` hides nothing (llamafactory#3228)."""
    if "env.CUDA_VISIBLE_DEVICES" not in known:
        return False
    return not nvidia.parse_visible_devices(str(known["env.CUDA_VISIBLE_DEVICES"].value), 1)[0]


# A torch version's local label naming another accelerator's build (PyTorch's +xpu and +rocmX.Y wheels).
OTHER_BUILD = re.compile(r"\+(?:xpu|rocm)")
# The facts beside a false is_available() that leave a CPU build no likelier than anything else.
SAYS_MORE = frozenset(("nvidia_smi.driver_version", "request.cuda_build", "torch.version", "packages.torch",
                       "env.CUDA_VISIBLE_DEVICES"))
# Words that give the build a reason to be read first: an NVIDIA GPU the user has, or an install they ran.
BUILD_IN_VIEW = re.compile(r"\bnvidia\b|\bgeforce\b|\b[RG]TX ?\d|\bQuadro\b|显卡|\bconda\b|\bpip3? install\b|"
                           r"\brequirements(?:\.txt)?\b|\binstall(?:ing|ed)? (?:all )?(?:the )?dependencies\b", re.I)
# Words that place the trouble elsewhere: a machine that is not a Windows PC (Linux, WSL, Jetson, a container, a hosted
# notebook, a cluster, an AMD GPU; a Mac is prose.APPLE_NAMED), the GPUs hidden or absent, the driver's own tools, a CUDA
# build told.
PLACED_ELSEWHERE = re.compile(
    r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|WSL2?|Jetson|JetPack|L4T|Tegra|Docker|containers?|Colab|Kaggle|"
    r"SageMaker|Slurm|srun|cluster|ROCm|AMD|Radeon|Apple)\b|--gpus\b|CUDA_VISIBLE_DEVICES|"
    r"\bnvidia-smi\b|\bNVML\b|\b(?:do not|don'?t|doesn'?t|does not) have an? (?:\w+ )?GPU\b|\b(?:has|have|with) no (?:\w+ )?GPU\b|"
    r"\bwithout an? (?:\w+ )?GPU\b|\binstalled\b[^.\n]{0,40}(?:\bcu\d{3}\b|\bCUDA (?:build|version|wheel)\b)|"
    r"pytorch-cuda\s*=|cudatoolkit\s*=", re.I)
# The symptom asked about or written in code, not reported: "How can I run on the CPU when CUDA is not available?",
# "if not torch.cuda.is_available(): raise RuntimeError('No GPU found')".
NOT_REPORTED = re.compile(r"^\W*(?:how|does|do|can|could|is|will|would|should)\b[^\n]*\?\s*$|^\s*(?:if|elif|raise|assert|"
                          r"return|def)\b|\bif not torch\.cuda\.is_available\(\)", re.I)


def symptom_alone(lines: Sequence[Line], available: Optional[Any]) -> bool:
    """Whether the false is_available() of AVAILABLE (a Known) stands alone in LINES, so that the build is the first
    thing to read: it is reported (not asked, not code), the paste names an NVIDIA GPU or an install, and nothing
    places the trouble elsewhere."""
    if available is None:
        return False
    text = "\n".join(line.prompt + " " + line.text for line in lines)
    reported = [line for line in lines if line.number in available.lines]
    return bool(reported) and not any(NOT_REPORTED.search(line.text) for line in reported) and \
        bool(BUILD_IN_VIEW.search(text)) and not PLACED_ELSEWHERE.search(text) and not APPLE_NAMED.search(text)


def cpu_build_outcome(evidence: str, problem: str, system: Optional[str]) -> Outcome:
    """The suspicion that torch is a CPU build, with the EVIDENCE line, the PROBLEM sentence and the paste's SYSTEM."""
    return Outcome(
        Status.FAIL,
        "%s: torch is a build without CUDA%s; the paste does not show torch's build" % (
            SUSPECTED, " (the default on Windows)" if system == "Windows" else ""),
        (evidence,),
        Remedy("%s, and the paste does not show which build of torch it is." % problem,
               "A torch built without CUDA is the commonest reason: the torch that `pip install torch` installs on "
               "Windows is a CPU build (PyPI's Windows wheels have no CUDA; PyTorch's CUDA builds come from its own "
               "index), and another package's requirements can reinstall one. It prints a version ending in +cpu and "
               "None for the CUDA: then reinstall torch from PyTorch's CUDA index for the driver that `nvidia-smi` "
               "shows.",
               (run("python", "-c", "import torch; print(torch.__version__, torch.version.cuda)"), run("nvidia-smi")),
               WINDOWS_INSTALL_DOCS, key="suspected-cpu-wheel", title="Read torch's build"),
    )


def gpu_newer_than_most_torch(known: Dict[str, Any], alone: bool = False) -> Optional[Outcome]:
    """The paste names an NVIDIA GPU whose capability only the default wheels of the newer half of torch's releases
    have kernels for (nvidia.newer_than_most_torch), and shows no torch that has them: a torch without kernels for
    the GPU is the likeliest cause (it sees the GPU and fails at the first kernel, or the program falls back to the
    CPU), and `torch.cuda.get_arch_list()` settles it."""
    gpu, capability = known.get("nvidia_smi.gpu"), known.get("nvidia_smi.capability")
    available = known.get("torch.cuda_available")
    # A torch without the GPU's kernels still sees it, so a False is_available() rules this out: torch 2.13.0's
    # torch/cuda/__init__.py returns `_cuda_getDeviceCount() > 0` there, and _check_capability/_check_cubins only warn.
    if gpu is None or capability is None or available is not None and available.value is False:
        return None
    values = capability.value if isinstance(capability.value, tuple) else (capability.value,)
    value, releases = values[0], load_releases()
    first = nvidia.first_default_wheel_for(value, releases)
    # Every GPU the paste names must be such a one: the newer CUDA builds drop older GPUs (the release table's cu130
    # builds start at sm_75), so their advice could break another GPU the paste names.
    if first is None or not all(nvidia.newer_than_most_torch(each, releases) for each in values):
        return None
    toolkit = nvidia.cuda_for_capability(value)
    cuda, _ = wheel_cuda(known)
    version = next((known[path].value for path in ("torch.version", "packages.torch") if path in known), None)
    if (cuda and version_tuple(cuda) >= version_tuple(toolkit)) or (version and at_least(str(version), first.torch)):
        return None
    name = gpu.value[0] if isinstance(gpu.value, tuple) else gpu.value
    return Outcome(
        Status.FAIL,
        "%s: torch has no kernels for the %s (compute capability %s), which needs a build with CUDA %s or newer; the "
        "paste does not show torch's build" % (SUSPECTED, name, value, toolkit),
        ("the %s (pasted line %s) has compute capability %s (NVIDIA's table)" % (
            name, ", ".join(map(str, gpu.lines)), value),),
        Remedy("The %s needs a torch built with CUDA %s or newer, and the paste does not show which torch it has." % (
            name, toolkit),
               "CUDA toolkits before %s build no code for compute capability %s (NVIDIA's CUDA Toolkit release notes), "
               "and torch's default Linux wheel on PyPI is built with one from torch %s on, so most installs and the torch that "
               "programs bundle have no kernels for it: torch sees the GPU and fails at its first kernel ('no kernel "
               "image is available'), or the program falls back to the CPU. `torch.cuda.get_arch_list()` lists the "
               "kernels torch has: when sm_%s is not among them, install a torch built with CUDA %s or newer from PyTorch's index." % (
                   toolkit, value, first.torch, value.replace(".", ""), toolkit),
               (run("python", "-c", "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())"),),
               WINDOWS_INSTALL_DOCS, key="suspected-gpu-too-new", title="Read the kernels torch has"),
    )


WINDOWS_INSTALL_DOCS = "https://pytorch.org/get-started/locally/"
# The decisive fact each suspicion stands in for: it speaks for a layer that needs that fact when the paste lacks it.
# Each reads the paste's facts and whether the symptom stands ALONE (no message, no parser's evidence beside it).
SUSPICIONS: Dict[str, Callable[[Dict[str, Any], bool], Optional[Outcome]]] = {
    "nvidia_smi.cuda_version": old_driver,
    "torch.cuda_version": cpu_build,
    "torch.cuda_arch_list": gpu_newer_than_most_torch,
}


def suspect(requirements: Sequence[str], known: Dict[str, Any], alone: bool = False) -> Optional[Outcome]:
    """The suspected cause for a layer that needs REQUIREMENTS ('a|b': either), from the paste's facts KNOWN and
    whether the symptom stands ALONE in it: the rule of a decisive fact it needs and the paste lacks; None when there
    is none."""
    for requirement in requirements:
        options = requirement.split("|")
        if any(option in known for option in options):
            continue
        for option in options:
            rule = SUSPICIONS.get(option)
            outcome = rule(known, alone) if rule is not None else None
            if outcome is not None:
                return outcome
    return None
