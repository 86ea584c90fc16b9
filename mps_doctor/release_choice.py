"""The torch release, CUDA build, package index and new environment's Python for a set of facts, within the team's
policy: the one choice that the checks (checking/context.py) and the fix plan (remedies/plan.py) both make."""

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from mps_doctor.checking.model import NewEnvironment, Options
from mps_doctor.facts import Facts, Host, Interpreter, TorchInfo
from mps_doctor.known_errors import DRIVER_TOO_OLD, captured
from mps_doctor.versions import Release, ReleaseTable, admits, at_least, version_tuple, wheel_platform

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
WHEEL_INDEX = "https://download.pytorch.org/whl/"


@dataclass(frozen=True)
class ReleaseChoice:
    """What to install on the machine of FACTS for the device of OPTIONS, within its team's policy, from RELEASES."""

    facts: Facts
    options: Options
    releases: ReleaseTable

    @property
    def host(self) -> Host:
        return self.facts.host

    @property
    def interp(self) -> Optional[Interpreter]:
        return self.facts.target.interpreter

    @property
    def torch(self) -> Optional[TorchInfo]:
        return self.facts.target.torch

    @property
    def device(self) -> str:
        return self.options.device

    @property
    def is_mac(self) -> bool:
        return self.host.system == "Darwin"

    @property
    def python_version(self) -> Optional[Tuple[int, ...]]:
        """The target Python's version; None when unknown (no interpreter facts, or a paste without the version)."""
        return tuple(self.interp.version) if self.interp and self.interp.version else None

    def torch_version(self) -> Optional[str]:
        """The installed torch version: from torch itself, else from its package metadata."""
        if self.torch is None:
            return None
        return self.torch.version or self.torch.packages.get("torch")

    def macos(self) -> Optional[str]:
        """The macOS version from sw_vers, or Python's own view when sw_vers was unreadable (not 10.16)."""
        if self.host.macos_version:
            return self.host.macos_version
        if self.interp and self.interp.mac_ver and self.interp.mac_ver != "10.16":
            return self.interp.mac_ver
        return None

    def intel_mac(self) -> bool:
        return self.is_mac and self.host.hw_arm64 is False

    def allows(self, release: Optional[Release]) -> bool:
        """Whether the team's torch and torchvision specifiers (none: every release) admit some build of RELEASE."""
        policy = self.options.policy
        return release is not None and admits(policy.torch, release.torch_pin) and admits(
            policy.torchvision, release.torchvision_pin)

    def installable(self, python: Optional[Tuple[int, ...]] = None) -> Tuple[Release, ...]:
        """The rows this machine can install for the requested device, oldest first: the last Intel-Mac release on an
        Intel Mac, those whose MPS runs on this macOS for --device mps, else the known ones; each for this Python (or
        PYTHON, the version of a new environment) when it is known."""
        py = python or self.python_version
        if self.intel_mac():
            return (self.releases.row_for(self.releases.last_intel_torch)[0],)
        macos = self.macos() if self.is_mac and self.device == "mps" else None
        return tuple(r for r in self.releases.releases if (py is None or r.supports_python(py)) and (
            (r.macos_min_mps is not None and at_least(macos, r.macos_min_mps)) if macos else r.confidence != "unknown")
            and (python is not None or self.has_free_threaded_wheel(r)))

    def free_threaded_platform(self) -> Optional[str]:
        """The wheel platform of a free-threaded target Python (`versions.wheel_platform`), else None."""
        if not (self.interp and self.interp.free_threaded):
            return None
        return wheel_platform(self.host.system, self.interp.machine)

    def has_free_threaded_wheel(self, release: Release) -> bool:
        """Whether RELEASE has a wheel for the target Python: always for a regular build; for a free-threaded one, when
        the row lists its `cp3XYt` tag for this platform (or does not say)."""
        platform = self.free_threaded_platform()
        pythons = release.free_threaded_pythons(platform) if platform and self.python_version else None
        return pythons is None or "%d.%d" % self.python_version[:2] in pythons

    def allowed_release(self, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """The newest release this machine can install (with PYTHON) that the team's policy allows; None if none."""
        return next((r for r in reversed(self.installable(python)) if self.allows(r)), None)

    def release_to_install(self, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """The torch release to install on this machine for the requested device and this Python (or PYTHON, the
        version of a new environment): the newest the team's policy allows, else (policy.torch says so) the newest."""
        rows = self.installable(python)
        return self.allowed_release(python) or (rows[-1] if rows else None)

    def newest_for_platform(self) -> Release:
        """The newest release this platform can get, whatever the Python, that the team's policy allows (when one
        does): the last Intel-Mac release on an Intel Mac, the newest whose MPS runs on this macOS for --device mps,
        else the current release."""
        if self.intel_mac():
            return self.releases.row_for(self.releases.last_intel_torch)[0]
        if self.is_mac and self.device == "mps" and self.macos():
            rows = [r for r in self.releases.releases if r.macos_min_mps and at_least(self.macos(), r.macos_min_mps)]
        else:
            rows = [r for r in self.releases.releases if r.confidence != "unknown"]
        return next((r for r in reversed(rows) if self.allows(r)), rows[-1] if rows else self.releases.current)

    def newest_allowed(self) -> Release:
        """The newest known release the team's policy allows (the current release without a policy, or when the
        policy allows none)."""
        rows = [r for r in self.releases.releases if r.confidence != "unknown"]
        return next((r for r in reversed(rows) if self.allows(r)), self.releases.current)

    def limits_torch(self) -> bool:
        """Whether the team's policy sets a torch or torchvision specifier."""
        return bool(self.options.policy.torch or self.options.policy.torchvision)

    def new_environment_python(self) -> Optional[str]:
        """The Python (such as the table's `new_environment_python`) of a new environment: the release table's choice
        when the team's Python specifier admits it and a release the policy allows installs for it here, else the
        nearest such Python; None if none."""
        spec = self.options.policy.python
        for version in self.releases.new_pythons:
            py = version_tuple(version)
            if admits(spec, version + ".*") and self.allowed_release(py) is not None and (
                    self.allowed_release(py).supports_python(py)):
                return version
        return None

    def new_python(self) -> str:
        """new_environment_python(), or the table's choice when nothing fits (the policy checks then say why)."""
        return self.new_environment_python() or self.releases.new_environment_python

    def release_to_reinstall(self) -> Optional[Release]:
        """The table row of the installed torch, when it is in the table and the team's policy allows it; else the
        release to install."""
        version = self.torch_version()
        if version:
            release, exact = self.releases.row_for(version)
            if release is not None and exact and self.allows(release):
                return release
        return self.release_to_install()

    def gpu_capabilities(self) -> List[Tuple[int, int]]:
        """Capabilities of the GPUs torch sees."""
        return [tuple(d.capability[:2]) for d in (self.torch.cuda_devices if self.torch else ())]

    def driver_cuda(self) -> Optional[str]:
        """The newest CUDA the driver supports: from nvidia-smi, else from torch's 'driver too old (found version N)'."""
        smi = self.host.nvidia_smi
        if smi is not None and smi.cuda_version:
            return smi.cuda_version
        for text in (self.torch.warnings if self.torch else ()):
            found = captured(DRIVER_TOO_OLD, "found", text)
            if found:
                # c10/cuda/CUDAFunctions.cpp: the number is major * 1000 + minor * 10 (12080 = CUDA 12.8).
                number = int(found)
                return "%d.%d" % (number // 1000, (number % 1000) // 10)
        return None

    def best_build(self, release: Optional[Release]) -> Optional[str]:
        """The newest CUDA build of RELEASE that this driver runs and whose kernels cover every GPU torch sees."""
        return best_build(release, self.gpu_capabilities(), self.driver_cuda())

    def release_for_driver(self) -> Optional[Tuple[Release, str]]:
        """(the newest release this machine can install that the policy allows, its best build) among those with a
        CUDA build this driver runs (NVIDIA's minimum drivers: a build newer than the driver's CUDA fails to load);
        None when the driver's CUDA is unknown or no release has such a build."""
        if not self.driver_cuda():
            return None
        for release in reversed(self.installable()):
            build = self.best_build(release)
            if build and self.allows(release):
                return release, build
        return None

    def cuda_build(self, installed: Optional[Release], cuda: Optional[str], asked: Optional[str]) -> Optional[str]:
        """The CUDA build to install INSTALLED (None: the release to install) from, for a remedy that asked for build
        CUDA of torch ASKED: this machine's best build of another release than ASKED, and where the release has no
        build CUDA (a CUDA named apart from a release, such as a pasted `--index-url .../cu128`), its oldest build at
        or above CUDA, which keeps the GPUs the named one covers."""
        if cuda and installed is not None and installed.torch != asked:
            cuda = self.best_build(installed) or cuda
        target = installed or self.release_to_install()
        if cuda and target is not None and target.cuda_builds and cuda not in dict(target.cuda_builds):
            cuda = next((build for build, _ in sorted(target.cuda_builds, key=lambda b: version_tuple(b[0]))
                         if version_tuple(build) >= version_tuple(cuda)), cuda)
        return cuda

    def index_url(self, cuda: Optional[str] = None) -> Optional[str]:
        """The index torch comes from here: CUDA build CUDA's, PyTorch's CPU index on Linux off --device cuda (plain
        PyPI brings a CUDA build there, reference/mps-facts.md 8.2), else PyPI (None)."""
        if cuda:
            return cuda_index(cuda)
        if self.host.system == "Linux" and self.device != "cuda":
            return CPU_INDEX
        return None


def new_environment(choice: ReleaseChoice, suffix: str = "", arm64: bool = False,
                    install_torch: bool = True) -> NewEnvironment:
    """A new environment with the Python that choice.new_python() chooses, named SUFFIX (default: py and its digits)."""
    python = choice.new_python()
    return NewEnvironment(suffix or "py" + python.replace(".", ""), python, arm64=arm64, install_torch=install_torch)


def cuda_index(cuda: str) -> str:
    """The wheel index of a CUDA build: 13.0 -> https://download.pytorch.org/whl/cu130."""
    return WHEEL_INDEX + "cu" + cuda.replace(".", "")


def arch_covers(arch_list, capability) -> bool:
    """Whether a wheel built for ARCH_LIST runs on a GPU of CAPABILITY.

    NVIDIA's rules (CUDA C++ Programming Guide, "Binary Compatibility" and "PTX Compatibility"): sm_XY code runs
    on X.Z with Z >= Y; compute_XY PTX is JIT-compiled for any device >= X.Y.
    """
    major, minor = capability[0], capability[1]
    for arch in arch_list:
        match = re.match(r"^(sm|compute)_(\d+)(\d)[a-z]?$", arch)
        if not match:
            continue
        kind, arch_major, arch_minor = match.group(1), int(match.group(2)), int(match.group(3))
        if kind == "sm" and arch_major == major and arch_minor <= minor:
            return True
        if kind == "compute" and (arch_major, arch_minor) <= (major, minor):
            return True
    return False


def best_build(release: Optional[Release], capabilities: List[Tuple[int, int]], driver: Optional[str]) -> Optional[str]:
    """The newest CUDA build of RELEASE that the driver runs and whose kernels cover every GPU; with the driver
    unknown, the oldest build that covers them (it asks the least of the driver: NVIDIA's table)."""
    if release is None:
        return None
    choices = []
    for cuda, ccs in release.cuda_builds:
        if driver and version_tuple(cuda)[:1] > version_tuple(driver)[:1]:
            continue
        if driver and version_tuple(cuda) > version_tuple(driver):
            continue
        arch = ["sm_%s" % cc.replace(".", "") for cc in ccs]
        if all(arch_covers(arch, cap) for cap in capabilities):
            choices.append(cuda)
    if not choices:
        return None
    return choices[-1] if driver else choices[0]
