"""Shared pieces of the paste parsers: the result type, version and truth-value readers."""

import re
from typing import List, Optional, Tuple

from mps_doctor.triage.model import Evidence, Finding

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


# Where a sentence ends: its stop and the space after it ("11.7" and "pytorch.org" end none).
SENTENCE_END = re.compile(r"[.!?;](?=\s)")


def sentence_at(text: str, found: "re.Match") -> str:
    """The sentence of the line TEXT that match FOUND lies in, without FOUND's own words, and with the question mark
    that ends it when it asks ("Did pip install the cpu version?")."""
    start = max((end.end() for end in SENTENCE_END.finditer(text, 0, found.start())), default=0)
    stop = SENTENCE_END.search(text, found.end())
    asked = "?" if stop and stop.group(0) == "?" else ""
    return text[start:found.start()] + " " + text[found.end():stop.start() if stop else len(text)] + asked


# Linux by the names people and tools give it (a kernel, a distribution, WSL).
# Windows shown in a paste: its name, a drive letter path, a Windows wheel tag.
WINDOWS_SHOWN = re.compile(r"(?i:\bWindows\b)|\b[A-Z]:\\|\bwin_amd64\b")
LINUX_WORDS = r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|Rocky Linux|AlmaLinux|openSUSE|Manjaro|WSL2?)"
# A Mac by its name ("MacBook", "Mac M1 Pro", "macOS", "Apple M2", "M3 Max"): not a bare "MPS" (NVIDIA's Multi-Process
# Service has that name too) nor a bare "M5" (an AWS instance family).
MAC_BY_NAME_WORDS = r"\bmac(?:book\w*|os| ?os x| ?mini)?\b|\bApple M[1-5]\b|\bM[1-5] (?:Pro|Max|Ultra)\b|\b(?:sonoma|sequoia|ventura)\b"
MAC_BY_NAME = re.compile(MAC_BY_NAME_WORDS, re.I)
