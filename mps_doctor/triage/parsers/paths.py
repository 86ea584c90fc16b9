"""File paths in pasted text: where a traceback or a log ran names its operating system (and Homebrew's prefix the
Mac's chip)."""

import re
from typing import List, Sequence

from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.parsers.install import x86_64_python_on_mac
from mps_doctor.triage.text import Line, matching

# Each system's own folders (tracebacks, pip's and conda's logs print them):
#   macOS: /Users/NAME, /Library/Frameworks/Python.framework (python.org's installer), /opt/homebrew (Homebrew's prefix
#   on Apple Silicon, docs.brew.sh "Installation"); Linux: /home/NAME, /usr/lib/pythonX/dist-packages (Debian's);
#   Windows: a drive letter and backslashes (C:\Users\..., ...\site-packages\...).
MAC_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:Users/[^/\s]+/|Library/Frameworks/Python\.framework/|opt/homebrew/)")
LINUX_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:home/[^/\s]+/|usr/lib/python3[\d.]*/dist-packages/)")
WINDOWS_PATH = re.compile(r"(?:^|[\s\"'(=])[A-Za-z]:\\[^\s\\]*|\\(?:site-packages|Lib|AppData|Program Files)\\")
PATH_LINE = re.compile(r"/Users/|/Library/|/opt/homebrew/|/home/|/usr/lib/|/usr/local/(?:Cellar|opt)/python|[A-Za-z]:\\|"
                       r"\\(?:site-packages|Lib|AppData|Program Files)\\")
# Homebrew's prefix on Intel Macs is /usr/local (docs.brew.sh "Installation": /opt/homebrew for Apple Silicon, /usr/local
# for macOS Intel, /home/linuxbrew/.linuxbrew for Linux): a Python from its Cellar is an x86_64 build, native on an
# Intel Mac and under Rosetta on Apple Silicon (transcribe-anything#52).
INTEL_HOMEBREW_PYTHON = re.compile(r"(?:^|[\s\"'(=])/usr/local/(?:Cellar|opt)/python(?:@3\.\d+)?/")


def parse_paths(lines: Sequence[Line]) -> Result:
    """The system of the first path of each kind; Homebrew's /opt/homebrew also says Apple Silicon, and a Python from
    its Intel prefix (/usr/local/Cellar) an x86_64 Python on a Mac."""
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
    return out, evidence
