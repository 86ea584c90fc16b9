"""What the parsers read from pasted text: facts with their line, evidence that implicates a layer, and the facts as
known (one value per fact)."""

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from mps_doctor.known_errors import Intent


@dataclass(frozen=True)
class Finding:
    """One fact read from the paste: PATH names the fact (e.g. host.macos_version), LINE where it stood."""

    path: str
    value: Any
    line: int
    parser: str


@dataclass(frozen=True)
class Evidence:
    """A message in the paste that implicates a layer: the first of the layers it implicates that the facts do not
    clear fails with it. KIND names the kind of message, and the checks that register it are implicated; a known-error
    catalogue entry implicates the layer it names in CHECKS instead.

    ACTIONS: what fixes it, in the catalogue's vocabulary (checking/intents.py maps them for the pasted machine).
    OVERRIDES: the evidence is more specific than the check's own finding and replaces a failing outcome too.
    """

    checks: Tuple[str, ...]
    summary: str
    problem: str
    why: str
    actions: Tuple[Intent, ...] = ()
    link: Optional[str] = None
    line: int = 0
    source: str = ""
    overrides: bool = False
    devices: Tuple[str, ...] = ()
    kind: str = ""


@dataclass(frozen=True)
class Known:
    """One fact as read: its value, every line it came from, and the parser that read it."""

    value: Any
    lines: Tuple[int, ...]
    parser: str


def value_of(known: Dict[str, Known], path: str) -> Any:
    """The value of fact PATH in KNOWN, or None."""
    return known[path].value if path in known else None
