"""What the parsers read from pasted text: facts with their line, and evidence that implicates a layer."""

from dataclasses import dataclass
from typing import Any, Optional, Tuple


@dataclass(frozen=True)
class Finding:
    """One fact read from the paste: PATH names the fact (e.g. host.macos_version), LINE where it stood."""

    path: str
    value: Any
    line: int
    parser: str


@dataclass(frozen=True)
class Evidence:
    """A message in the paste that implicates a layer: the first of CHECKS that the facts do not clear fails with it.

    OVERRIDES: the evidence is more specific than the check's own finding and replaces a failing outcome too.
    """

    checks: Tuple[str, ...]
    summary: str
    problem: str
    why: str
    commands: Tuple[str, ...] = ()
    link: Optional[str] = None
    line: int = 0
    source: str = ""
    overrides: bool = False
    devices: Tuple[str, ...] = ()
