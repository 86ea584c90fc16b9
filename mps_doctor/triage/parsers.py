"""Parsers of pasted text: each takes the cleaned lines and returns findings (and evidence), with line numbers.

Pure functions; none of them raises on any input. Formats are read from the artifacts that print them (each
parser names its source). A paste is untrusted text of up to 5 MiB: each parser reads only the lines its trigger
finds in one scan of the paste, and every pattern runs in time linear in the line it reads.
"""

import re
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from mps_doctor.probe.host import normalize_macos_version
from mps_doctor.probe.host import parse_nvidia_smi as host_nvidia_smi
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import load_releases, version_tuple
from mps_doctor.versions import version_tuple as vt

Result = Tuple[List[Finding], List[Evidence]]
VERSION = r"\d+\.\d+(?:\.\d+)?(?:[.a-z0-9+]*)"
GET_STARTED = "https://pytorch.org/get-started/locally/"
TRUE_WORDS = {"true": True, "yes": True, "false": False, "no": False}


def boolean(text: str) -> Optional[bool]:
    """True/False/Yes/No as a bool, else None."""
    return TRUE_WORDS.get(text.strip().strip("'\"`").lower())


def python_version(text: str) -> Optional[Tuple[int, ...]]:
    """(3, 11, 9) from '3.11.9 (main, ...)', '3.11.9.final.0' or 'cp311'."""
    match = re.match(r"\s*(3)\.(\d{1,2})(?:\.(\d{1,2}))?", text) or re.match(r"\s*cp(3)(\d{1,2})\b", text)
    if not match:
        return None
    return tuple(int(g) for g in match.groups() if g is not None)


# --- platform strings -----------------------------------------------------------------------------------------

LINUX_RUN = re.compile(r"\bLinux-[\w.+-]*")
LINUX_MACHINE = re.compile(r"-(x86_64|aarch64|arm64|ppc64le|s390x)(?:-with|\b)")


def linux_platform(text: str) -> Optional[Tuple[str, str]]:
    """(release, machine) of the first `Linux-RELEASE-MACHINE` in TEXT."""
    # Only the first `Linux-` of a run of release characters counts: a later one in that run sees fewer machines.
    for run in LINUX_RUN.finditer(text):
        machine = LINUX_MACHINE.search(text, run.start() + 7, run.end())
        if machine:
            return text[run.start() + 6:machine.start()], machine.group(1)
    return None


def platform_facts(text: str, line: int, parser: str) -> List[Finding]:
    """Facts of a platform.platform() string: macOS-14.2.1-arm64-arm-64bit, Linux-...-linuxkit-aarch64-with-glibc2.36,
    Windows-11-10.0.22631-SP0 (CPython Lib/platform.py: system-release-machine-processor-...)."""
    out: List[Finding] = []
    found = re.search(r"\b(macOS|Darwin)-(\d+\.\d+(?:\.\d+)?)-(arm64|x86_64|i386)", text)
    if found:
        out += [Finding("host.system", "Darwin", line, parser), Finding("interpreter.machine",
                                                                         "x86_64" if found.group(3) != "arm64" else "arm64",
                                                                         line, parser)]
        if found.group(1) == "macOS":
            out.append(Finding("interpreter.mac_ver", found.group(2), line, parser))
        if found.group(3) == "arm64":
            # An arm64 process runs only on Apple Silicon.
            out.append(Finding("host.hw_arm64", True, line, parser))
        return out
    found = linux_platform(text) if "Linux-" in text else None
    if found:
        out += [Finding("host.system", "Linux", line, parser), Finding("host.release", found[0], line, parser),
                Finding("interpreter.machine", found[1], line, parser)]
        if "linuxkit" in found[0]:
            out.append(Finding("host.linux_container_on_mac", True, line, parser))
        return out
    if re.search(r"\bWindows-\d+", text):
        out.append(Finding("host.system", "Windows", line, parser))
    return out


PLATFORM_LINE = re.compile(r"macOS-|Darwin-|Linux-|Windows-|Darwin Kernel Version|linuxkit")
UNAME = re.compile(r"\bDarwin \S+ \d+\.\d+\.\d+ Darwin Kernel Version ")
KERNEL = re.compile(r"RELEASE_(ARM64|X86_64)\S*")


def uname_kernel(text: str) -> Optional[Tuple[str, str]]:
    """(kernel build, machine) of a `uname -a` line: ('ARM64', 'arm64') from 'Darwin ... RELEASE_ARM64_T6000 arm64'."""
    head = UNAME.search(text)
    # The first RELEASE_ of a word is followed by what every later one in that word is followed by.
    for kernel in KERNEL.finditer(text, head.end()) if head else ():
        machine = next((m for m in ("arm64", "x86_64") if text.startswith(" " + m, kernel.end())), None)
        if machine:
            return kernel.group(1), machine
    return None


def parse_platform(lines: Sequence[Line]) -> Result:
    """platform.platform() strings anywhere, and `uname -a` lines (Darwin ... RELEASE_ARM64_T6000 arm64)."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    for _, line in matching(lines, PLATFORM_LINE):
        text = line.text
        out += platform_facts(text, line.number, "platform")
        uname = uname_kernel(text) if "Darwin Kernel Version" in text else None
        if uname:
            # The kernel's build (RELEASE_ARM64_*) names the hardware; the last field is the process's view.
            out += [Finding("host.system", "Darwin", line.number, "uname"),
                    Finding("host.hw_arm64", uname[0] == "ARM64", line.number, "uname"),
                    Finding("interpreter.machine", uname[1], line.number, "uname")]
        if re.search(r"-linuxkit\b|linuxkit-aarch64", text):
            evidence.append(Evidence(
                (), "a Linux container on a Mac (Docker Desktop's linuxkit VM): no Metal, so no MPS",
                "The code runs in Linux (linuxkit) inside Docker on the Mac.",
                "Containers on macOS run in a Linux VM that exposes no Metal device; MPS exists only in macOS itself.",
                ("python3 -m venv .venv  # on the Mac, outside Docker",), "https://docs.pytorch.org/docs/stable/notes/mps.html",
                line.number, "platform", overrides=True, devices=("mps",), kind="container-on-mac"))
    return out, evidence


SW_VERS_LINE = re.compile(r"^(?:ProductVersion|BuildVersion):", re.M)


def parse_sw_vers(lines: Sequence[Line]) -> Result:
    """`sw_vers` output: ProductVersion and BuildVersion lines (macOS's sw_vers(1))."""
    out: List[Finding] = []
    version = None
    # Where in OUT each version read so far stands, until a build corrects it (a corrected version is final).
    uncorrected: Dict[str, List[int]] = {}
    for _, line in matching(lines, SW_VERS_LINE):
        found = re.match(r"ProductVersion:\s*(\d+\.\d+(?:\.\d+)?)\s*$", line.text)
        if found:
            version = found.group(1)
            uncorrected.setdefault(version, []).append(len(out) + 1)
            out += [Finding("host.system", "Darwin", line.number, "sw_vers"),
                    Finding("host.macos_version", version, line.number, "sw_vers")]
        build = re.match(r"BuildVersion:\s*(\w+)\s*$", line.text)
        if build and version:
            out.append(Finding("host.macos_build", build.group(1), line.number, "sw_vers"))
            real = normalize_macos_version(version, build.group(1))
            if real != version:
                for index in uncorrected.pop(version, []):
                    out[index] = Finding("host.macos_version", real, out[index].line, "sw_vers")
    return out, []


NVIDIA_SMI_LINE = re.compile(r"Driver Version:|^GPU \d|^\|", re.M)
SMI_ROW = re.compile(r"\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro) )([^|]*)\|")


def smi_row_gpu(text: str) -> Optional[str]:
    """The GPU of an `nvidia-smi` table row ('|   0  NVIDIA H200    On  |   00000000:...'), or None: the name is what
    stands before the persistence mode (On or Off) in the row's first cell."""
    row = SMI_ROW.match(text)
    cell = row.group(2) if row else ""
    if not cell[-1:].isspace():
        return None
    cell = cell.rstrip()
    mode = next((m for m in ("On", "Off") if cell.endswith(m)), "")
    name = cell[:len(cell) - len(mode)]
    if not mode or not name[-1:].isspace():
        return None
    return (row.group(1) + name).strip()


def parse_nvidia_smi(lines: Sequence[Line]) -> Result:
    """`nvidia-smi` header (Driver Version, CUDA Version) and `nvidia-smi -L` lines, via the host probe's parser."""
    out: List[Finding] = []
    for _, line in matching(lines, NVIDIA_SMI_LINE):
        if "Driver Version:" in line.text:
            smi = host_nvidia_smi(line.text, "")
            if smi.driver_version:
                out.append(Finding("nvidia_smi.driver_version", smi.driver_version, line.number, "nvidia-smi"))
            if smi.cuda_version:
                out.append(Finding("nvidia_smi.cuda_version", smi.cuda_version, line.number, "nvidia-smi"))
        listed = host_nvidia_smi("", line.text)
        for name in listed.gpus:
            out.append(Finding("nvidia_smi.gpu", name, line.number, "nvidia-smi"))
        row = smi_row_gpu(line.text)
        if row:
            out.append(Finding("nvidia_smi.gpu", row, line.number, "nvidia-smi"))
    return out, []


# --- collect_env -----------------------------------------------------------------------------------------------

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
KEY_LINE = re.compile(r"^(%s):\s*(.*)$" % KEYS)
COLLECT_ENV_LINE = re.compile(r"^(?:CPU|%s):|^\[(?:pip3?|conda|uv|poetry)\]" % KEYS, re.M)
# What ends a CPU: or GPU models block: an empty line, the next key, or the package listing.
BLOCK_END = re.compile(r"^(?:$|(?:%s):|Versions of relevant)" % KEYS, re.M)
PACKAGE_LINE = re.compile(r"^\[(pip3?|conda|uv|poetry)\]\s+(\S+?)(?:==|\s+)(\S+)")
UNKNOWN = ("N/A", "Could not collect", "No CUDA", "None", "")


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
        if line.text in ("CPU:", "GPU models and configuration:"):
            key = line.text[:-1]
            seen[key] = line.number
            block_end = next(matching(lines, BLOCK_END, index + 1), (len(lines), None))[0]
            block = [found for _, found in matching(lines, CPU_LINE if key == "CPU" else GPU_LINE, index + 1, block_end)]
            out += cpu_block(block) if key == "CPU" else gpu_block(block)
            continue
        match = KEY_LINE.match(line.text)
        if match:
            seen[match.group(1)] = line.number
            out += collect_env_field(match.group(1), match.group(2).strip(), line.number)
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
        if value not in UNKNOWN:
            return [Finding("host.system", "Linux", number, p), Finding("host.distro", value, number, p)]
    return []


CPU_LINE = re.compile(r"^(?:Architecture:|Model name:|Apple M\d|Intel\(R\)|AMD )", re.M)
GPU_LINE = re.compile(r"^GPU \d", re.M)
CPU_ARCH = re.compile(r"Architecture:\s*(\S+)")
CPU_MODEL = re.compile(r"(?:Model name:\s*)?(Apple M\d.*|Intel\(R\).*|AMD .*)$")
GPU_LISTED = re.compile(r"GPU \d+:\s*(\S.*)$")


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


# --- other environment dumps -------------------------------------------------------------------------------------

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
CONDA_PLAN_LINE = re.compile(r"::pytorch-|PackagesNotFoundError|\b(?:pkgs/main|conda-forge|pytorch|defaults)/osx-")
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


# --- install logs ------------------------------------------------------------------------------------------------

# The last torch with macOS x86_64 wheels (PyTorch 2.2 release notes, pytorch#114602; the release table): an index that
# offers nothing newer to this Python is answering an x86_64 macOS interpreter.
LAST_INTEL_MAC = load_releases().last_intel_torch
RELEASE_MATRIX = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
# The kind of message that says no torch wheel fits this interpreter (checks register the kinds that implicate them).
NO_WHEEL = "no-wheel-for-python"
INTEL_OR_ROSETTA = Evidence(
    (),
    "pip sees only torch wheels up to %s: an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple Silicon)"
    % LAST_INTEL_MAC,
    "The package index offers this Python nothing newer than torch %s." % LAST_INTEL_MAC,
    "%s is the last torch with macOS x86_64 wheels (PyTorch 2.2 release notes). On an Intel Mac that is the "
    "newest torch there is (and MPS needs Apple Silicon); on Apple Silicon `sysctl -n hw.optional.arm64` prints 1 and "
    "the Python runs under Rosetta: install a native arm64 Python." % LAST_INTEL_MAC,
    ("sysctl -n hw.optional.arm64", "python3 -c 'import platform; print(platform.machine())'"),
    "https://github.com/pytorch/pytorch/issues/114602", source="pip", devices=("mps",), kind="x86_64-python-on-mac")


INSTALL_LINE = re.compile(r"Could not find a version that satisfies the requirement|torch-|You require CPython|"
                          r"You're on macOS \(|has no wheels with a matching|doesn't have a source distribution or wheel")
PIP_NO_TORCH = re.compile(r"Could not find a version that satisfies the requirement (?:torch|pytorch)\b"
                          r"(?:\s*([=<>!~]=?\s*[\w.*+]+))?")
FROM_VERSIONS = "(from versions: "
# What uv's resolver says when no torch wheel fits the interpreter or the platform.
UV_NO_WHEEL = ("has no wheels with a matching Python ABI tag", "doesn't have a source distribution or wheel for the current platform",
               "has no wheels with a matching platform tag")
WHITESPACE = re.compile(r"\s")


def pip_request(text: str) -> Optional[Tuple[Optional[str], Optional[str]]]:
    """(requirement, version listing) of pip's 'Could not find a version that satisfies the requirement torch==X
    (from versions: A, B)': the listing is None when the line has none; None when the line is no such error."""
    pip = PIP_NO_TORCH.search(text)
    if not pip:
        return None
    start = text.find(FROM_VERSIONS, pip.end())
    end = text.find(")", start + len(FROM_VERSIONS)) if start >= 0 else -1
    return pip.group(1), text[start + len(FROM_VERSIONS):end] if end >= 0 else None


def uv_no_wheel(text: str) -> bool:
    """Whether TEXT says uv found no torch wheel for this interpreter or platform."""
    torch = text.find("torch")
    space = WHITESPACE.search(text, torch + 5) if torch >= 0 else None
    if space and any(text.find(message, space.end()) >= 0 for message in UV_NO_WHEEL):
        return True
    return "can't be installed because it doesn't have a source distribution or wheel for the current platform" in text


def parse_install(lines: Sequence[Line]) -> Result:
    """pip and uv resolution errors and wheel file names in install logs."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    for _, line in matching(lines, INSTALL_LINE):
        text = line.text
        pip = pip_request(text) if "Could not find a version" in text else None
        if pip and pip[1] is not None:
            requirement, listing = pip
            requested = re.search(r"==\s*(\d[\w.+]*)", requirement or "")
            cuda = re.search(r"\+cu\d+", requested.group(1)) if requested else None
            listed = [v.strip() for v in listing.split(",")]
            if cuda and requested.group(1).split("+")[0] in listed:
                # The release exists here, its +cuXYZ build does not: an index without CUDA builds (macOS).
                out.append(Finding("request.cuda_build", requested.group(1), line.number, "pip"))
                evidence.append(cuda_build_evidence(requested.group(1), line.number))
            else:
                evidence += pip_versions(requirement, listing, line.number)
            if requested:
                out.append(Finding("packages.torch", requested.group(1).split("+")[0], line.number, "pip"))
        elif pip:
            evidence.append(no_wheel_evidence(line.number, "pip"))
        for wheel in re.finditer(r"\btorch-(\d[\w.+]*)-cp(\d)(\d+)-(?:cp\d+|none|abi3)-(\w+)\.whl", text):
            out += wheel_findings(wheel, line.number)
        uv_abi = re.search(r"You require CPython (3\.\d+) \(`?cp3\d+`?\), but we only found wheels for `?torch`? \(v([\w.+]+)\)", text)
        if uv_abi:
            out += [Finding("interpreter.version", python_version(uv_abi.group(1)), line.number, "uv"),
                    Finding("packages.torch", uv_abi.group(2), line.number, "uv")]
        uv_platform = re.search(r"You're on macOS \(`?(macosx_[\d_]+_(x86_64|arm64))`?\)", text)
        if uv_platform:
            out += [Finding("host.system", "Darwin", line.number, "uv"),
                    Finding("interpreter.machine", uv_platform.group(2), line.number, "uv")]
            if uv_platform.group(2) == "x86_64":
                evidence.append(Evidence(**dict(
                    INTEL_OR_ROSETTA.__dict__, line=line.number, source="uv",
                    summary="uv runs an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple Silicon)",
                    problem="uv reports the platform tag of an x86_64 interpreter (%s)." % uv_platform.group(1))))
        if not uv_platform and uv_no_wheel(text):
            evidence.append(no_wheel_evidence(line.number, "uv"))
    return out, evidence


def cuda_build_evidence(requested: str, number: int) -> Evidence:
    """A +cuXYZ torch asked for where the index has only plain builds of that release."""
    return Evidence(
        (), "torch %s is a CUDA build: CUDA wheels exist for Linux and Windows, not for this platform" % requested,
        "The requirement pins a CUDA build (+%s) that this platform's index does not have." % requested.split("+", 1)[1],
        "PyTorch publishes CUDA builds for Linux and Windows only; on macOS use the plain release (MPS on Apple Silicon).",
        ("python3 -m pip install torch==%s" % re.sub(r"[^\w.]", "", requested.split("+")[0]),), GET_STARTED, number, "pip",
        devices=("cuda",), kind="cuda-build-off-linux")


def no_wheel_evidence(number: int, source: str) -> Evidence:
    """No torch wheel for this interpreter: usually a Python newer (or older) than the release supports."""
    return Evidence(
        (), "no torch wheel for this Python: a Python version (or platform) that release does not support",
        "The index has no torch wheel that this interpreter can install.",
        "torch publishes wheels per Python minor version; a Python newer than the release (e.g. 3.13 for torch 2.5 "
        "on macOS and Windows), or 32-bit, gets none. Use a Python in the release's range.",
        new_python_commands(None), RELEASE_MATRIX, number, source, kind=NO_WHEEL)


def new_python_commands(torch: Optional[str]) -> Tuple[str, str]:
    """uv commands for an environment with a Python that torch TORCH (any release when None) supports, from the
    release table."""
    table = load_releases()
    release, exact = table.row_for(torch) if torch else (None, False)
    python = table.python_for(release if exact else None)
    return ("uv python install %s" % python, "uv venv --python %s .venv" % python)


def pip_versions(requirement: Optional[str], listing: str, number: int) -> List[Evidence]:
    """What pip's 'from versions: ...' list says about the interpreter."""
    versions = [v.strip() for v in listing.split(",") if re.match(r"\s*\d", v)]
    if not versions:
        return [no_wheel_evidence(number, "pip")]
    newest = max(versions, key=vt)
    if vt(newest) == version_tuple(LAST_INTEL_MAC) and all("+" not in v for v in versions):
        return [Evidence(**dict(INTEL_OR_ROSETTA.__dict__, line=number))]
    requested = re.search(r"==\s*(\d[\w.]*)", requirement or "")
    if requested and all(vt(v) > vt(requested.group(1)) for v in versions):
        return [Evidence(
            (), "torch %s has no wheel for this Python: the index offers only %s and newer"
            % (requested.group(1), min(versions, key=vt)),
            "Only torch releases newer than %s have wheels for this Python." % requested.group(1),
            "The Python is newer than torch %s supports; use a Python in its range, or a newer torch." % requested.group(1),
            new_python_commands(requested.group(1)), RELEASE_MATRIX, number, "pip", kind=NO_WHEEL)]
    if requested and all(vt(v) < vt(requested.group(1)) for v in versions):
        return [Evidence(
            (), "torch %s has no wheel for this Python: the newest offered is %s" % (requested.group(1), newest),
            "This Python gets torch up to %s only." % newest,
            "torch %s needs a newer Python than this one (or another platform)." % requested.group(1),
            new_python_commands(requested.group(1)), RELEASE_MATRIX, number, "pip", kind=NO_WHEEL)]
    return []


def wheel_findings(wheel, number: int) -> List[Finding]:
    """Facts in a torch wheel's file name (PEP 427: name-version-python-abi-platform.whl)."""
    version, platform = wheel.group(1), wheel.group(4)
    out = [Finding("packages.torch", version, number, "wheel"),
           Finding("interpreter.version", (int(wheel.group(2)), int(wheel.group(3))), number, "wheel")]
    mac = re.match(r"macosx_\d+_\d+_(\w+)$", platform)
    if mac:
        out += [Finding("host.system", "Darwin", number, "wheel"),
                Finding("interpreter.machine", "x86_64" if mac.group(1) in ("x86_64", "intel") else mac.group(1), number, "wheel")]
    elif "linux" in platform:
        out.append(Finding("host.system", "Linux", number, "wheel"))
        cuda = re.search(r"\+cu(\d+)(\d)$", version)
        if cuda:
            out.append(Finding("torch.wheel_cuda", "%s.%s" % (cuda.group(1), cuda.group(2)), number, "wheel"))
    elif platform.startswith("win"):
        out.append(Finding("host.system", "Windows", number, "wheel"))
    return out


# --- interactive sessions and prose -------------------------------------------------------------------------------

# What a converter of SESSION_CALLS returns for a line that is not the call's output (a warning printed before it).
NO_ANSWER = ""


def cuda_version_output(text: str):
    """torch.version.cuda as printed: '12.1', or None for a build without CUDA; any other line is NO_ANSWER."""
    return None if text == "None" else text if re.fullmatch(r"\d+\.\d+", text) else NO_ANSWER


SESSION_CALLS = (
    (r"torch\.backends\.mps\.is_available\(\)", "torch.mps_available", boolean),
    (r"torch\.backends\.mps\.is_built\(\)", "torch.mps_built", boolean),
    (r"torch\.cuda\.is_available\(\)", "torch.cuda_available", boolean),
    (r"torch\.__version__", "torch.version", lambda v: v.strip("'\"") if re.match(r"^['\"]?\d+\.\d+", v) else None),
    (r"torch\.version\.cuda", "torch.cuda_version", lambda v: cuda_version_output(v.strip("'\""))),
    (r"platform\.machine\(\)", "interpreter.machine",
     lambda v: v.strip("'\"") if v.strip("'\"") in ("arm64", "x86_64", "aarch64") else None),
    (r"platform\.processor\(\)", "interpreter.machine", lambda v: {"'arm'": "arm64", "'i386'": "x86_64"}.get(v)),
)


SESSION_LINE = re.compile(r"^Python 3\.|mps|CUDA_VISIBLE_DEVICES|torch\.|platform\.|^python3?(?:\.\d+)? (?:--version|-V)$|"
                          r"^uname -m$|^arch$", re.I | re.M)
BANNER = re.compile(r"Python (3\.\d+\.\d+)\S* \([^)]*\d{4}, [\d:]+\)(.*)$")
# Printed checks: "Is MPS (Metal Performance Shader) built? True", "mps_available False" (read without trailing space).
PRINTED = re.compile(r"\bMPS\b[^?:=]{0,40}?\b(built|available)\b\W{0,3}(True|False)$", re.I)


# Shell commands whose output is a fact: the Python on PATH (`python3 --version` prints "Python 3.12.4") and the
# machine the shell runs as (`uname -m` and `arch`: arm64 only on Apple Silicon, where Linux says aarch64; x86_64 or
# i386 on an Intel Mac or under Rosetta, which the shell's own answer cannot tell apart).
def python_version_output(text: str) -> List[Tuple[str, object]]:
    """(fact, value) of `python --version`'s output."""
    return [("interpreter.version", python_version(text[7:]))] if re.fullmatch(r"Python 3\.\d+\.\d+\S*", text) else []


def machine_output(text: str) -> List[Tuple[str, object]]:
    """(fact, value) of `uname -m`'s or `arch`'s output."""
    if text not in ("arm64", "x86_64", "i386", "aarch64"):
        return []
    return [("shell.machine", text)] + ([("host.system", "Darwin"), ("host.hw_arm64", True)] if text == "arm64" else [])


SHELL_CALLS = (
    (re.compile(r"python3?(?:\.\d+)? (?:--version|-V)"), python_version_output),
    (re.compile(r"uname -m|arch"), machine_output),
)


# A variable the paste sets: `export NAME=value`, `NAME=value command`, `set NAME=value` (cmd), `$env:NAME = "value"`
# (PowerShell), `os.environ["NAME"] = "value"`, `-e NAME=value` (docker), "I set NAME=value". Never a message that
# names one: MPSAllocator.mm's "Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit" and MPSFallback.mm's
# "you can set the environment variable `PYTORCH_ENABLE_MPS_FALLBACK=1`" are torch's advice, not the user's setting.
ENV_SETTING = re.compile(
    r"(?:^(?:export\s+|set\s+|env\s+|%env\s+|\$env:)?|\bos\.environ\[[\"']|\s(?:-e|--env)\s+|^ENV\s+|"
    r"\bI(?:'ve| have)? (?:already )?set (?:the )?(?:environment variable )?`?)"
    r"(CUDA_VISIBLE_DEVICES|PYTORCH_ENABLE_MPS_FALLBACK|PYTORCH_MPS_HIGH_WATERMARK_RATIO)(?:[\"']\])?\s*=\s*[\"']?([\w,.-]*)")


def parse_session(lines: Sequence[Line]) -> Result:
    """A Python session or script run: an expression (after >>> or in print(...)) and its output on the next line,
    the interpreter banner ('Python 3.8.10 (default, ...)'), and `import torch` failing."""
    out: List[Finding] = []
    for index, line in matching(lines, SESSION_LINE):
        banner = BANNER.match(line.text)
        if banner:
            # The REPL banner: 'Python 3.11.9 (main, Apr  4 2024, 05:10:52) [Clang 14.0.3 ] on darwin'.
            out.append(Finding("interpreter.version", python_version(banner.group(1)), line.number, "session"))
            rest = banner.group(2) + " " + (lines[index + 1].text if index + 1 < len(lines) else "")
            system = re.search(r"\bon (darwin|linux|win32)\b", rest)
            if system:
                out.append(Finding("host.system", {"darwin": "Darwin", "linux": "Linux", "win32": "Windows"}[system.group(1)],
                                   line.number, "session"))
        printed = PRINTED.search(line.text.rstrip())
        if printed and not line.prompt:
            out += [Finding("torch.mps_" + printed.group(1).lower(), printed.group(2) == "True", line.number, "session"),
                    Finding("torch.installed", True, line.number, "session")]
        for command, read in SHELL_CALLS:
            reply = next_output(lines, index) if command.fullmatch(line.text) else None
            out += [Finding(path, value, reply.number, "shell") for path, value in read(reply.text)] if reply else []
        variable = ENV_SETTING.search(line.text)
        if variable:
            out.append(Finding("env." + variable.group(1), variable.group(2), line.number, "session"))
        for pattern, path, convert in SESSION_CALLS if line.prompt == "python" or "print(" in line.text else ():
            if not re.search(pattern, line.text):
                continue
            reply = next_output(lines, index)
            if reply is None:
                continue
            value = convert(re.sub(r"^Out\[\d+\]:\s*", "", reply.text.strip()))
            if value != NO_ANSWER and (value is not None or path == "torch.cuda_version"):
                out.append(Finding(path, value, reply.number, "session"))
                if path in ("torch.mps_available", "torch.mps_built", "torch.cuda_available", "torch.version"):
                    out.append(Finding("torch.installed", True, reply.number, "session"))
    return out, []


# A warning Python printed between a command and its output (`FILE:LINE: UserWarning: ...`, warnings.formatwarning),
# and the source line it echoes under it (`return torch._C._cuda_getDeviceCount() > 0`, torch/cuda/__init__.py).
WARNING_LINE = re.compile(r"^(?:\S+:\d+: )?\w*Warning: ")
WARNING_SOURCE = re.compile(r"^(?:return |warnings\.warn\()|\btorch\._C\._")


def next_output(lines: Sequence[Line], index: int) -> Optional[Line]:
    """The output line after the command at INDEX (the next non-empty line without a prompt), past warnings."""
    warned = False
    for following in lines[index + 1:index + 6]:
        if following.prompt:
            return None
        if WARNING_LINE.match(following.text) or (warned and WARNING_SOURCE.search(following.text)):
            warned = True
            continue
        if following.text:
            return following
    return None


PROSE_LINE = re.compile(r"m[1-5]|intel|i386|mac ?os|torch", re.I)
PROSE_TORCH = re.compile(r"\b(?:PyTorch|torch)\s*(?:version\s*)?(?::\s*)?(?:stable\s*\()?v?(\d+\.\d+\.\d+)\b")


def parse_prose(lines: Sequence[Line]) -> Result:
    """What people write about their machine: 'MacBook M1 Pro', 'Apple M2', 'my mac is intel', 'PyTorch 2.5.1',
    'reports platform i386'. Weakest source: any dump or log wins over it."""
    out: List[Finding] = []
    p = "prose"
    for _, line in matching(lines, PROSE_LINE):
        text = line.text
        if re.search(r"\b(?:Apple |MacBook(?: Pro| Air)? |Mac ?mini |iMac |Mac Studio )?M[1-5](?: Pro| Max| Ultra)?\b", text) and \
                re.search(r"\b(?:Apple|Mac|MacBook|macOS|mac)\b|\bM[1-5] (?:Pro|Max|Ultra)\b", text, re.I):
            out += [Finding("host.hw_arm64", True, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:mac(?:book)?(?: \w+)? is (?:an )?intel|intel[- ](?:based )?mac)", text, re.I):
            out += [Finding("host.hw_arm64", False, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:platform|processor)\b[^.]{0,20}\bi386\b", text, re.I):
            out.append(Finding("interpreter.machine", "x86_64", line.number, p))
        if re.search(r"\bOS\W{0,4}:\W{0,4}mac ?OS\b", text, re.I):
            out.append(Finding("host.system", "Darwin", line.number, p))
        torch = PROSE_TORCH.search(text)
        if torch:
            out.append(Finding("packages.torch", torch.group(1), line.number, p))
    return out, wrong_results(lines)


# How people report silent wrong results: "gives the wrong answer on MPS", "random numbers", "# NOT same!",
# "is broken on MPS backend" (pytorch#111634, #81567, #118115, #90635).
WRONG_RESULTS = re.compile(r"\b(?:wrong|incorrect) (?:answer|result|output|value|number)s?\b|\bsome random numbers\b|"
                           r"#\s*NOT same\b|\b(?:is|are) broken on (?:the )?(?:MPS|CUDA)\b|"
                           r"\bdiffer(?:s|ent)? from (?:the )?CPU\b", re.I)


def wrong_results(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against device.parity when the paste reports results on an accelerator that are wrong."""
    text = joined(lines)
    device = next((d for d, pattern in (("mps", r"\bmps\b"), ("cuda", r"\bcuda\b")) if re.search(pattern, text, re.I)), None)
    claim = next((line for _, line in matching(lines, WRONG_RESULTS) if WRONG_RESULTS.search(line.text)), None) if device else None
    if claim is None:
        return []
    return [Evidence(
        (), "the paste reports wrong results on %s: a silent correctness bug" % device,
        "Results computed on %s differ from what the CPU gives." % device,
        "Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and are fixed in "
        "later ones: upgrade torch (and macOS), compare with the CPU, and until then compute that operation on the CPU.",
        ("python3 -m pip install --upgrade torch torchvision", "mps-doctor check --device %s" % device),
        "https://docs.pytorch.org/docs/stable/notes/mps.html", claim.number, "prose", devices=(device,), kind="wrong-results")]


PARSERS = (parse_collect_env, parse_lightning, parse_hf_env, parse_conda_info, parse_sw_vers, parse_platform,
           parse_nvidia_smi, parse_install, parse_session, parse_prose)
# Which parser wins when two disagree on a fact: the dumps printed by a program first, prose last.
PRIORITY = ("collect_env", "session", "shell", "sw_vers", "uname", "conda-info", "conda-plan", "hf-env", "lightning", "platform",
            "nvidia-smi", "wheel", "uv", "pip", "catalogue", "prose")
