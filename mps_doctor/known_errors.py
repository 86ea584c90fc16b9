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

from mps_doctor.devices import DEVICES
from mps_doctor.literals import Haystack, required
from mps_doctor.versions import load_releases, with_table_facts
from mps_doctor.words import shorten

DATA_FILE = Path(__file__).resolve().parent / "data" / "known_errors.json"
# The vocabulary of an entry's `actions`, one key per action of checking/model.py (checking/intents.py maps them):
# run: an argv ("python" as argv[0] is the user's Python); export: [NAME, value]; unset: NAME; install_torch:
# InstallTorch's fields; install_packages: requirements, with "upgrade": true to upgrade; new_environment: {"python":
# "3.x"} (omitted: the release table's); check_again: {"device": ...}; note: a line that is shown, never run.
ACTION_KINDS = ("run", "export", "unset", "install_torch", "install_packages", "new_environment", "check_again", "note")
# Programs a `run` may start: the user's Python, macOS's own tools, NVIDIA's driver tool and a few diagnostics that run
# as written; an install is an intent (install_torch, install_packages), never a run, so that remedies/ spells it for
# the user's manager.
MAC_ONLY = ("sw_vers", "softwareupdate", "sysctl", "arch", "xcode-select", "system_profiler")
NVIDIA_ONLY = ("nvidia-smi",)
RUNNABLE = ("python", "uname", "docker") + MAC_ONLY + NVIDIA_ONLY
# A value left for the reader to fill in (`torch==`, `torch==X`, `cuXYZ`, `<interface>`): it stays in the prose.
PLACEHOLDER = re.compile(r"==(?=\s|$|['\"])|==[A-Z]\b|\bcuXYZ\b|<[\w -]+>")
SETTING_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
SETTING_VALUE = re.compile(r"^[\w.:,-]+$")
# A plain requirement (PEP 508 name with one optional version clause), such as numpy<2.
REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:(?:==|<=|>=|<|>|~=|!=)\d[\w.*]*)?$")
TORCH_COMPANIONS = ("torch", "torchvision", "torchaudio")
# The fields of the actions whose value is an object, with their types.
ACTION_FIELDS = {"install_torch": {"torch": str, "force": bool, "cuda": str, "audio": bool},
                 "new_environment": {"python": str}, "check_again": {"device": str}}


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
PIP_REQUIRES_PYTHON = "pip-requires-python"
UV_PLATFORM_TAG = "uv-platform-tag"
# The kinds of message the CUDA-message and Windows parsers (triage/parsers/cuda.py, windows.py) read captures from.
GPU_TOO_OLD_FOR_TORCH = "gpu-too-old-for-torch"
TORCH_MINIMUM_CAPABILITY = "torch-minimum-capability"
GPU_NOT_COMPATIBLE = "gpu-not-compatible"
TORCH_SUPPORTED_CAPABILITIES = "torch-supported-capabilities"
GPU_TOO_OLD_FOR_TRITON = "gpu-too-old-for-triton"
TRITON_CAPABILITY_NUMBERS = "triton-capability-numbers"
TORCH_DLL_NOT_FOUND = "torch-dll-not-found"
WINDOWS_MODULE_NOT_FOUND = "windows-module-not-found"
DOCKER_RUN = "docker-run"
SLURM_JOB = "slurm-job"
# A library refuses to run off CUDA (fp16 mixed precision needs a CUDA device).
CUDA_REQUIRED = "cuda-required"
# An installer that could not read its index (no ssl module, a certificate it could not verify): what it then lists
# ("from versions: none") says nothing of the Python or the platform.
INDEX_UNREACHABLE = "index-unreachable"
# macOS's loader refusing a file for another architecture: its `have` and `need` (the process's own) architectures.
DYLD_ARCHITECTURE = "dyld-architecture"
# A program reports that torch.cuda.is_available() returned False (a launcher's assertion, an app's CPU fallback).
CUDA_UNAVAILABLE_REPORTED = "cuda-unavailable-reported"
# torch's own word that it found no GPU where the program asked for one ("... but torch.cuda.is_available() is False"
# from torch.load, "No CUDA GPUs are available" from the CUDA initialization): where the user's own torch sees one,
# the program's process hides it (triage/runtime.py).
NO_GPU_FOR_THE_PROGRAM = "no-gpu-for-the-program"
# pip's check after an install: a package pins another release than the one installed ("torchvision 0.9.0 requires
# torch==1.8.0, but you have torch 1.7.1 which is incompatible"); a later failure of the same layer explains it first.
INSTALL_CONFLICT = "install-conflict"
# What a shell prints for a child that a fatal signal killed, at the start of its line (its `signal` group names it):
# read only after `import torch` (triage/parsers/session.py).
FATAL_SIGNAL = "fatal-signal"
KINDS = (OUT_OF_MEMORY, MISSING_OPERATOR, IMPORT_FAILURE, DRIVER_TOO_OLD, CUDA_UNAVAILABLE_REASON, PIP_NO_TORCH,
         UV_NO_TORCH_WHEEL, UV_PYTHON_ABI, PIP_REQUIRES_PYTHON, UV_PLATFORM_TAG, GPU_TOO_OLD_FOR_TORCH, TORCH_MINIMUM_CAPABILITY,
         GPU_NOT_COMPATIBLE, TORCH_SUPPORTED_CAPABILITIES, GPU_TOO_OLD_FOR_TRITON, TRITON_CAPABILITY_NUMBERS,
         TORCH_DLL_NOT_FOUND, CUDA_UNAVAILABLE_REPORTED, WINDOWS_MODULE_NOT_FOUND, DOCKER_RUN, SLURM_JOB,
         CUDA_REQUIRED, INDEX_UNREACHABLE, DYLD_ARCHITECTURE, NO_GPU_FOR_THE_PROGRAM, INSTALL_CONFLICT, FATAL_SIGNAL)
# What fixes the failure an import-failure entry names (its `remedy`); the torch.import check turns it into actions.
RENAME_LOCAL_TORCH = "rename-local-torch"
REINSTALL_TORCH = "reinstall-torch"
# The entry's own actions fix it; reinstalling torch would not (a glibc older than the wheel needs).
OWN_FIX = "own-fix"
REMEDIES = (RENAME_LOCAL_TORCH, REINSTALL_TORCH, OWN_FIX)


@dataclass(frozen=True)
class Intent:
    """One action of the catalogue's vocabulary (ACTION_KINDS): its KIND, its WORDS (run's argv, export's name and
    value, unset's name, install_packages' requirements, note's text) and its OPTIONS as sorted (name, value) pairs
    (the fields of install_torch, new_environment and check_again; install_packages' upgrade)."""

    kind: str
    words: Tuple[str, ...] = ()
    options: Tuple[Tuple[str, Any], ...] = ()

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)


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
    # (system as platform.system() names it, ((field, value), ...)) for cause, fix, actions, layer and devices.
    variants: Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...] = ()
    # The kind of message it is for the checks (KINDS), and for an import failure what fixes it (REMEDIES).
    kind: Optional[str] = None
    remedy: Optional[str] = None
    # A pattern too general to claim a message on its own ("No module named"): only a check that asks for its kind
    # reads it, never triage nor the explanation of another error.
    general: bool = False
    # The fix as actions (`actions` in the catalogue), for checking/intents.py to map for one machine.
    actions: Tuple[Intent, ...] = ()
    # The entries whose patterns also match this message and that it explains better: where both occur, it does.
    more_specific_than: Tuple[str, ...] = ()
    # Printed only by a CUDA build of torch (its CUDA runtime's and c10/cuda's messages): where it occurs, the build has
    # CUDA (`cuda_build_only` in the catalogue).
    cuda_build_only: bool = False

    def on(self, system: Optional[str]) -> "KnownError":
        """This entry as it reads on SYSTEM (Darwin, Linux, Windows): its variant for SYSTEM, else itself."""
        changes = dict(self.variants).get(system or "")
        return replace(self, variants=(), **dict(changes)) if changes else self

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
                              entry.get("general") is True, intents_of(entry.get("actions"))[0],
                              tuple(i for i in (entry.get("more_specific_than") or ()) if isinstance(i, str)),
                              entry.get("cuda_build_only") is True))
    return tuple(out)


def variants_of(on: Any) -> Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...]:
    """The `on` object of an entry ({system: {cause, fix, layer, devices}}) as KnownError.variants; anything else in
    it is left out."""
    out = []
    for system, fields in (on.items() if isinstance(on, dict) else ()):
        if not isinstance(fields, dict):
            continue
        changes = [(name, prose_of(fields[name])) for name in ("cause", "fix") if name in fields]
        if "actions" in fields:
            changes.append(("actions", intents_of(fields["actions"])[0]))
        if "layer" in fields:
            changes.append(("layer", fields["layer"] if isinstance(fields["layer"], str) and fields["layer"] else None))
        if isinstance(fields.get("devices"), list):
            changes.append(("devices", tuple(d for d in fields["devices"] if isinstance(d, str))))
        out.append((str(system), tuple(changes)))
    return tuple(out)


def intent_of(item: Any) -> Intent:
    """ITEM of an `actions` list as an Intent; a ValueError says why it is none."""
    kind = next(iter(item), None) if isinstance(item, dict) else None
    if kind not in ACTION_KINDS or set(item) - {kind, "upgrade" if kind == "install_packages" else kind}:
        raise ValueError("not an action (one of %s): %s" % (", ".join(ACTION_KINDS), shorten(json.dumps(item), 200)))
    value = item[kind]
    if kind in ACTION_FIELDS:
        return Intent(kind, (), tuple(sorted(fields_of(kind, value).items())))
    listed = kind in ("run", "export", "install_packages")
    words = tuple(value) if listed and isinstance(value, list) else (value,) if not listed else ()
    if not words or not all(isinstance(word, str) and word.strip() for word in words):
        raise ValueError("%s takes %s" % (kind, "a list of strings" if listed else "a string"))
    if kind == "run" and (words[0] not in RUNNABLE or words[1:4] == ("-m", "pip", "install")
                          or any(PLACEHOLDER.search(word) for word in words)):
        raise ValueError("run %s: not a program that runs as written (%s), an install, or it holds a placeholder"
                         % (shorten(json.dumps(list(words)), 200), ", ".join(RUNNABLE)))
    if (kind == "export" and (len(words) != 2 or not SETTING_NAME.match(words[0]) or not SETTING_VALUE.match(words[1]))) \
            or (kind == "unset" and not SETTING_NAME.match(words[0])):
        raise ValueError("%s %s: not a NAME (and a plain value)" % (kind, json.dumps(list(words))))
    if kind == "install_packages":
        if not all(REQUIREMENT.match(word) and re.split(r"[=<>!~]", word)[0].lower() not in TORCH_COMPANIONS
                   for word in words) or not isinstance(item.get("upgrade", False), bool):
            raise ValueError("install_packages %s: plain requirements other than torch's (install_torch), and "
                             "upgrade true or false" % json.dumps(list(words)))
        return Intent(kind, words, (("upgrade", True),) if item.get("upgrade") else ())
    return Intent(kind, words)


def fields_of(kind: str, value: Any) -> dict:
    """The object VALUE of an install_torch, new_environment or check_again action, checked field by field."""
    types = ACTION_FIELDS[kind]
    if not isinstance(value, dict) or any(name not in types or not isinstance(field, types[name])
                                          for name, field in value.items()):
        raise ValueError("%s takes an object of %s" % (kind, ", ".join(sorted(types))))
    releases = load_releases()
    if "torch" in value and not releases.row_for(value["torch"])[1] or "cuda" in value and not re.fullmatch(
            r"\d+\.\d+", value["cuda"]) or "python" in value and not re.fullmatch(r"3\.\d+", value["python"]) or (
            "device" in value and value["device"] not in DEVICES):
        raise ValueError("%s: %s is not a release of the table, a CUDA x.y, a Python 3.x or a device" % (
            kind, shorten(json.dumps(value), 200)))
    return value


def intents_of(items: Any) -> Tuple[Tuple[Intent, ...], Tuple[str, ...]]:
    """The actions of an `actions` list that are valid, and what is wrong with each of the others."""
    intents: List[Intent] = []
    problems: List[str] = []
    for item in (items if isinstance(items, list) else [] if items is None else [items]):
        try:
            intents.append(intent_of(item))
        except ValueError as error:
            problems.append(str(error))
    return tuple(intents), tuple(problems)


def intents(*items: Any) -> Tuple[Intent, ...]:
    """ITEMS, written in code in the catalogue's vocabulary, as Intents (a ValueError names an invalid one)."""
    return tuple(intent_of(item) for item in items)


def action_problems(doc: Any) -> List[str]:
    """What is wrong with the `actions` of each entry of a catalogue document (its `on` variants and its reading when
    macOS meets the message included), as "id: problem"."""
    entries = doc.get("errors", []) if isinstance(doc, dict) else []
    out = []
    for entry in (e for e in entries if isinstance(e, dict)):
        parts = [entry] + [v for v in (entry.get("on") or {}).values() if isinstance(v, dict)] + [
            entry.get("when_macos_meets_it") or {}]
        out += ["%s: %s" % (entry.get("id"), problem) for part in parts for problem in intents_of(part.get("actions"))[1]]
    return out


needles = functools.lru_cache(maxsize=2048)(required)


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
    left to the checks that ask for their kind, and an entry that another occurring one is more specific than is left
    out. An entry whose pattern's required text (literals.required) TEXT lacks is not searched for."""
    unwrapped, haystack = unwrap(text), Haystack(text)
    found = [(error, error.pattern.search(text) or (error.pattern.search(unwrapped) if unwrapped != text else None))
             for error in (load_catalogue() if catalogue is None else catalogue)
             if not error.general and haystack.may_hold(needles(error.pattern))]
    found = [(error, match) for error, match in found if match]
    for error, match in found:
        # A broader entry is left out where a narrower one that names it matches the same text (its line or span);
        # elsewhere in the paste it is a message of its own.
        if not any(error.id in other.more_specific_than and same_place(match, near, text) for other, near in found):
            yield Match(error, text.count("\n", 0, match.start()) + 1, text[match.start():match.end()])


# A message wrapped where a line was too narrow for it, as terminals, log viewers and issue forms do: the line breaks
# between two words and the next line goes on in lower case ("... as the MPS framework" / "doesn't support float64",
# google-research/tabfm#68). Not after a sentence's end, nor around a traceback's frame line. A message spans a few
# lines at most: joining a whole paste of such lines into one would let a pattern that stops at a line's end scan
# to the paste's end from every start.
SOFT_WRAP = re.compile(r"(?<=[\w,)'\"`])[ \t]*\n(?=[ \t]*[a-z])")
FRAME_LINE = re.compile(r"^\s*File \"", re.M)
MOST_JOINED = 2


def unwrap(text: str) -> str:
    """TEXT with soft-wrapped line breaks (SOFT_WRAP) made spaces, at most MOST_JOINED in a row; same length, so
    offsets stay those of TEXT."""
    out, done, run = [], 0, 0
    for found in SOFT_WRAP.finditer(text):
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        run = run + 1 if text.rfind("\n", done, found.start()) < 0 and done else 1
        if run > MOST_JOINED or FRAME_LINE.match(text, start) or \
                FRAME_LINE.match(text[found.end():end if end >= 0 else len(text)]):
            run = 0 if run > MOST_JOINED else run
            continue
        out += [text[done:found.start()], " " * len(found.group(0))]
        done = found.end()
    return "".join(out) + text[done:]


# How far a broader message may start before the narrower one and still be the same message: NCCL's "NCCL error in:
# ..." header, then "Last error:" and its detail three lines below (torch/csrc/distributed/c10d/NCCLUtils).
LINES_BEFORE = 3


def same_place(broad: "re.Match", narrow: "re.Match", text: str) -> bool:
    """Whether match BROAD starts on a line that match NARROW spans in TEXT, up to LINES_BEFORE lines above them (a
    header the detail belongs to), or on the line after them (where a tool ends the message: pip's "No matching
    distribution found for torch==..." after "Could not find a version that satisfies the requirement torch==...",
    pip/_internal/resolution/resolvelib/factory.py)."""
    first = text.rfind("\n", 0, narrow.start()) + 1
    for _ in range(LINES_BEFORE):
        first = text.rfind("\n", 0, max(first - 1, 0)) + 1 if first > 0 else 0
    last = text.find("\n", narrow.end())
    following = -1 if last < 0 else text.find("\n", last + 1)
    return first <= broad.start() <= (len(text) if last < 0 or following < 0 else following)


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
