"""torch's and Triton's warnings about a GPU's compute capability, and the torch release an install command asks for."""

import re
from typing import List, Sequence

from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, matching
from mps_doctor.versions import load_releases, version_tuple

CAPABILITY_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility"
TRITON_DOCS = "https://github.com/triton-lang/triton#compatibility"
# A GPU name as torch prints it (torch.cuda.get_device_name): letters, digits, spaces and a few marks, bounded.
NAME = r"[A-Za-z][\w .()/-]{0,79}?"
TRIGGER = re.compile(r"with CUDA capability sm_\d|which is of cuda capability \d|too old to be supported by the "
                     r"triton GPU compiler|\binstall\b.*\btorch={2,3}\d", re.I | re.M)
# torch/cuda/__init__.py, _check_capability (torch 1.x-2.x): 'Found GPU%d %s which is of cuda capability %d.%d.
# PyTorch no longer supports this GPU because it is too old. The minimum cuda capability supported by this library
# is %d.%d.' (later 'The minimum cuda capability that we support is %d.%d.').
OLD_GPU = re.compile(r"Found GPU(\d+) (%s) which is of cuda capability (\d+)\.(\d+)" % NAME)
OLD_MINIMUM = re.compile(r"minimum cuda capability (?:supported by this library is|that we support is) (\d+)\.(\d+)")
# torch/cuda/__init__.py, _check_cubins: '%s with CUDA capability sm_%d%d is not compatible with the current PyTorch
# installation. The current PyTorch install supports CUDA capabilities %s.'
NOT_COMPATIBLE = re.compile(r"(%s) with CUDA capability sm_(\d+?)(\d) is not compatible" % NAME)
SUPPORTED = re.compile(r"supports CUDA capabilities((?: (?:sm|compute)_\d+[a-z]?){1,40})")
# triton/backends/nvidia (and torch._inductor): 'Found %s which is too old to be supported by the triton GPU compiler,
# which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA
# capability 6.1'.
TRITON = re.compile(r"Found (%s) which is too old to be supported by the triton GPU compiler" % NAME)
TRITON_NUMBERS = re.compile(r"Capability >= (\d+)\.(\d+), but your device is of CUDA capability (\d+)\.(\d+)")
# `pip install torch==1.3.0`, `pip3 install torch===1.3.0 ...`, `uv pip install "torch==2.5.1"`.
INSTALL = re.compile(r"\b(?:pip3?|uv pip|-m pip) install\b[^\n]{0,300}?[\s\"']torch={2,3}(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)")
LOOKAHEAD = 3
# The kinds of evidence these messages give (checks/cuda.py registers the layer they implicate).
TOO_OLD_FOR_TORCH = "gpu-too-old-for-torch"
TOO_OLD_FOR_TRITON = "gpu-too-old-for-triton"


def parse_cuda_messages(lines: Sequence[Line]) -> Result:
    """GPU names and compute capabilities that torch's and Triton's warnings state, the arch list torch says it has,
    evidence against the capability layer, and the torch release an install command names."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    for index, line in matching(lines, TRIGGER):
        text = line.text
        near = " ".join(item.text for item in lines[index:index + LOOKAHEAD + 1])
        installed = INSTALL.search(text)
        if installed:
            out.append(Finding("request.torch", installed.group(1), line.number, "cuda-message"))
        old = OLD_GPU.search(text)
        if old:
            capability = "%s.%s" % (old.group(3), old.group(4))
            out += gpu_findings(old.group(2), capability, line.number)
            minimum = OLD_MINIMUM.search(near)
            evidence.append(too_old_for_torch(old.group(2).strip(), capability,
                                              "%s.%s" % minimum.groups() if minimum else None, line.number))
        mismatch = NOT_COMPATIBLE.search(text)
        if mismatch:
            out += gpu_findings(mismatch.group(1), "%s.%s" % (mismatch.group(2), mismatch.group(3)), line.number)
            supported = SUPPORTED.search(near)
            if supported:
                out.append(Finding("torch.cuda_arch_list", tuple(supported.group(1).split()), line.number, "cuda-message"))
        triton = TRITON.search(text)
        if triton:
            numbers = TRITON_NUMBERS.search(near)
            if numbers:
                out += gpu_findings(triton.group(1), "%s.%s" % (numbers.group(3), numbers.group(4)), line.number)
                evidence.append(too_old_for_triton(triton.group(1).strip(), "%s.%s" % numbers.group(3, 4),
                                                   "%s.%s" % numbers.group(1, 2), line.number))
    return out, evidence


def gpu_findings(name: str, capability: str, number: int) -> List[Finding]:
    """A GPU's name and the capability the message states for it."""
    name = name.strip().rsplit(": ", 1)[-1].strip()
    return [Finding("nvidia_smi.gpu", name, number, "cuda-message"),
            Finding("nvidia_smi.capability", (capability,), number, "cuda-message")]


def oldest_wheel_capability() -> str:
    """The lowest compute capability that any CUDA build in the release table has kernels for."""
    capabilities = [cc for release in load_releases().releases for _, ccs in release.cuda_builds for cc in ccs]
    return min(capabilities, key=version_tuple) if capabilities else "?"


def too_old_for_torch(name: str, capability: str, minimum, number: int) -> Evidence:
    """Evidence from torch's 'no longer supports this GPU because it is too old'."""
    oldest = oldest_wheel_capability()
    return Evidence(
        (), "%s is compute capability %s, below the %s this torch has kernels for" % (name, capability, minimum or "minimum"),
        "torch says that %s (compute capability %s) is too old for it%s." % (
            name, capability, ", whose oldest kernels are for %s" % minimum if minimum else ""),
        "Every CUDA kernel of this torch is compiled for newer GPUs, so none runs here. The CUDA builds of current "
        "torch releases start at compute capability %s (mps-doctor's release table); for %s, use a newer GPU, the "
        "CPU, or build torch from source with TORCH_CUDA_ARCH_LIST=%s." % (oldest, capability, capability),
        (), CAPABILITY_DOCS, number, "torch-capability", overrides=True, devices=("cuda",), kind=TOO_OLD_FOR_TORCH)


def too_old_for_triton(name: str, capability: str, minimum: str, number: int) -> Evidence:
    """Evidence from Triton's 'too old to be supported by the triton GPU compiler'."""
    return Evidence(
        (), "%s is compute capability %s; Triton compiles only for %s and newer" % (name, capability, minimum),
        "Triton, which torch.compile and vLLM use to generate GPU kernels, refuses %s (compute capability %s)." % (
            name, capability),
        "Triton supports devices of compute capability %s and newer. On this GPU, run without torch.compile (eager "
        "mode) or with a backend that does not use Triton; otherwise use a GPU of capability %s or newer." % (
            minimum, minimum),
        (), TRITON_DOCS, number, "triton-capability", overrides=True, devices=("cuda",), kind=TOO_OLD_FOR_TRITON)
