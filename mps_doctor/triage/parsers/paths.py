"""File paths in pasted text: where a traceback or a log ran names its operating system (and Homebrew's prefix the
Mac's chip), and the architecture macOS's loader says a process needs for a file it could not load."""

import re
from typing import List, Sequence

from mps_doctor.known_errors import DYLD_ARCHITECTURE, search, trigger
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.parsers.install import x86_64_python_on_mac
from mps_doctor.triage.text import Line, matching

# Each system's own folders (tracebacks, pip's and conda's logs print them):
#   macOS: /Users/NAME, /Library/Frameworks/Python.framework (python.org's installer), /opt/homebrew (Homebrew's prefix
#   on Apple Silicon, docs.brew.sh "Installation"), /var/folders/XX/.../T/ (macOS's per-user temporary folder,
#   `getconf DARWIN_USER_TEMP_DIR`, where pip builds a source distribution; /private/var/folders as resolved);
#   Linux: /home/NAME, /usr/lib/pythonX/dist-packages and /usr/local/lib/pythonX/dist-packages (Debian's and Ubuntu's,
#   for their packages and for pip's: wiki.debian.org/Python, "Deviations from upstream"; xinference#328's container on
#   a Mac);
#   Windows: a drive letter and backslashes (C:\Users\..., ...\site-packages\...).
MAC_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:Users/[^/\s]+/|Library/Frameworks/Python\.framework/|opt/homebrew/|"
                      r"(?:private/)?var/folders/[\w+-]{2}/[\w+-]{20,40}/T/)")
LINUX_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:home/[^/\s]+/|usr/(?:local/)?lib/python3[\d.]*/dist-packages/)")
WINDOWS_PATH = re.compile(r"(?:^|[\s\"'(=])[A-Za-z]:\\[^\s\\]*|\\(?:site-packages|Lib|AppData|Program Files)\\")
PATH_LINE = re.compile(r"/Users/|/Library/|/opt/homebrew/|/var/folders/|/home/|/usr/lib/|/usr/local/(?:Cellar|opt)/python|/usr/local/lib/|"
                       r"[A-Za-z]:\\|"
                       r"\\(?:site-packages|Lib|AppData|Program Files)\\")
# Homebrew's prefix on Intel Macs is /usr/local (docs.brew.sh "Installation": /opt/homebrew for Apple Silicon, /usr/local
# for macOS Intel, /home/linuxbrew/.linuxbrew for Linux): a Python from its Cellar is an x86_64 build, native on an
# Intel Mac and under Rosetta on Apple Silicon (transcribe-anything#52).
INTEL_HOMEBREW_PYTHON = re.compile(r"(?:^|[\s\"'(=])/usr/local/(?:Cellar|opt)/python(?:@3\.\d+)?/")
# A Windows Python's folder, and whether it is a 32-bit one: python.org's installer names its folder PythonXY-32
# ("c:\program files (x86)\python38-32\python.exe", pytorch#37379), and a 64-bit Windows keeps 32-bit programs in
# "Program Files (x86)" (Microsoft's ProgramFilesFolder and ProgramFiles64Folder). torch publishes no 32-bit wheel
# (pytorch#27815). Only a paste with one Python folder, and no 64-bit build stated, says which Python ran (review12 M6).
WINDOWS_PYTHON_FOLDER = re.compile(r"(\\Program Files \(x86\))?\\(Python3\d{0,2}(-32)?)\\", re.I)
SIXTY_FOUR_BIT_STATED = re.compile(r"\b64 bit \(AMD64\)|\b64-bit runtime\b", re.I)


# macOS's loader (dyld) refusing a file for another architecture names the process's own as the one it needs
# (the catalogue's kind dyld-architecture: "(have (arm64), need (x86_64h))" on macOS 11, Dream Textures#287; "(have
# 'x86_64', need 'arm64')" from macOS 12 on). x86_64h is the x86_64 slice for Haswell and newer CPUs.
DYLD_MACHINES = {"x86_64": "x86_64", "x86_64h": "x86_64", "arm64": "arm64", "arm64e": "arm64"}


def loader_facts(lines: Sequence[Line]) -> Result:
    """The machine of the process that dyld says needed another architecture, and, for an x86_64 one, the evidence of
    an x86_64 Python on a Mac."""
    for _, line in matching(lines, trigger(DYLD_ARCHITECTURE)):
        found = search(DYLD_ARCHITECTURE, line.text)
        machine = DYLD_MACHINES.get(found.group("need")) if found else None
        if machine is None:
            continue
        out = [Finding("host.system", "Darwin", line.number, "path"), Finding("interpreter.machine", machine, line.number, "path")]
        if machine != "x86_64":
            return out, []
        return out, [x86_64_python_on_mac(line.number, "path", "macOS's loader says the process needs %s code (it found "
                                                                 "%s)." % (found.group("need"), found.group("have")))]
    return [], []


def parse_paths(lines: Sequence[Line]) -> Result:
    """The system of the first path of each kind; Homebrew's /opt/homebrew also says Apple Silicon, a Python from its
    Intel prefix (/usr/local/Cellar) an x86_64 Python on a Mac, and the only Windows Python folder a 32-bit one."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    seen = set()
    for _, line in matching(lines, PATH_LINE):
        for system, pattern in (("Darwin", MAC_PATH), ("Linux", LINUX_PATH), ("Windows", WINDOWS_PATH)):
            found = pattern.search(line.text) if system not in seen else None
            if found:
                seen.add(system)
                out.append(Finding("host.system", system, line.number, "path"))
                if "/opt/homebrew/" in found.group(0):
                    out.append(Finding("host.hw_arm64", True, line.number, "path"))
        if not evidence and INTEL_HOMEBREW_PYTHON.search(line.text):
            out += [Finding("host.system", "Darwin", line.number, "path"),
                    Finding("interpreter.machine", "x86_64", line.number, "path")]
            evidence.append(x86_64_python_on_mac(line.number, "path", "The Python runs from Intel Homebrew's prefix "
                                                                          "(/usr/local/Cellar)."))
    loaded, needs = loader_facts(lines)
    return out + loaded + windows_python_bits(lines), evidence or needs


def windows_python_bits(lines: Sequence[Line]) -> List[Finding]:
    """A 32-bit Python, where the paste's only Windows Python folder is a 32-bit one and no 64-bit build is stated."""
    folders = {}
    for _, line in matching(lines, WINDOWS_PYTHON_FOLDER):
        for found in WINDOWS_PYTHON_FOLDER.finditer(line.text):
            folders.setdefault(found.group(2).lower(), (bool(found.group(1) or found.group(3)), line.number))
    if len(folders) != 1 or any(SIXTY_FOUR_BIT_STATED.search(line.text) for line in lines):
        return []
    thirty_two, number = next(iter(folders.values()))
    return [Finding("interpreter.pointer_bits", 32, number, "path")] if thirty_two else []
