"""Other environment dumps: Lightning's bug-report script, `transformers env`/`accelerate env`, `conda info` and conda transactions."""

import re
from typing import List, Optional, Sequence, Tuple

from mps_doctor.triage.model import Finding
from mps_doctor.triage.parsers.collect_env import UNKNOWN, package_finding
from mps_doctor.triage.parsers.common import VERSION, Result, boolean, python_version
from mps_doctor.triage.parsers.platform import platform_facts
from mps_doctor.triage.text import Line, matching


def dash_field(text: str) -> Optional[Tuple[str, str, str]]:
    """(whitespace after the dash, key, value) of a `- key: value` line, split at its first colon, or None."""
    head, colon, value = text.partition(":")
    if not (colon and head.startswith("-") and value[:1].isspace() and value.strip()):
        return None
    key = head[1:].lstrip()
    return head[1:len(head) - len(key)], key, value.strip()


LIGHTNING_LINE = re.compile(r"^[*-][^\S\n]", re.M)
LIGHTNING_HEAD = re.compile(r"\*\s+(\w[\w ]*):\s*$")
LIGHTNING_KEY = re.compile(r"[\w .()/,`-]*")
LIGHTNING_GPU = re.compile(r"-\s+(NVIDIA .+|Tesla .+|Quadro .+)$")


def lightning_field(text: str) -> Optional[Tuple[str, str]]:
    """(key, value) of a `- key: value` field of Lightning's dump, or None."""
    field = dash_field(text)
    if not field:
        return None
    space, key, value = field
    # As `-\s+([\w .()/,`-]+?):` reads it: the key may also begin with the last of two spaces or more.
    if not space or not LIGHTNING_KEY.fullmatch(key) or not (key or len(space) > 1 and space.endswith(" ")):
        return None
    return key.strip().lower(), value


def parse_lightning(lines: Sequence[Line]) -> Result:
    """Lightning's collect_env_details dump (`* CUDA:`, `- available:`, `* System:`, `- processor:`) and the bug
    template's short fields (`- PyTorch Version (e.g., 2.0):`)."""
    out: List[Finding] = []
    section = ""
    p = "lightning"
    for _, line in matching(lines, LIGHTNING_LINE):
        text = line.text
        head = LIGHTNING_HEAD.match(text)
        if head:
            section = head.group(1).strip().lower()
            continue
        field = lightning_field(text)
        if section == "cuda" and not field:
            # `- GPU:` lists the names below it, one `- NAME` each (torch.cuda.get_device_name).
            gpu = LIGHTNING_GPU.match(text)
            if gpu:
                out.append(Finding("nvidia_smi.gpu", gpu.group(1).strip(), line.number, p))
        if not field:
            continue
        key, value = field
        if section == "cuda" and key == "available":
            flag = boolean(value)
            if flag is not None:
                out.append(Finding("torch.cuda_available", flag, line.number, p))
        elif section == "cuda" and key == "version":
            out.append(Finding("torch.cuda_version", None if value in UNKNOWN else value, line.number, p))
        elif section in ("lightning", "packages") and key in ("torch", "pytorch", "lightning", "pytorch-lightning",
                                                                "torchvision", "numpy"):
            out += package_finding(key, value, line.number, p)
        elif section in ("system", "") and key == "os" and value in ("Darwin", "Linux", "Windows"):
            system = {"darwin": "Darwin", "linux": "Linux", "windows": "Windows"}.get(value.lower())
            if system:
                out.append(Finding("host.system", system, line.number, p))
        elif section in ("system", "") and key == "processor":
            # platform.processor(): 'arm' for an arm64 Python on macOS, 'i386' for an x86_64 one.
            if value == "arm":
                out.append(Finding("interpreter.machine", "arm64", line.number, p))
            elif value == "i386":
                out.append(Finding("interpreter.machine", "x86_64", line.number, p))
        elif section == "system" and key == "python":
            version = python_version(value)
            if version:
                out.append(Finding("interpreter.version", version, line.number, p))
        elif section in ("system", "") and key == "version" and "RELEASE_ARM64" in value:
            out.append(Finding("host.hw_arm64", True, line.number, p))
        elif key.startswith("pytorch version"):
            out += package_finding("torch", value, line.number, p)
    return out, []


HF_ENV_LINE = re.compile(r"^-[^\S\n][^:\n]*:[^\S\n]", re.M)
# A key as `-\s+(`?[\w ]+`?(?: \([\w?]+\))?(?: version)?[\w ()?]*):` reads it, without the whitespace before it;
# after two spaces or more the key may also begin with the last of them (HF_SPACED_KEY).
HF_KEY = re.compile(r"`?(?:[\w ]+`|[\w ])[\w ()?]*")
HF_SPACED_KEY = re.compile(r"(?:`[\w ]+`|[\w ]*`)?[\w ()?]*")


def hf_env_field(text: str) -> Optional[Tuple[str, str]]:
    """(key, value) of a `- key: value` line of `transformers env` or `accelerate env`, or None."""
    field = dash_field(text)
    if not field:
        return None
    space, key, value = field
    spaced = len(space) > 1 and space.endswith(" ")
    if not space or not (HF_SPACED_KEY if spaced else HF_KEY).fullmatch(key):
        return None
    return key.replace("`", "").strip().lower(), value


def parse_hf_env(lines: Sequence[Line]) -> Result:
    """`transformers env` and `accelerate env` (and diffusers'): `- Platform:`, `- Python version:`,
    `- PyTorch version (GPU?): 2.1.0 (False)`, `- PyTorch version (accelerator?): 2.5.1 (NA)`, accelerate 1.x's
    `- PyTorch accelerator: MPS` and `- MPS type:`, `- GPU type:` (transformers/commands/env.py,
    accelerate/commands/env.py)."""
    out: List[Finding] = []
    p = "hf-env"
    mac = False
    for _, line in matching(lines, HF_ENV_LINE):
        field = hf_env_field(line.text)
        if not field:
            continue
        key, value = field
        if key == "platform":
            found = platform_facts(value, line.number, p)
            mac = any(f.path == "host.system" and f.value == "Darwin" for f in found)
            out += found
        elif key == "python version":
            version = python_version(value)
            if version:
                out.append(Finding("interpreter.version", version, line.number, p))
        elif key.startswith("pytorch version"):
            torch = re.match(r"(%s)(?:\s+\((\w+)\))?" % VERSION, value)
            if torch:
                out += package_finding("torch", torch.group(1), line.number, p)
                flag = boolean(torch.group(2) or "")
                if "gpu" in key and flag is not None:
                    out.append(Finding("torch.cuda_available", flag, line.number, p))
                if torch.group(2) == "MPS":
                    out.append(Finding("torch.mps_available", True, line.number, p))
                if torch.group(2) == "CUDA":
                    out.append(Finding("torch.cuda_available", True, line.number, p))
        elif key == "pytorch accelerator":
            # accelerate env (1.x): CUDA, XPU, ..., MPS, or N/A when torch sees none (accelerate/commands/env.py).
            if value == "CUDA":
                out.append(Finding("torch.cuda_available", True, line.number, p))
            elif value == "MPS":
                out.append(Finding("torch.mps_available", True, line.number, p))
            elif value == "N/A" and mac:
                out.append(Finding("torch.mps_available", False, line.number, p))
        elif key == "mps type" and value.startswith("Apple M"):
            out += [Finding("host.hw_arm64", True, line.number, p), Finding("host.cpu_brand", value, line.number, p)]
        elif key == "pytorch mps available":
            flag = boolean(value)
            if flag is not None:
                out.append(Finding("torch.mps_available", flag, line.number, p))
        elif key == "gpu type" and "nvidia" in value.lower():
            out.append(Finding("nvidia_smi.gpu", value, line.number, p))
    return out, []


CONDA_INFO_LINE = re.compile(r"^[^\S\n]*(?:platform|python version|virtual packages)[^\S\n]*:|__archspec=1=|__osx=", re.I | re.M)
CONDA_INFO_FIELD = re.compile(r"\s*(platform|python version|virtual packages)\s*:\s*(\S.*)$", re.I)
CONDA_PLAN_LINE = re.compile(r"::pytorch-|PackagesNotFoundError|\b(?:pkgs/main|conda-forge|pytorch|defaults)/osx-|/(?:win|linux)-32\b")
# conda's 32-bit platforms (conda/base/constants.py KNOWN_SUBDIRS: win-32, linux-32), named by `conda info`'s platform or
# a channel URL of the environment ("https://conda.anaconda.org/pytorch/win-32", pytorch#49330): a 32-bit conda, whose
# Python gets no torch (every torch release is for 64-bit platforms only).
CONDA_32_BIT = re.compile(r"\b(?:conda\.anaconda\.org/[\w.-]+|repo\.anaconda\.com/pkgs/\w+|pkgs/main|conda-forge|pytorch|"
                          r"defaults)/(win|linux)-32\b")
THIRTY_TWO_BIT_SYSTEMS = {"win": "Windows", "linux": "Linux"}
CUDA_PACKAGE = re.compile(r"^-\s+(pytorch-cuda|cudatoolkit|cuda-[\w-]+)", re.M)


def parse_conda_info(lines: Sequence[Line]) -> Result:
    """`conda info`: `platform : osx-64`, `python version : 3.11.5.final.0`, `__archspec=1=m1` (conda's
    cli/main_info.py; the archspec virtual package names the CPU even under an osx-64 conda)."""
    out: List[Finding] = []
    p = "conda-info"
    for _, line in matching(lines, CONDA_INFO_LINE):
        text = line.text
        field = CONDA_INFO_FIELD.match(text)
        value = field.group(2).rstrip() if field else text
        if field and field.group(1).lower() == "platform":
            platform = value
            if platform in ("osx-64", "osx-arm64"):
                out += [Finding("host.system", "Darwin", line.number, p), Finding("interpreter.conda_subdir", platform, line.number, p),
                        Finding("interpreter.machine", "x86_64" if platform == "osx-64" else "arm64", line.number, p)]
            elif platform.startswith("linux-"):
                out.append(Finding("host.system", "Linux", line.number, p))
            if platform in ("win-32", "linux-32"):
                out += [Finding("interpreter.pointer_bits", 32, line.number, p),
                        Finding("host.system", THIRTY_TWO_BIT_SYSTEMS[platform[:-3]], line.number, p)]
        elif field and field.group(1).lower() == "python version":
            version = python_version(value)
            if version:
                out.append(Finding("interpreter.version", version, line.number, p))
        archspec = re.search(r"__archspec=1=(\w+)", value)
        if archspec and re.match(r"^(m\d|arm64)$", archspec.group(1)):
            # archspec names Apple's chips m1, m2, ... (older conda: arm64); only Apple Silicon reports them.
            out.append(Finding("host.hw_arm64", True, line.number, p))
        osx = re.search(r"__osx=(\d+\.\d+(?:\.\d+)?)=", value)
        if osx:
            out += [Finding("host.system", "Darwin", line.number, p), Finding("interpreter.mac_ver", osx.group(1), line.number, p)]
    return out + conda_plan(lines), []


def conda_plan(lines: Sequence[Line]) -> List[Finding]:
    """A conda transaction: `pkgs/main/osx-arm64::pytorch-1.10.2-cpu_py38h23cb94c_0` (channel/subdir::name-version-build)
    and PackagesNotFoundError listing CUDA packages (pytorch-cuda, cudatoolkit, cuda-*)."""
    out: List[Finding] = []
    p = "conda-plan"
    for index, line in matching(lines, CONDA_PLAN_LINE):
        # A channel's subdir in a plan or in `conda list --show-channel-urls`: pkgs/main/osx-64, conda-forge/osx-arm64.
        subdir = re.search(r"\b(?:pkgs/main|conda-forge|pytorch|defaults)/(osx-64|osx-arm64)\b", line.text)
        if subdir:
            out.append(Finding("interpreter.conda_subdir", subdir.group(1), line.number, p))
        thirty_two = CONDA_32_BIT.search(line.text)
        if thirty_two:
            out += [Finding("interpreter.pointer_bits", 32, line.number, p),
                    Finding("host.system", THIRTY_TWO_BIT_SYSTEMS[thirty_two.group(1)], line.number, p)]
        planned = re.search(r"(osx-arm64|osx-64|linux-64|linux-aarch64|win-64)::pytorch-(\d+\.\d+\.\d+)-(\S+)", line.text)
        if planned:
            subdir, version, build = planned.groups()
            out += [Finding("interpreter.conda_subdir", subdir, line.number, p), Finding("packages.torch", version, line.number, p)]
            if subdir.startswith("osx-"):
                machine = "arm64" if subdir == "osx-arm64" else "x86_64"
                out += [Finding("host.system", "Darwin", line.number, p), Finding("interpreter.machine", machine, line.number, p)]
                if machine == "arm64":
                    out.append(Finding("host.hw_arm64", True, line.number, p))
            python = re.search(r"py3(\d+)", build)
            if python:
                out.append(Finding("interpreter.version", (3, int(python.group(1))), line.number, p))
        if "PackagesNotFoundError" in line.text:
            for _, following in matching(lines, CUDA_PACKAGE, index + 1, index + 12):
                cuda = CUDA_PACKAGE.match(following.text)
                if cuda:
                    out.append(Finding("request.cuda_build", cuda.group(1), following.number, p))
                    break
    return out
