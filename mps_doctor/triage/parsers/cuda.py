"""torch's and Triton's warnings about a GPU's compute capability, and the torch release an install command asks for."""

import re
from typing import List, Sequence

from mps_doctor import known_errors
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import load_releases, version_tuple

CAPABILITY_DOCS = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/#binary-compatibility"
TRITON_DOCS = "https://github.com/triton-lang/triton#compatibility"
# The lines to read: torch's and Triton's capability warnings (catalogue entries of these kinds, whose named groups
# are read below), or an install command that names a torch release.
MESSAGE_KINDS = (known_errors.GPU_TOO_OLD_FOR_TORCH, known_errors.GPU_NOT_COMPATIBLE, known_errors.GPU_TOO_OLD_FOR_TRITON,
                 known_errors.CUDA_UNAVAILABLE_REPORTED)
TRIGGER = re.compile(known_errors.trigger(*MESSAGE_KINDS).pattern + r"|\binstall\b.*\btorch={2,3}\d", re.I | re.M)
# `pip install torch==1.3.0`, `pip3 install torch===1.3.0 ...`, `uv pip install "torch==2.5.1"`.
INSTALL = re.compile(r"\b(?:pip3?|uv pip|-m pip) install\b[^\n]{0,300}?[\s\"']torch={2,3}(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)")
LOOKAHEAD = 3
# A `docker build` log (the classic builder's "Step 9/12 : RUN", BuildKit's "#8 [4/6] RUN"): a build sees no GPU
# unless one is configured for it, so a program there finding no CUDA says nothing about the machine's torch.
DOCKER_BUILD = re.compile(r"^Step \d+/\d+ : RUN\b|^#\d+ \[[^\]\n]{1,40}\] RUN\b|\bdocker (?:build|buildx build)\b", re.M)
# The kinds of evidence these messages give (checks/cuda.py registers the layer they implicate).
TOO_OLD_FOR_TORCH = "gpu-too-old-for-torch"
TOO_OLD_FOR_TRITON = "gpu-too-old-for-triton"
# A traceback through `assert torch.cuda.is_available()` (the catalogue's code.asserts-cuda-available: that call alone,
# then its AssertionError) shows that it returned False in the program's process, as a program's own words of
# CUDA_UNAVAILABLE_REPORTED do (deep-daze#72).
ASSERTED_AVAILABLE = "code.asserts-cuda-available"


def parse_cuda_messages(lines: Sequence[Line]) -> Result:
    """GPU names and compute capabilities that torch's and Triton's warnings state, the arch list torch says it has,
    evidence against the capability layer, and the torch release an install command names."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    building = DOCKER_BUILD.search(joined(lines))
    for index, line in matching(lines, TRIGGER):
        text = line.text
        near = " ".join(item.text for item in lines[index:index + LOOKAHEAD + 1])
        installed = INSTALL.search(text)
        if installed:
            out.append(Finding("request.torch", installed.group(1), line.number, "cuda-message"))
        if known_errors.search(known_errors.CUDA_UNAVAILABLE_REPORTED, text) and not building:
            # A program says torch.cuda.is_available() returned False: stable-diffusion-webui's launcher asserts it,
            # Bark, RVC and GFPGAN fall back to the CPU with their own words (each entry names its source).
            out.append(Finding("torch.cuda_available", False, line.number, "cuda-message"))
        old = known_errors.search(known_errors.GPU_TOO_OLD_FOR_TORCH, text)
        if old:
            capability = "%s.%s" % (old.group("major"), old.group("minor"))
            out += gpu_findings(old.group("name"), capability, line.number)
            minimum = known_errors.search(known_errors.TORCH_MINIMUM_CAPABILITY, near)
            evidence.append(too_old_for_torch(old.group("name").strip(), capability, "%s.%s" % (
                minimum.group("major"), minimum.group("minor")) if minimum else None, line.number))
        mismatch = known_errors.search(known_errors.GPU_NOT_COMPATIBLE, text)
        if mismatch:
            out += gpu_findings(mismatch.group("name"), "%s.%s" % (mismatch.group("major"), mismatch.group("minor")),
                                line.number)
            supported = known_errors.search(known_errors.TORCH_SUPPORTED_CAPABILITIES, near)
            if supported:
                out.append(Finding("torch.cuda_arch_list", tuple(supported.group("list").split()), line.number,
                                   "cuda-message"))
        triton = known_errors.search(known_errors.GPU_TOO_OLD_FOR_TRITON, text)
        if triton:
            numbers = known_errors.search(known_errors.TRITON_CAPABILITY_NUMBERS, near)
            if numbers:
                capability = "%s.%s" % (numbers.group("major"), numbers.group("minor"))
                out += gpu_findings(triton.group("name"), capability, line.number)
                evidence.append(too_old_for_triton(triton.group("name").strip(), capability, "%s.%s" % (
                    numbers.group("min_major"), numbers.group("min_minor")), line.number))
    asserted = None if building else known_errors.by_id(ASSERTED_AVAILABLE).pattern.search(joined(lines))
    if asserted is not None and not any(finding.path == "torch.cuda_available" for finding in out):
        line = lines[joined(lines).count("\n", 0, asserted.start())]
        out.append(Finding("torch.cuda_available", False, line.number, "cuda-message"))
    return out, evidence


# torch prints the name the driver reports ("NVIDIA GeForce RTX 5080", "Tesla K80", "A100-SXM4-40GB"); a sentence that
# retells the warning runs on before it ("... facing issue like NVIDIA GeForce RTX 5080 with CUDA capability sm_120",
# pytorch#153944), so the name starts at the last brand word that no other brand word precedes.
BRAND_WORD = re.compile(r"(?<![\w-])(?:NVIDIA|GeForce|Tesla|Quadro|TITAN|Jetson|RTX|GTX)\b")


def gpu_name(told: str) -> str:
    """The GPU's name in the text a message's name group caught (TOLD)."""
    name = told.strip().rsplit(": ", 1)[-1].strip()
    starts = [found.start() for found in BRAND_WORD.finditer(name)
              if not BRAND_WORD.search(name[max(0, found.start() - 40):found.start()].rstrip().rsplit(" ", 1)[-1])]
    return name[starts[-1]:] if starts else name


def gpu_findings(name: str, capability: str, number: int) -> List[Finding]:
    """A GPU's name and the capability the message states for it."""
    name = gpu_name(name)
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
