"""File paths in pasted text: where a traceback or a log ran names its operating system (and Homebrew's prefix the
Mac's chip)."""

import re
from typing import List, Sequence

from mps_doctor.triage.model import Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, matching

# Each system's own folders (tracebacks, pip's and conda's logs print them):
#   macOS: /Users/NAME, /Library/Frameworks/Python.framework (python.org's installer), /opt/homebrew (Homebrew's prefix
#   on Apple Silicon, docs.brew.sh "Installation"); Linux: /home/NAME, /usr/lib/pythonX/dist-packages (Debian's);
#   Windows: a drive letter and backslashes (C:\Users\..., ...\site-packages\...).
MAC_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:Users/[^/\s]+/|Library/Frameworks/Python\.framework/|opt/homebrew/)")
LINUX_PATH = re.compile(r"(?:^|[\s\"'(=])/(?:home/[^/\s]+/|usr/lib/python3[\d.]*/dist-packages/)")
WINDOWS_PATH = re.compile(r"(?:^|[\s\"'(=])[A-Za-z]:\\[^\s\\]*|\\(?:site-packages|Lib|AppData|Program Files)\\")
PATH_LINE = re.compile(r"/Users/|/Library/|/opt/homebrew/|/home/|/usr/lib/|[A-Za-z]:\\|\\(?:site-packages|Lib|AppData|Program Files)\\")


def parse_paths(lines: Sequence[Line]) -> Result:
    """The system of the first path of each kind; Homebrew's /opt/homebrew also says Apple Silicon."""
    out: List[Finding] = []
    seen = set()
    for _, line in matching(lines, PATH_LINE):
        for system, pattern in (("Darwin", MAC_PATH), ("Linux", LINUX_PATH), ("Windows", WINDOWS_PATH)):
            found = pattern.search(line.text) if system not in seen else None
            if found:
                seen.add(system)
                out.append(Finding("host.system", system, line.number, "path"))
                if "/opt/homebrew/" in found.group(0):
                    out.append(Finding("host.hw_arm64", True, line.number, "path"))
    return out, []
