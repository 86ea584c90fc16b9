"""What only Windows prints: its numbering of NVIDIA's driver, and a torch DLL it cannot load."""

import re
from typing import List, Sequence

from mps_doctor import known_errors
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, matching

# Windows numbers NVIDIA's driver 31.0.15.3623 (Device Manager, dxdiag, wmic): its last five digits are the release
# NVIDIA publishes, 536.23 (NVIDIA's driver release notes name both).
WINDOWS_DRIVER = re.compile(r"\b(?:2\d|3\d)\.0\.1(\d)\.(\d{4})\b")
WINDOWS_LINE = re.compile(r"(?i:driver)|%s" % known_errors.trigger(known_errors.TORCH_DLL_NOT_FOUND,
                                                                   known_errors.WINDOWS_MODULE_NOT_FOUND).pattern, re.M)
# The frame of torch's own import in a traceback (torch/__init__.py loads its DLLs with ctypes on Windows).
TORCH_INIT = re.compile(r"[\\/]torch[\\/]__init__\.py")
VC_REDIST = "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist"


def narrower_on_line(text: str) -> bool:
    """Whether a catalogue entry more specific than the TORCH_DLL_NOT_FOUND entries matches TEXT."""
    broad = {error.id for error in known_errors.load_catalogue() if error.kind == known_errors.TORCH_DLL_NOT_FOUND}
    return any(broad & set(match.error.more_specific_than) for match in known_errors.find_all(text))


def parse_windows(lines: Sequence[Line]) -> Result:
    """Windows' NVIDIA driver numbering beside the word driver, and torch's DLLs that Windows cannot load."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    for index, line in matching(lines, WINDOWS_LINE):
        driver = WINDOWS_DRIVER.search(line.text) if re.search(r"(?i)nvidia|geforce|driver version", line.text) else None
        if driver:
            digits = driver.group(1) + driver.group(2)
            out += [Finding("nvidia_smi.driver_version", "%s.%s" % (digits[:3], digits[3:]), line.number, "windows"),
                    Finding("host.system", "Windows", line.number, "windows")]
        dll = known_errors.search(known_errors.TORCH_DLL_NOT_FOUND, line.text)
        if dll and narrower_on_line(line.text):
            # A narrower entry explains this DLL's failure (WinError 1114, or 127/182/193 of DLLs from two builds).
            out.append(Finding("host.system", "Windows", line.number, "windows"))
            dll = None
        unnamed = not dll and known_errors.search(known_errors.WINDOWS_MODULE_NOT_FOUND, line.text) and any(
            TORCH_INIT.search(before.text) for before in lines[max(0, index - 6):index])
        if unnamed:
            out.append(Finding("host.system", "Windows", line.number, "windows"))
            evidence.append(Evidence(
                (), "Windows cannot load one of torch's DLLs or a DLL it needs: import torch fails",
                "Windows could not load a DLL that torch/__init__.py loads, or one of the DLLs it depends on.",
                "torch's DLLs need the Microsoft Visual C++ runtime (msvcp140.dll, vcruntime140.dll), and a CUDA build's "
                "DLLs need CUDA's; when one is missing, import torch fails with this message. Install the latest Visual "
                "C++ Redistributable (and, without an NVIDIA GPU, the CPU build of torch), then reinstall torch in a "
                "fresh virtual environment if it persists.",
                (), VC_REDIST, line.number, "windows", kind="torch-dll-not-loaded"))
        if dll:
            out.append(Finding("host.system", "Windows", line.number, "windows"))
            evidence.append(Evidence(
                (), "Windows cannot load torch's %s.dll or a DLL it needs: import torch fails" % dll.group("dll"),
                "Windows could not load %s.dll from torch's lib folder, or one of the DLLs it depends on." % dll.group("dll"),
                "torch's DLLs need the Microsoft Visual C++ runtime (msvcp140.dll, vcruntime140.dll); when it is missing, "
                "or the install is partial, import torch fails with this message. Install the latest Visual C++ "
                "Redistributable, then reinstall torch in a fresh virtual environment if it persists.",
                (), VC_REDIST, line.number, "windows", kind="torch-dll-not-loaded"))
    return out, evidence
