"""The catalogue of known error and warning messages (data/known_errors.json): load it, and find entries in text.

Serves `triage` (messages in a paste) and `check` (the exceptions the parity and smoke layers catch, and the kinds of
message the checks ask for: out of memory, a missing operator, why `import torch` failed, a driver too old).
"""

import functools
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

from mps_doctor.versions import with_table_facts

DATA_FILE = Path(__file__).resolve().parent / "data" / "known_errors.json"
# Programs a fix may start with; other backticked spans in a fix are prose (a function name, a message).
COMMAND_WORDS = ("pip", "pip3", "python", "python3", "uv", "conda", "mamba", "brew", "export", "unset", "softwareupdate",
                 "sysctl", "nvidia-smi", "mps-doctor", "sw_vers", "arch", "xcode-select", "sudo", "docker")


# The kinds of message the checks ask the catalogue for (an entry's `kind`).
OUT_OF_MEMORY = "out-of-memory"
MISSING_OPERATOR = "missing-operator"
IMPORT_FAILURE = "import-failure"
DRIVER_TOO_OLD = "driver-too-old"
CUDA_UNAVAILABLE_REASON = "cuda-unavailable-reason"
# The kinds of message the install-log parser (triage/parsers/install.py) reads captures from.
PIP_NO_TORCH = "pip-no-torch"
UV_NO_TORCH_WHEEL = "uv-no-torch-wheel"
UV_PYTHON_ABI = "uv-python-abi"
UV_PLATFORM_TAG = "uv-platform-tag"
KINDS = (OUT_OF_MEMORY, MISSING_OPERATOR, IMPORT_FAILURE, DRIVER_TOO_OLD, CUDA_UNAVAILABLE_REASON, PIP_NO_TORCH,
         UV_NO_TORCH_WHEEL, UV_PYTHON_ABI, UV_PLATFORM_TAG)
# What fixes the failure an import-failure entry names (its `remedy`); the torch.import check turns it into actions.
RENAME_LOCAL_TORCH = "rename-local-torch"
REINSTALL_TORCH = "reinstall-torch"
REMEDIES = (RENAME_LOCAL_TORCH, REINSTALL_TORCH)


@dataclass(frozen=True)
class KnownError:
    """One catalogue entry: a message pattern, what causes it, the fix, the layer it implicates and its sources."""

    id: str
    pattern: "re.Pattern"
    cause: str
    fix: str
    layer: Optional[str]
    devices: Tuple[str, ...]
    sources: Tuple[str, ...]
    example: str = ""
    torch_libraries_only: bool = False
    # What the message means on one operating system, where it means something else (`on` in the catalogue):
    # (system as platform.system() names it, ((field, value), ...)) for cause, fix, layer and devices.
    variants: Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...] = ()
    # The kind of message it is for the checks (KINDS), and for an import failure what fixes it (REMEDIES).
    kind: Optional[str] = None
    remedy: Optional[str] = None
    # A pattern too general to claim a message on its own ("No module named"): only a check that asks for its kind
    # reads it, never triage nor the explanation of another error.
    general: bool = False

    def on(self, system: Optional[str]) -> "KnownError":
        """This entry as it reads on SYSTEM (Darwin, Linux, Windows): its variant for SYSTEM, else itself."""
        changes = dict(self.variants).get(system or "")
        return replace(self, variants=(), **dict(changes)) if changes else self

    @property
    def commands(self) -> Tuple[str, ...]:
        """The shell commands named in the fix: backticked spans that start with a known program, and `NAME=value`
        settings (as `export NAME=value`)."""
        spans = [s.strip() for s in re.findall(r"`([^`\n]+)`", self.fix)]
        return tuple(("export " + s) if re.match(r"^[A-Z][A-Z0-9_]*=[\w.:-]+$", s) else s for s in spans
                     if s.split(" ", 1)[0] in COMMAND_WORDS or re.match(r"^[A-Z][A-Z0-9_]*=[\w.:-]+$", s))

    @property
    def link(self) -> Optional[str]:
        return next((s for s in self.sources if s.startswith("http")), None)


@dataclass(frozen=True)
class Match:
    """An entry found in text: where (1-based line) and the matched text."""

    error: KnownError
    line: int
    text: str


def text_of(value: Any) -> str:
    """A catalogue field as one string (a list of strings is joined)."""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)


def prose_of(value: Any) -> str:
    """A cause or fix as one string, with the release table's facts in place of their placeholders."""
    return with_table_facts(text_of(value))


def parse_catalogue(doc: Any) -> Tuple[KnownError, ...]:
    """Entries of a catalogue document; an entry with a missing id or a pattern that does not compile is left out."""
    entries = doc.get("errors", []) if isinstance(doc, dict) else []
    out: List[KnownError] = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not isinstance(entry.get("pattern"), str):
            continue
        try:
            pattern = re.compile(entry["pattern"], re.IGNORECASE | re.MULTILINE)
        except re.error:
            continue
        layer = entry.get("layer")
        devices = entry.get("devices") or ()
        sources = entry.get("sources") or ()
        out.append(KnownError(entry["id"], pattern, prose_of(entry.get("cause")), prose_of(entry.get("fix")),
                              layer if isinstance(layer, str) and layer else None,
                              tuple(d for d in (devices if isinstance(devices, list) else [devices]) if isinstance(d, str)),
                              tuple(s if isinstance(s, str) else text_of(s.get("url") if isinstance(s, dict) else s)
                                    for s in (sources if isinstance(sources, list) else [sources])),
                              text_of(entry.get("example")), entry.get("torch_libraries_only") is True,
                              variants_of(entry.get("on")), entry.get("kind") if entry.get("kind") in KINDS else None,
                              entry.get("remedy") if entry.get("remedy") in REMEDIES else None,
                              entry.get("general") is True))
    return tuple(out)


def variants_of(on: Any) -> Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...]:
    """The `on` object of an entry ({system: {cause, fix, layer, devices}}) as KnownError.variants; anything else in
    it is left out."""
    out = []
    for system, fields in (on.items() if isinstance(on, dict) else ()):
        if not isinstance(fields, dict):
            continue
        changes = [(name, prose_of(fields[name])) for name in ("cause", "fix") if name in fields]
        if "layer" in fields:
            changes.append(("layer", fields["layer"] if isinstance(fields["layer"], str) and fields["layer"] else None))
        if isinstance(fields.get("devices"), list):
            changes.append(("devices", tuple(d for d in fields["devices"] if isinstance(d, str))))
        out.append((str(system), tuple(changes)))
    return tuple(out)


@functools.lru_cache(maxsize=4)
def load_catalogue(path: str = str(DATA_FILE)) -> Tuple[KnownError, ...]:
    """The catalogue's entries; none when the file is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_catalogue(json.load(handle))
    except (OSError, ValueError):
        return ()


def find_all(text: str, catalogue: Optional[Tuple[KnownError, ...]] = None) -> Iterator[Match]:
    """Every entry that occurs in TEXT, each once, at its first occurrence, in catalogue order; general entries are
    left to the checks that ask for their kind."""
    for error in (load_catalogue() if catalogue is None else catalogue):
        found = None if error.general else error.pattern.search(text)
        if found:
            yield Match(error, text.count("\n", 0, found.start()) + 1, found.group(0))


def explain(message: str) -> Optional[KnownError]:
    """The first catalogue entry whose pattern occurs in MESSAGE (an exception's text), or None."""
    return next((m.error for m in find_all(message)), None)


def first_of_kind(kind: str, text: str) -> Optional[KnownError]:
    """The first catalogue entry of KIND (in catalogue order, general ones included) whose pattern occurs in TEXT."""
    return next((error for error in load_catalogue() if error.kind == kind and error.pattern.search(text)), None)


def search(kind: str, text: str) -> Optional["re.Match"]:
    """The first match in TEXT of an entry of KIND (the entries in catalogue order, general ones included), or None."""
    return next((found for error in load_catalogue() if error.kind == kind for found in [error.pattern.search(text)]
                 if found), None)


def by_id(error_id: str) -> KnownError:
    """The catalogue entry ERROR_ID (a KeyError names an id the catalogue lacks)."""
    found = next((error for error in load_catalogue() if error.id == error_id), None)
    if found is None:
        raise KeyError(error_id)
    return found


def trigger(*kinds: str) -> "re.Pattern":
    """One pattern that finds a line where an entry of KINDS could match (their patterns joined, groups unnamed): a
    parser's line selector, derived from the catalogue."""
    patterns = [re.sub(r"\(\?P<\w+>", "(?:", error.pattern.pattern) for error in load_catalogue() if error.kind in kinds]
    return re.compile("|".join("(?:%s)" % pattern for pattern in patterns), re.IGNORECASE | re.MULTILINE)


def captured(kind: str, group: str, text: str) -> Optional[str]:
    """What the named GROUP of an entry of KIND captures at its first occurrence in TEXT where it captures anything
    (the entries in catalogue order), or None."""
    for error in load_catalogue():
        if error.kind == kind and group in error.pattern.groupindex:
            value = next((found.group(group) for found in error.pattern.finditer(text) if found.group(group)), None)
            if value is not None:
                return value
    return None
