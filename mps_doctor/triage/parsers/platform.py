"""Platform strings, `uname -a`, `sw_vers` and `nvidia-smi` in pasted text."""

import re
from typing import Dict, List, Optional, Sequence, Tuple

from mps_doctor.known_errors import intents
from mps_doctor.probe.host import normalize_macos_version
from mps_doctor.probe.host import parse_nvidia_smi as host_nvidia_smi
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, matching

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
                intents({"note": "on the Mac, outside Docker"}, {"run": ["python", "-m", "venv", ".venv"]}),
                "https://docs.pytorch.org/docs/stable/notes/mps.html",
                line.number, "platform", overrides=True, devices=("mps",), kind="container-on-mac"))
    return out, evidence + hosted_runner_evidence(lines) + armv8_0_evidence(lines)


# GitHub's hosted macOS runners by their labels ("runs-on: macos-14", "macos-14-xlarge", "macos-latest", as people write
# them "macosx-14.xlarge") or their image ("Image: macos-14-arm64"), in a paste about CI: virtual machines, where
# GitHub documents "Metal Performance Shaders (MPS) are not supported" (about GitHub-hosted runners; pytorch#125197).
# Labels are lower case and end at the major version; platform strings ("macOS-14.6.1-arm64-arm-64bit") and build
# folders ("macosx-11.0-arm64") go on with a minor one.
HOSTED_MAC_RUNNER = re.compile(r"\bmacosx?-(?:1[1-9]|2\d|latest)(?:[-.](?:xlarge|large)|-arm64)?\b(?![.\d])")
CI_CONTEXT = re.compile(r"\b(?:CI|GitHub Actions|runs-on|github-hosted|hosted runners?|actions/runs|Runner Image)\b")
MPS_NAMED = re.compile(r"\bMPS\b|\bMetal Performance Shaders\b", re.I)
HOSTED_MAC_KIND = "hosted-macos-runner"


def hosted_runner_evidence(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against MPS's availability when a paste about CI runs on a GitHub-hosted macOS runner and speaks of
    MPS: the runner is a virtual machine, where MPS may report available and still not work."""
    runner = next((line for line in lines if HOSTED_MAC_RUNNER.search(line.text)), None)
    text = "\n".join(line.text for line in lines)
    if runner is None or not CI_CONTEXT.search(text) or not MPS_NAMED.search(text):
        return []
    return [Evidence(
        (), "a GitHub-hosted macOS runner (a virtual machine): MPS is not supported there",
        "The paste runs on a GitHub-hosted macOS runner (%s)." % HOSTED_MAC_RUNNER.search(runner.text).group(0),
        "GitHub's hosted macOS runners are virtual machines, and GitHub documents MPS as not supported on them: "
        "torch.backends.mps.is_available() can still say True, and work on the device then fails or gives wrong "
        "numbers (pytorch#125197). Gate MPS on a self-hosted Apple Silicon runner and use the CPU on hosted ones.",
        intents({"note": "in CI on a hosted runner, run on the CPU; keep MPS checks for a self-hosted Apple Silicon runner"}),
        "https://docs.github.com/en/actions/using-github-hosted-runners/about-github-hosted-runners",
        runner.number, "platform", overrides=True, devices=("mps",), kind=HOSTED_MAC_KIND)]


# An ARMv8.0 CPU: the Raspberry Pi 3 and 4 (Cortex-A53, Cortex-A72; not the Pi 5's Cortex-A76, an ARMv8.2), as
# people, Ultralytics' environment table ("CPU  Cortex-A72") and Raspberry Pi OS's kernel ("6.6.31+rpt-rpi-v8") name
# them. Not a Jetson (NVIDIA's own wheels; its numpy fault is the catalogue's jetson entry).
ARMV8_0_CPU = re.compile(r"\bRaspberry ?Pi(?! ?5)(?! OS)\b|\bRPi ?[34]\b|\brpi-v8\b|\bCortex-A(?:53|72)\b|\bBCM27(?:11|37)\b", re.I)
# Not this fault: a Pi 5 (Cortex-A76), a 32-bit ARM Python (armv6l, armv7l: no torch wheel of PyTorch's), a Jetson.
NOT_ARMV8_0_TORCH = re.compile(r"\bRaspberry ?Pi ?5\b|\bCortex-A76\b|\barmv[67]l?\b|\bJetson\b|\bTegra\b|\bL4T\b|"
                               r"\bJetPack\b", re.I)
# The crash is torch's: torch on the crash's line or in the three before it, and no other module imported there.
TORCH_WORD = re.compile(r"\b(?:py)?torch\b", re.I)
OTHER_IMPORT = re.compile(r"(?:^\s*(?:>>>\s*)?|-c\s*[\"'`]|`)(?:import (?!torch\b)\w+|from (?!torch\b)\w+ import\b)")
ILLEGAL_INSTRUCTION = re.compile(r"\billegal (?:hardware )?instruction\b|\bSIGILL\b", re.I)
ARMV8_0_KIND = "cpu-lacks-armv8-1"


def armv8_0_evidence(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against torch's import when a paste names an ARMv8.0 board or CPU and an illegal instruction with torch:
    torch's aarch64 wheels have more than once used instructions newer than ARMv8.0."""
    text = "\n".join(line.text for line in lines)
    board = ARMV8_0_CPU.search(text)
    crash = next((index for index, line in enumerate(lines) if ILLEGAL_INSTRUCTION.search(line.text)), None)
    if board is None or crash is None or NOT_ARMV8_0_TORCH.search(text):
        return []
    before = [line.text for line in lines[max(0, crash - 3):crash + 1]]
    if not any(TORCH_WORD.search(t) for t in before) or any(OTHER_IMPORT.search(t) for t in before):
        return []
    crash = lines[crash]
    return [Evidence(
        (), "torch's aarch64 wheel uses an instruction this ARMv8.0 CPU (%s) lacks" % board.group(0),
        "`import torch` dies with an illegal instruction on an ARMv8.0 CPU (%s)." % board.group(0),
        "torch's Linux aarch64 wheels have shipped code that needs ARMv8.1's atomic (LSE) instructions, such as ldaddal "
        "in the bundled Arm Compute Library: 2.0.0 (pytorch#97226), 2.4.0 (#132032) and 2.10.0 (#176993) each died so on "
        "a Raspberry Pi 4, whose Cortex-A72 is an ARMv8.0. Install the torch release that last ran on this board (with "
        "its matching torchvision), and read a newer release's notes before upgrading; `grep -c atomics /proc/cpuinfo` "
        "prints 0 on a CPU without them.", (), "https://github.com/pytorch/pytorch/issues/132032",
        crash.number, "platform", devices=("mps", "cuda", "cpu"), kind=ARMV8_0_KIND)]


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
