"""Many JSON reports in, one Summary out: verdicts, root causes, failing checks, versions, policy, fix groups.

Pure: the files are read elsewhere (fleet/collect.py). Each report is validated as `check --from` validates one
(its facts and options), and the fields the summary reads from it (verdict, results, created) are checked too; a
report that fails is left out with the reason, never fatal. The verdicts are the ones each machine recorded:
`check --from FILE` judges one again with this version's checks.
"""

import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from mps_doctor import exit_codes
from mps_doctor.checking.model import Status
from mps_doctor.errors import ReportFormatError
from mps_doctor.facts import Facts
from mps_doctor.inputs import REPORT_FORMAT
from mps_doctor.report import facts_from_report, json_repr
from mps_doctor.secrets import scrub_values

STATES = ("ready", "not-ready", "timed-out", "doctor-failed")
STATUSES = tuple(status.value for status in Status)
# What a result's status says about the machine: a failure of some kind, or a warning.
FAILING = (Status.FAIL.value, Status.TIMEOUT.value, Status.ERROR.value)
# Why a file is left out: unreadable or invalid, not a check report, a triage report, the same report again.
LEFT_OUT_KINDS = ("bad", "foreign", "triage", "duplicate")
VERSION_LABELS = (("torch", "torch"), ("macos", "macOS"), ("python", "Python"), ("driver", "NVIDIA driver"))


@dataclass(frozen=True)
class ReportFile:
    """One input: NAME (how the summary names the machine), PATH (to open, and to give `fix --from`), and either the
    parsed JSON DOCUMENT or the PROBLEM that kept it from being read."""

    name: str
    path: str
    document: Any = None
    problem: Optional[str] = None


@dataclass(frozen=True)
class Machine:
    """One machine as its report recorded it. Reports hold no host name, so the file names the machine."""

    name: str
    path: str
    state: str
    device: str
    root_cause: Optional[str]
    problem: str
    fix_key: Optional[str]
    fix_title: Optional[str]
    created: str
    versions: Tuple[Tuple[str, Optional[str]], ...]
    os: str
    failing: Tuple[str, ...]
    warnings: Tuple[str, ...]
    outside_policy: Tuple[Tuple[str, str], ...]
    has_policy: bool
    home: Optional[str]
    user: Optional[str]

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def version(self, label: str) -> Optional[str]:
        """The version of LABEL (torch, macos, python, driver) on this machine; None when unknown or not there."""
        return dict(self.versions).get(label)


@dataclass(frozen=True)
class LeftOut:
    """A file that is not in the summary, and why: KIND is one of LEFT_OUT_KINDS."""

    name: str
    kind: str
    reason: str


@dataclass(frozen=True)
class FixGroup:
    """The machines that share a root cause and its fix (the remedies' keys), with the first one's title."""

    root_cause: Optional[str]
    fix_keys: Tuple[str, ...]
    title: str
    machines: Tuple[Machine, ...]


@dataclass(frozen=True)
class Summary:
    """What `summarize` shows: every machine, every file left out, and the counts over the machines."""

    machines: Tuple[Machine, ...]
    left_out: Tuple[LeftOut, ...]
    states: Tuple[Tuple[str, int], ...]
    root_causes: Tuple[Tuple[str, int], ...]
    checks: Tuple[Tuple[str, int, int], ...]
    versions: Tuple[Tuple[str, Tuple[Tuple[str, int], ...]], ...]
    groups: Tuple[FixGroup, ...]
    without_policy: int

    @property
    def outside_policy(self) -> Tuple[Machine, ...]:
        return tuple(m for m in self.machines if m.outside_policy)

    def exit_code(self) -> int:
        """0 when every file was a report (duplicates aside) and every machine is ready; else 1: a machine is not
        shown ready, or a file could not be read as a report (its machine's state is unknown)."""
        unknown = any(item.kind != "duplicate" for item in self.left_out)
        if self.machines and not unknown and all(m.ready for m in self.machines):
            return exit_codes.READY
        return exit_codes.NOT_READY


def summarize(files: Iterable[ReportFile]) -> Summary:
    """The Summary of FILES, in their order; a file that is not a usable report is left out with the reason."""
    machines: List[Machine] = []
    left_out: List[LeftOut] = []
    seen: Dict[str, str] = {}
    for item in files:
        try:
            machine, fingerprint = machine_of(item)
        except ReportFormatError as exc:
            left_out.append(LeftOut(item.name, getattr(exc, "kind", "bad"), str(exc)))
            continue
        if fingerprint in seen:
            left_out.append(LeftOut(item.name, "duplicate", "the same report as %s: the same facts, made at %s" % (
                seen[fingerprint], machine.created or "an unknown time")))
            continue
        seen[fingerprint] = item.name
        machines.append(machine)
    return Summary(tuple(machines), tuple(left_out), state_counts(machines), counted(m.root_cause for m in machines
                                                                                   if m.root_cause),
                   check_counts(machines), version_counts(machines), fix_groups(machines),
                   sum(1 for m in machines if not m.has_policy))


class LeftOutError(ReportFormatError):
    """Why a file is left out, with its KIND."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def machine_of(item: ReportFile) -> Tuple[Machine, str]:
    """(the machine of ITEM's report, a fingerprint of its facts and time); raise a ReportFormatError (a LeftOutError
    with its kind) for a file that is not a usable check report."""
    if item.problem is not None:
        raise LeftOutError("bad", item.problem)
    doc = scrub_values(item.document)
    if not isinstance(doc, dict):
        raise LeftOutError("foreign", "not an mps-doctor report: a JSON %s, not an object" % json_kind(doc))
    if doc.get("format") == "mps-doctor-bench":
        raise LeftOutError("foreign", "an mps-doctor bench document, not a check report")
    if doc.get("format") != REPORT_FORMAT:
        raise LeftOutError("foreign", "not an mps-doctor report (no \"format\": \"%s\")" % REPORT_FORMAT)
    if isinstance(doc.get("source"), dict) and doc["source"].get("kind") == "pasted":
        raise LeftOutError("triage", "a triage report: facts read from pasted text are partial, and never show a "
                                     "machine ready")
    try:
        facts, options = facts_from_report(doc)
        verdict, results, created = recorded(doc)
    except RecursionError:
        raise LeftOutError("bad", "nested too deeply to be a report")
    root = next((r for r in results if r["id"] == verdict["root_cause"]), None)
    remedy = root.get("remedy") if root is not None else None
    fingerprint = hashlib.sha256(json.dumps([created, doc["facts"]], sort_keys=True).encode(
        "utf-8", "surrogatepass")).hexdigest()
    return Machine(
        item.name, item.path, verdict["state"], options.get("device") or facts.target.device, verdict["root_cause"],
        root["summary"] if root is not None else verdict["summary"], remedy["key"] if remedy else None,
        remedy["title"] if remedy else None, created, versions_of(facts), os_of(facts),
        tuple(r["id"] for r in results if r["status"] in FAILING),
        tuple(r["id"] for r in results if r["status"] == Status.WARN.value),
        tuple((r["id"], r["summary"]) for r in results if r["id"].startswith("policy.") and r["status"] in FAILING),
        not options["policy"].empty, facts.host.home, facts.host.user), fingerprint


def json_kind(value: Any) -> str:
    """The JSON name of VALUE's type."""
    if isinstance(value, bool) or value is None:
        return "boolean" if value is not None else "null"
    return {list: "array", str: "string", int: "number", float: "number"}.get(type(value), "value")


def recorded(doc: Dict[str, Any]) -> Tuple[Dict[str, Any], List[Dict[str, Any]], str]:
    """(verdict, results, created) of a report, each field the summary reads checked; a bad one is a
    ReportFormatError naming its JSON path."""
    verdict = doc.get("verdict")
    if not isinstance(verdict, dict):
        raise ReportFormatError("verdict: expected an object, not %s" % json_repr(verdict))
    if verdict.get("state") not in STATES:
        raise ReportFormatError("verdict.state: %s is not one of %s" % (json_repr(verdict.get("state")), ", ".join(STATES)))
    if verdict.get("ready") is not (verdict["state"] == "ready"):
        raise ReportFormatError("verdict.ready: %s does not agree with verdict.state %s" % (
            json_repr(verdict.get("ready")), verdict["state"]))
    expect_string(verdict, "summary", "verdict.")
    expect_string(verdict, "root_cause", "verdict.", optional=True)
    results = doc.get("results")
    if not isinstance(results, list):
        raise ReportFormatError("results: expected a list, not %s" % json_repr(results))
    for index, result in enumerate(results):
        where = "results[%d]." % index
        if not isinstance(result, dict):
            raise ReportFormatError("results[%d]: expected an object, not %s" % (index, json_repr(result)))
        expect_string(result, "id", where)
        expect_string(result, "summary", where)
        if result.get("status") not in STATUSES:
            raise ReportFormatError("%sstatus: %s is not one of %s" % (where, json_repr(result.get("status")),
                                                                      ", ".join(STATUSES)))
        remedy = result.get("remedy")
        if remedy is not None:
            if not isinstance(remedy, dict):
                raise ReportFormatError("%sremedy: expected an object, not %s" % (where, json_repr(remedy)))
            expect_string(remedy, "title", where + "remedy.")
            expect_string(remedy, "key", where + "remedy.")
    root = verdict.get("root_cause")
    if root is not None and not any(r["id"] == root for r in results):
        raise ReportFormatError("verdict.root_cause: %s is not the id of a result" % json_repr(root))
    created = doc.get("created", "")
    if not isinstance(created, str):
        raise ReportFormatError("created: expected a string, not %s" % json_repr(created))
    return verdict, results, created


def expect_string(node: Dict[str, Any], key: str, where: str, optional: bool = False) -> None:
    """Raise a ReportFormatError unless NODE[KEY] is a string (or, when OPTIONAL, null or missing)."""
    value = node.get(key)
    if not isinstance(value, str) and not (optional and value is None):
        raise ReportFormatError("%s%s: expected a string, not %s" % (where, key, json_repr(value)))


def versions_of(facts: Facts) -> Tuple[Tuple[str, Optional[str]], ...]:
    """(label, version) for torch, macOS, Python and the NVIDIA driver; a label that does not apply is left out
    (macOS on Linux, the driver without nvidia-smi), one that applies but is unknown is None."""
    host, target = facts.host, facts.target
    torch = target.torch
    versions: List[Tuple[str, Optional[str]]] = [(
        "torch", None if torch is None else (torch.version or torch.packages.get("torch")) if torch.installed
        else "not installed")]
    if host.system == "Darwin":
        versions.append(("macos", host.macos_version))
    interpreter = target.interpreter
    versions.append(("python", ".".join(map(str, interpreter.version[:3])) if interpreter is not None else None))
    if host.nvidia_smi is not None and host.nvidia_smi.found:
        versions.append(("driver", host.nvidia_smi.driver_version))
    return tuple(versions)


def os_of(facts: Facts) -> str:
    """The operating system in a few words: "macOS 14.6.1", the Linux distribution's name, else the system."""
    host = facts.host
    if host.system == "Darwin":
        return "macOS %s" % (host.macos_version or "?")
    distro = host.linux_distro or {}
    return distro.get("pretty_name") or distro.get("name") or host.system


def counted(values: Iterable[str]) -> Tuple[Tuple[str, int], ...]:
    """(value, count) pairs, the most frequent first, ties in the order of the values."""
    return tuple(sorted(Counter(values).items(), key=lambda item: (-item[1], item[0])))


def state_counts(machines: List[Machine]) -> Tuple[Tuple[str, int], ...]:
    """(state, number of machines) for each state that some machine has, in STATES order."""
    counts = Counter(m.state for m in machines)
    return tuple((state, counts[state]) for state in STATES if counts[state])


def check_counts(machines: List[Machine]) -> Tuple[Tuple[str, int, int], ...]:
    """(check id, machines where it failed, machines where it warned), the most failing first."""
    failed = Counter(i for m in machines for i in set(m.failing))
    warned = Counter(i for m in machines for i in set(m.warnings))
    ids = set(failed) | set(warned)
    return tuple(sorted(((i, failed[i], warned[i]) for i in ids), key=lambda row: (-row[1], -row[2], row[0])))


def version_counts(machines: List[Machine]) -> Tuple[Tuple[str, Tuple[Tuple[str, int], ...]], ...]:
    """(label, ((version, machines), ...)) for each version label that applies to some machine; "unknown" where a
    machine's report does not know it."""
    rows = []
    for label, _ in VERSION_LABELS:
        values = [dict(m.versions)[label] or "unknown" for m in machines if label in dict(m.versions)]
        if values:
            rows.append((label, counted(values)))
    return tuple(rows)


def fix_groups(machines: List[Machine]) -> Tuple[FixGroup, ...]:
    """The machines that are not ready, grouped by root cause and fix (the remedy's key; fixes of one root cause
    with the same title are one group), the largest group first."""
    by_key: Dict[Tuple[str, str, str], List[Machine]] = {}
    for machine in machines:
        if not machine.ready:
            by_key.setdefault((machine.state, machine.root_cause or "", machine.fix_key or ""), []).append(machine)
    by_title: Dict[Tuple[str, str, str], List[Machine]] = {}
    for members in by_key.values():
        first = members[0]
        by_title.setdefault((first.state, first.root_cause or "", first.fix_title or first.problem), []).extend(members)
    found = [FixGroup(members[0].root_cause, tuple(dict.fromkeys(m.fix_key for m in members if m.fix_key)),
                      title, tuple(members)) for (_, _, title), members in by_title.items()]
    return tuple(sorted(found, key=lambda g: (-len(g.machines), g.root_cause or "", g.title)))
