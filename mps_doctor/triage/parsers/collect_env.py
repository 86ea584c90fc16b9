"""`python -m torch.utils.collect_env` of every release since 1.12 (formats read from each release's own collect_env.py)."""

import re
from typing import Dict, Iterable, List, Optional, Sequence

from mps_doctor.triage.model import Finding
from mps_doctor.triage.parsers.common import LINUX_WORDS, Result, boolean, python_version
from mps_doctor.triage.parsers.platform import platform_facts
from mps_doctor.triage.parsers.session import FREE_THREADING
from mps_doctor.triage.text import Line, matching

# torch/utils/collect_env.py, env_info_fmt, per release (read from each release's wheel):
#   1.12: PyTorch version .. Is XNNPACK available, Versions of relevant libraries
#   1.13: + "CUDA_MODULE_LOADING set to:"      2.0: + "CPU:" block (lscpu, or sysctl machdep.cpu.brand_string on macOS)
#   2.9:  + "Is XPU available:"                2.10: + "Caching allocator config:" (2.13 prints the same)
COLLECT_ENV_FORMATS = (
    ("2.10", "Caching allocator config"),
    ("2.9", "Is XPU available"),
    ("2.0", "CPU"),
    ("1.13", "CUDA_MODULE_LOADING set to"),
    ("1.12", "Is XNNPACK available"),
)
COLLECT_ENV_KEYS = (
    "PyTorch version", "Is debug build", "CUDA used to build PyTorch", "ROCM used to build PyTorch", "OS",
    "GCC version", "Clang version", "CMake version", "Libc version", "Python version", "Python platform",
    "Is CUDA available", "CUDA runtime version", "CUDA_MODULE_LOADING set to", "GPU models and configuration",
    "Nvidia driver version", "cuDNN version", "Is XPU available", "HIP runtime version", "MIOpen runtime version",
    "Is XNNPACK available", "Caching allocator config",
)
KEYS = "|".join(re.escape(k) for k in COLLECT_ENV_KEYS)
# Older releases spell some labels otherwise ("Os:" for "OS:"), and pastes through some editors have full-width
# colons ("GPU 0："): a label is read whatever its case and colon.
KEY_LINE = re.compile(r"^(%s)[:：]\s*(.*)$" % KEYS, re.I)
CANONICAL = {key.lower(): key for key in COLLECT_ENV_KEYS}
COLLECT_ENV_LINE = re.compile(r"^(?:CPU|(?i:%s))[:：]|^\[(?:pip3?|conda|uv|poetry)\]" % KEYS, re.M)
# What ends a CPU: or GPU models block: an empty line, the next key, or the package listing.
BLOCK_END = re.compile(r"^(?:$|(?:%s):|Versions of relevant)" % KEYS, re.M)
PACKAGE_LINE = re.compile(r"^\[(pip3?|conda|uv|poetry)\]\s+(\S+?)(?:==|\s+)(\S+)")
UNKNOWN = ("N/A", "Could not collect", "No CUDA", "None", "")


FREE_THREADED = re.compile(FREE_THREADING)

def collect_env_format(keys: Iterable[str]) -> Optional[str]:
    """The first torch release whose collect_env prints these keys (a lower bound), or None."""
    keys = set(keys)
    if "PyTorch version" not in keys:
        return None
    for release, marker in COLLECT_ENV_FORMATS:
        if marker in keys:
            return release
    return "older than 1.12"


def parse_collect_env(lines: Sequence[Line]) -> Result:
    """`python -m torch.utils.collect_env` output of every release since 1.12 (also a part of it)."""
    out: List[Finding] = []
    seen: Dict[str, int] = {}
    block_end = 0
    for index, line in matching(lines, COLLECT_ENV_LINE):
        if index < block_end:
            continue
        if line.text.replace("：", ":") in ("CPU:", "GPU models and configuration:"):
            key = line.text[:-1]
            seen[key] = line.number
            block_end = next(matching(lines, BLOCK_END, index + 1), (len(lines), None))[0]
            block = [found for _, found in matching(lines, CPU_LINE if key == "CPU" else GPU_LINE, index + 1, block_end)]
            out += cpu_block(block) if key == "CPU" else gpu_block(block)
            continue
        match = KEY_LINE.match(line.text)
        if match:
            key = CANONICAL[match.group(1).lower()]
            seen[key] = line.number
            out += collect_env_field(key, match.group(2).strip(), line.number)
            continue
        package = PACKAGE_LINE.match(line.text)
        if package:
            found = package_finding(package.group(2), package.group(3), line.number, "collect_env")
            # get_conda_packages(): `conda list` of the active environment, so a conda row is a conda environment's.
            if package.group(1) == "conda" and re.match(r"\d", package.group(3)):
                found.append(Finding("interpreter.conda", True, line.number, "collect_env"))
            out += found
    release = collect_env_format(seen)
    if release:
        out.append(Finding("collect_env.format", release, seen["PyTorch version"], "collect_env"))
    return out, []


def collect_env_field(key: str, value: str, number: int) -> List[Finding]:
    """Findings of one `Key: value` line of collect_env."""
    p = "collect_env"
    if key == "PyTorch version":
        if value in UNKNOWN:
            return [Finding("torch.import_failed", True, number, p)]
        return [Finding("torch.installed", True, number, p), Finding("torch.version", value, number, p)]
    if key == "CUDA used to build PyTorch":
        if value == "N/A":
            return []
        return [Finding("torch.cuda_version", None if value in UNKNOWN else value, number, p)]
    if key == "Is CUDA available":
        flag = boolean(value)
        return [] if flag is None else [Finding("torch.cuda_available", flag, number, p)]
    if key == "Nvidia driver version" and value not in UNKNOWN:
        return [Finding("nvidia_smi.driver_version", value, number, p)]
    if key == "GPU models and configuration" and value not in UNKNOWN:
        return gpu_block([Line(number, value)])
    if key == "Python version":
        version = python_version(value)
        out = [Finding("interpreter.version", version, number, p)] if version else []
        # sys.version of conda's Python builds: "3.12.8 | packaged by Anaconda, Inc. | (main, ...)", "| packaged by
        # conda-forge |".
        if re.search(r"\| packaged by (?:Anaconda|conda-forge)", value):
            out.append(Finding("interpreter.conda", True, number, p))
        if version:
            out.append(Finding("interpreter.free_threaded", bool(FREE_THREADED.search(value)), number, p))
        if "32-bit runtime" in value:
            out.append(Finding("interpreter.pointer_bits", 32, number, p))
        return out
    if key == "Python platform":
        return platform_facts(value, number, p)
    if key == "OS":
        mac = re.match(r"(?:macOS|Mac OSX) (\d+\.\d+(?:\.\d+)?) \((\w+)\)", value)
        if mac:
            # get_os(): sw_vers -productVersion and platform.machine() of the Python that ran collect_env.
            machine = "x86_64" if mac.group(2) in ("x86_64", "i386") else mac.group(2)
            out = [Finding("host.system", "Darwin", number, p), Finding("interpreter.machine", machine, number, p)]
            if not mac.group(1).startswith("10.16"):
                out.append(Finding("host.macos_version", mac.group(1), number, p))
            if machine == "arm64":
                out.append(Finding("host.hw_arm64", True, number, p))
            return out
        if re.search(r"Windows", value):
            return [Finding("host.system", "Windows", number, p)]
        if re.search(r"\bma[cx] ?os|\bos ?x\b|\bdarwin\b", value, re.I):
            # A person's "OS: Mac OS Sonoma 14.5" (prose reads its version), or "OS: Max os, chip: M1" (surya#216).
            return [Finding("host.system", "Darwin", number, p)]
        # On Linux get_os() prints the distribution's name and the machine: "Ubuntu 22.04.3 LTS (x86_64)", "Arch Linux
        # (x86_64)" (torch/utils/collect_env.py); a Linux on a Mac's chip is Linux ("Asahi Linux ... on Apple M2").
        if value not in UNKNOWN and re.search(r"\((?:x86_64|aarch64|ppc64le|s390x)\)\s*$|%s" % LINUX_WORDS, value, re.I):
            return [Finding("host.system", "Linux", number, p), Finding("host.distro", value, number, p)]
        if re.search(r"\bApple M[1-5]\b|\bchip: M[1-5]\b", value):
            return [Finding("host.system", "Darwin", number, p)]
    return []


CPU_LINE = re.compile(r"^(?:Architecture:|Model name:|Apple M\d|Intel\(R\)|AMD )", re.M)
GPU_LINE = re.compile(r"^GPU \d", re.M)
CPU_ARCH = re.compile(r"Architecture:\s*(\S+)")
CPU_MODEL = re.compile(r"(?:Model name:\s*)?(Apple M\d.*|Intel\(R\).*|AMD .*)$")
GPU_LISTED = re.compile(r"GPU \d+[:：]\s*(\S.*)$")


def cpu_block(block: Sequence[Line]) -> List[Finding]:
    """The CPU: block: `sysctl -n machdep.cpu.brand_string` on macOS, lscpu on Linux."""
    out: List[Finding] = []
    for line in block:
        text = line.text
        arch = CPU_ARCH.match(text)
        if arch:
            out.append(Finding("host.cpu_arch", arch.group(1), line.number, "collect_env"))
        model = CPU_MODEL.match(text)
        if model:
            brand = model.group(1).strip()
            out.append(Finding("host.cpu_brand", brand, line.number, "collect_env"))
            if brand.startswith("Apple M"):
                out.append(Finding("host.hw_arm64", True, line.number, "collect_env"))
    return out


def gpu_block(block: Sequence[Line]) -> List[Finding]:
    """GPU models: `nvidia-smi -L` without UUIDs ('GPU 0: NVIDIA H200')."""
    out: List[Finding] = []
    for line in block:
        found = GPU_LISTED.match(line.text)
        if found:
            out.append(Finding("nvidia_smi.gpu", found.group(1).rstrip(), line.number, "collect_env"))
    return out


def package_finding(name: str, version: str, number: int, parser: str) -> List[Finding]:
    """A package version (torch, pytorch, torchvision, numpy...) from a listing."""
    name = name.lower().replace("_", "-")
    # A distribution name as PEP 508 spells it: anything else in a listing is not a package, and never a fact's name.
    if not re.fullmatch(r"[a-z0-9](?:[a-z0-9._-]{0,98}[a-z0-9])?", name):
        return []
    if name == "pytorch":
        name = "torch"
    if not re.match(r"^\d+\.\d+", version):
        return []
    return [Finding("packages." + name, version, number, parser)]
