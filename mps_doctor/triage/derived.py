"""CUDA facts that follow from pasted ones by NVIDIA's tables and the release table: the highest CUDA of a driver,
each GPU's compute capability, the arch list of a wheel's CUDA build; and the evidence they give.

Each derived fact keeps the lines of the facts it follows from, and the parser "derived"; a fact the paste states
is never replaced.
"""

from typing import Any, Dict, List, Optional, Tuple

from mps_doctor import nvidia
from mps_doctor.triage.model import Evidence
from mps_doctor.versions import load_releases, version_tuple

DERIVED = "derived"
# The kind of evidence a GPU below its CUDA's capability floor gives (checks/cuda.py registers its layer).
BELOW_CUDA_FLOOR = "gpu-below-cuda-floor"
CAPABILITY_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility"


def lines_of(known: Dict[str, Any], *paths: str) -> Tuple[int, ...]:
    """The pasted lines of the facts PATHS."""
    return tuple(sorted({n for path in paths if path in known for n in known[path].lines}))


def value_of(known: Dict[str, Any], path: str) -> Any:
    return known[path].value if path in known else None


def derive_cuda(known: Dict[str, Any], make) -> Dict[str, Any]:
    """KNOWN with the CUDA facts that follow from it; MAKE(value, lines, parser) builds one fact."""
    known = dict(known)
    system = value_of(known, "host.system")
    driver = value_of(known, "nvidia_smi.driver_version")
    if driver and "nvidia_smi.cuda_version" not in known:
        # NVIDIA CUDA Toolkit Release Notes, Table 3: the driver's branch decides the newest CUDA it runs.
        cuda = nvidia.driver_cuda(str(driver), system)
        if cuda:
            known["nvidia_smi.cuda_version"] = make(cuda, lines_of(known, "nvidia_smi.driver_version"), DERIVED)
    names = tuple(value_of(known, "nvidia_smi.gpu") or ())
    if names and "nvidia_smi.capability" not in known:
        capabilities = tuple(nvidia.capability_of(name) for name in names)
        if all(capabilities):
            known["nvidia_smi.capability"] = make(capabilities, lines_of(known, "nvidia_smi.gpu"), DERIVED)
    capabilities = tuple(value_of(known, "nvidia_smi.capability") or ())
    if names and len(capabilities) == len(names) and "torch.cuda_devices" not in known:
        known["torch.cuda_devices"] = make(names, lines_of(known, "nvidia_smi.gpu", "nvidia_smi.capability"), DERIVED)
    arch = arch_list(known)
    if arch and "torch.cuda_arch_list" not in known:
        known["torch.cuda_arch_list"] = make(arch, lines_of(known, "torch.version", "torch.cuda_version"), DERIVED)
    return known


def arch_list(known: Dict[str, Any]) -> Optional[Tuple[str, ...]]:
    """The arch list of the installed torch's CUDA build, from the release table's builds of its release."""
    version, cuda = value_of(known, "torch.version"), value_of(known, "torch.cuda_version")
    if not version or not cuda:
        return None
    release, exact = load_releases().row_for(str(version))
    builds = dict(release.cuda_builds) if release is not None and exact else {}
    cuda = ".".join(str(cuda).split(".")[:2])
    return tuple("sm_%s" % cc.replace(".", "") for cc in builds[cuda]) if cuda in builds else None


def wheel_cuda(known: Dict[str, Any]) -> Tuple[Optional[str], str]:
    """The CUDA the paste's torch is built with, and how that is known: torch's own report, the wheel's +cuXYZ, or
    the PyPI Linux wheel of the torch version it installs or asks for (Linux only)."""
    if "torch.cuda_version" in known:
        cuda = value_of(known, "torch.cuda_version")
        how = {"build": "the install's index or build string says so", "derived": "its version's +cu label says so"}.get(
            known["torch.cuda_version"].parser, "torch reports it")
        return (".".join(str(cuda).split(".")[:2]), how) if cuda else (None, "")
    if value_of(known, "torch.wheel_cuda"):
        return str(value_of(known, "torch.wheel_cuda")), "the wheel's name says so"
    if value_of(known, "host.system") != "Linux":
        return None, ""
    for path in ("torch.version", "packages.torch", "request.torch"):
        version = value_of(known, path)
        cuda = nvidia.pypi_linux_cuda(str(version), load_releases()) if version else None
        if cuda:
            return cuda, "torch %s's PyPI Linux wheel is built with it" % version
    return None, ""


def capability_evidence(known: Dict[str, Any]) -> List[Evidence]:
    """Evidence against the capability layer: a GPU below the lowest capability that the CUDA of the paste's torch
    (else of every torch since the oldest in the tables) builds code for (NVIDIA's release notes)."""
    names = tuple(value_of(known, "nvidia_smi.gpu") or ())
    capabilities = tuple(value_of(known, "nvidia_smi.capability") or ())
    cuda, how = wheel_cuda(known)
    old = nvidia.old_pypi_cuda()
    oldest = min(old.values(), key=version_tuple, default=None)
    first = min(old, key=version_tuple, default=None)
    toolkit = cuda or oldest
    floor = nvidia.capability_floor(toolkit) if toolkit else None
    out = []
    for name, capability in zip(names, capabilities):
        if floor and capability and version_tuple(capability) < version_tuple(floor):
            whose = "torch's CUDA %s (%s)" % (cuda, how) if cuda else \
                "CUDA %s, the oldest that any torch release since %s is built with" % (oldest, first)
            out.append(Evidence(
                (), "%s is compute capability %s, older than %s builds for (%s and newer)" % (
                    name, capability, whose, floor),
                "%s has compute capability %s (NVIDIA's table of CUDA GPUs); %s has no code for it." % (
                    name, capability, whose),
                "NVIDIA's CUDA toolkits stop building for old GPUs (from CUDA %s, capability %s and newer), so no "
                "kernel of this torch can run on it. Use a newer NVIDIA GPU, or the CPU." % (toolkit, floor),
                (), CAPABILITY_DOCS, lines_of(known, "nvidia_smi.gpu")[0], "nvidia-capability", overrides=True,
                devices=("cuda",), kind=BELOW_CUDA_FLOOR))
    return out


def devices_from(known: Dict[str, Any], device) -> tuple:
    """The GPUs as DEVICE(index, name, capability) when the paste names them and their capabilities are known."""
    if "torch.cuda_devices" not in known or "nvidia_smi.capability" not in known:
        return ()
    names, capabilities = known["torch.cuda_devices"].value, known["nvidia_smi.capability"].value
    return tuple(device(index, name, version_tuple(capability)[:2])
                 for index, (name, capability) in enumerate(zip(names, capabilities)))
