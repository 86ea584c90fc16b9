"""Triage: from pasted text to the same verdict as `check`, with every fact's line numbers.

One-way, like `check`: text -> lines -> findings and evidence -> Facts -> the same checks (with an evaluator that
says "not in the pasted text" where the paste cannot decide a layer) -> a Report whose source is "pasted".
"""

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mps_doctor import exit_codes
from mps_doctor.checking.context import Context
from mps_doctor.checking.intents import actions_of
from mps_doctor.checking.model import CheckResult, Options, Outcome, Remedy, Status
from mps_doctor.checking.pasted import PASTED_PYTHON
from mps_doctor.checking.registry import REGISTRY, all_checks, implicated_by, layers_for
from mps_doctor.errors import UsageError
from mps_doctor.fact_catalogue import arguments_for, label
from mps_doctor.facts import CudaDevice, ErrorInfo, Facts, Host, Interpreter, NvidiaSmi, Target, TorchInfo
from mps_doctor.inputs import embedded_report, read_input
from mps_doctor.known_errors import Intent, KnownError, Match, find_all
from mps_doctor.report import Report, Verdict, check_results, created_now, guarded
from mps_doctor.secrets import home_user_names, scrub
from mps_doctor.triage.derived import capability_evidence, derive_cuda, devices_from
from mps_doctor.triage.device import Choice, choose, derive_build, fact_votes, line_votes, message_votes
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers import PARSERS, PRIORITY
from mps_doctor.triage.parsers.install import NO_WHEEL
from mps_doctor.triage.stale import reconcile
from mps_doctor.triage.suspected import suspect
from mps_doctor.triage.text import Line, Lines, clean, joined
from mps_doctor.versions import load_releases, minor_of, version_tuple
from mps_doctor.words import shorten

NOT_IN_PASTE = "not in the pasted text"


@dataclass(frozen=True)
class Known:
    """One fact as read: its value, every line it came from, and the parser that read it."""

    value: Any
    lines: Tuple[int, ...]
    parser: str


@dataclass(frozen=True)
class Paste:
    """Everything read from one paste."""

    lines: Sequence[Line]
    known: Dict[str, Known]
    evidence: Tuple[Evidence, ...]
    matches: Tuple[Match, ...]

    @property
    def recognized(self) -> bool:
        return bool(self.known or self.evidence or self.matches)


def read_paste(raw: str, catalogue: Optional[Tuple[KnownError, ...]] = None) -> Paste:
    """Clean RAW and run every parser and the catalogue over it."""
    all_checks()
    lines = clean(raw)
    # Cleaning removes what could split a secret's shape apart (an escape, a tag, a control, an entity): scrub again.
    rescrubbed = scrub(lines.text)
    if rescrubbed != lines.text:
        lines = Lines(rescrubbed.split("\n"), list(lines.prompts))
    findings: List[Finding] = []
    evidence: List[Evidence] = []
    for parser in PARSERS:
        found, implicated = parser(lines)
        findings += found
        evidence += implicated
    matches = tuple(sorted(find_all(joined(lines), catalogue), key=lambda m: m.line))
    for match in matches:
        findings.append(Finding("message", stripped_line(lines[match.line - 1].text), lines[match.line - 1].number, "catalogue"))
    known = derive_build(derive(assemble(findings)), Known)
    # A message means what it means on the paste's system ("Torch not compiled with CUDA enabled" on a Mac: no CUDA).
    system = known["host.system"].value if "host.system" in known else None
    matches = tuple(replace(match, error=match.error.on(system)) for match in matches)
    evidence = [item for item in evidence if not advises_own_python(item, known)] + capability_evidence(known)
    for match in matches:
        if match.error.layer in REGISTRY and about_the_layer(match, lines):
            evidence.append(catalogue_evidence(match, lines[match.line - 1].number))
    evidence = reconcile(evidence, matches, known, lambda match: lines[match.line - 1].number)
    return Paste(lines, known, tuple(evidence), matches)


# Sources that name the torch a machine has (not one it asked for, as pip's and uv's errors do, nor prose).
INSTALLED_SOURCES = ("collect_env", "session", "conda-plan", "lightning", "hf-env", "wheel")
FIRST_MPS_RELEASE = minor_of(load_releases().first_mps)  # MPS arrived in torch 1.12 (PyTorch 1.12 release notes)


def derive(known: Dict[str, Known]) -> Dict[str, Known]:
    """Facts that follow from others: a torch older than 1.12 was built without MPS; an x86_64 Python of a conda
    environment on macOS is an osx-64 (Intel) conda's."""
    torch = next((known[path] for path in ("torch.version", "packages.torch")
                  if path in known and known[path].parser in INSTALLED_SOURCES), None)
    if torch is not None and "torch.mps_built" not in known:
        numbers = version_tuple(str(torch.value))[:2]
        if len(numbers) == 2 and numbers < FIRST_MPS_RELEASE:
            known = dict(known, **{"torch.mps_built": Known(False, torch.lines, "derived")})
    conda, machine = known.get("interpreter.conda"), known.get("interpreter.machine")
    if conda is not None and machine is not None and machine.value == "x86_64" and "interpreter.conda_subdir" not in known \
            and value_of(known, "host.system") == "Darwin":
        # conda installs a Python of its own subdir's architecture: x86_64 on macOS is osx-64 (conda's platform
        # subdirs, docs.conda.io "Managing packages for different platforms").
        known = dict(known, **{"interpreter.conda_subdir": Known("osx-64", tuple(sorted(set(conda.lines + machine.lines))),
                                                                  "derived")})
    return derive_cuda(known, Known)


def value_of(known: Dict[str, Known], path: str) -> Any:
    """The value of fact PATH in KNOWN, or None."""
    return known[path].value if path in known else None


def advises_own_python(evidence: Evidence, known: Dict[str, Known]) -> bool:
    """Whether EVIDENCE blames the Python version for a missing wheel while the paste's Python is the version it
    advises: then the version is not why (a 32-bit or PyPy build, a platform without wheels), and the evidence is
    left out so that the paste's own version is never contradicted."""
    version = value_of(known, "interpreter.version")
    advised = [intent.option("python") for intent in evidence.actions if intent.kind == "new_environment"]
    return evidence.kind == NO_WHEEL and bool(version) and ".".join(map(str, version[:2])) in advised


def about_the_layer(match: Match, lines: Sequence[Line]) -> bool:
    """Whether a match speaks of what its layer checks: for an entry marked torch_libraries_only, a library that fails
    to load implicates its layer only when it is torch's own (an extension such as torch_scatter built for another
    architecture is not torch)."""
    context = " ".join(line.text for line in lines[max(0, match.line - 5):match.line])
    if not match.error.torch_libraries_only or not re.search(r"\.(so|dylib|pyd|dll)\b", context):
        return True
    return bool(re.search(r"[/\\]torch[/\\]|libtorch|libc10|libshm", context))


def catalogue_evidence(match: Match, number: int) -> Evidence:
    """A catalogue match as evidence against its layer."""
    error = match.error
    return Evidence((error.layer,), "%s (%s)" % (first_sentence(error.cause), error.id), stripped_line(match.text),
                    error.cause + (" Fix: " + error.fix if error.fix else ""), error.actions, error.link, number,
                    error.id, devices=error.devices)


# The ASCII characters that mean something to a shell, Markdown or HTML, and the controls and line separators.
UNSAFE = re.compile("[!$&*<>?@\\[\\]^`{|}\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Unicode format characters (bidi controls, zero-width, tags), surrogates and private use: never part of a message.
HIDDEN = ("Cf", "Cs", "Co")


def stripped_line(text: str, limit: int = 300) -> str:
    """Pasted TEXT as one line of at most LIMIT characters, without the ASCII characters that mean something to a
    shell, Markdown or HTML (` $ < > @ | * [ ] ! & \\) and without invisible ones; other scripts' letters and
    punctuation (，：…) are the user's words and stay."""
    text = UNSAFE.sub("", " ".join(text.replace("\\", "/").split()))
    return shorten("".join(char for char in text if unicodedata.category(char) not in HIDDEN), limit)


def first_sentence(text: str) -> str:
    """TEXT up to its first full stop, without it."""
    head = text.split(". ", 1)[0].rstrip(".")
    return shorten(head, 200)


def assemble(findings: Sequence[Finding]) -> Dict[str, Known]:
    """One value per fact: the most trusted parser's (PRIORITY), then the earliest line; lines of agreeing findings kept."""
    rank = {name: index for index, name in enumerate(PRIORITY)}
    known: Dict[str, Known] = {}
    by_path: Dict[str, List[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, group in by_path.items():
        if path in ("message", "nvidia_smi.gpu"):
            values = tuple(dict.fromkeys(stripped_line(f.value, 300) for f in group))
            known[path] = Known(values, tuple(sorted({f.line for f in group})), group[0].parser)
            continue
        group = [Finding(f.path, stripped_line(f.value, 160), f.line, f.parser) if isinstance(f.value, str) else f for f in group]
        best = min(group, key=lambda f: (rank.get(f.parser, len(rank)), f.line))
        lines = tuple(sorted({f.line for f in group if f.value == best.value}))
        known[path] = Known(best.value, lines, best.parser)
    return known


def value(paste: Paste, path: str, default: Any = None) -> Any:
    known = paste.known.get(path)
    return default if known is None else known.value


def build_facts(paste: Paste, device: str) -> Facts:
    """The paste's facts in the types `check` uses, placed where the fact catalogue says; anything the paste does not
    say stays unknown (None)."""
    get = lambda path, default=None: value(paste, path, default)  # noqa: E731
    placed = arguments_for({path: known.value for path, known in paste.known.items()},
                           ("host", "host.nvidia_smi", "target.interpreter", "target.torch"))
    smi = None
    if placed["host.nvidia_smi"]:
        smi = NvidiaSmi(found=True, **dict(placed["host.nvidia_smi"], gpus=tuple(get("nvidia_smi.gpu", ()))))
    host = Host(**dict(placed["host"], system=get("host.system", "unknown"), nvidia_smi=smi))
    # Always an interpreter (version () = unknown): layers that need its facts are judged by what the paste holds.
    interpreter = Interpreter(**dict(placed["target.interpreter"], version=tuple(get("interpreter.version") or ()),
                                     sys_platform={"Darwin": "darwin", "Linux": "linux", "Windows": "win32"}.get(host.system),
                                     conda_meta=bool(get("interpreter.conda_subdir"))))
    packages = placed["target.torch"].get("packages", {})
    torch = None
    # torch's own messages (a driver too old, no kernel image) are facts about torch too: TorchInfo.warnings.
    if packages or "message" in paste.known or any(k.startswith("torch.") for k in paste.known):
        failed_import = bool(get("torch.import_failed") and not get("torch.installed") and packages.get("torch"))
        torch = TorchInfo(**dict(
            placed["target.torch"],
            installed=bool(get("torch.installed")) or failed_import,
            import_error=ErrorInfo("ImportError", "torch could not be imported (collect_env printed N/A)") if failed_import else None,
            cuda_version=get("torch.cuda_version", get("torch.wheel_cuda")),
            cuda_devices=devices_from(paste.known, CudaDevice),
            packages=packages, warnings=tuple(get("message", ()))))
    target = Target(python=python_of(paste), device=device, interpreter=interpreter, torch=torch)
    return Facts(host=host, target=target)


def infer_device(paste: Paste) -> str:
    """The device the paste is about (device_choice)."""
    return device_choice(paste).device


def device_choice(paste: Paste) -> Choice:
    """The device the paste is about, from all of its evidence with weights (triage/device.py)."""
    at = [(e.devices, e.line) for e in paste.evidence] + [(m.error.devices, m.line) for m in paste.matches]
    read = {n for k in paste.known.values() for n in k.lines} | {line for _, line in at}
    return choose(fact_votes(paste.known) + message_votes(at) + line_votes(paste.lines, read, value(paste, "host.system")))


class Evaluator:
    """Runs one check on a paste's facts: a layer whose facts the paste lacks says so instead of passing, and
    evidence (a message in the paste) fails the first layer it implicates that the facts do not clear. It is also the
    view of the paste that a check's `pasted` rule reads (checking/pasted.py)."""

    def __init__(self, paste: Paste, layers: Sequence[str]):
        self.paste, self.layers = paste, tuple(layers)
        self.undecided: List[str] = []
        self.suspected: List[str] = []
        self.decided_by: Dict[str, Evidence] = {}

    def has(self, requirement: str) -> bool:
        return any(option in self.paste.known for option in requirement.split("|"))

    def value(self, path: str) -> Any:
        return value(self.paste, path)

    def parser(self, path: str) -> Optional[str]:
        known = self.paste.known.get(path)
        return known.parser if known is not None else None

    def missing(self, spec, ctx: Context) -> List[str]:
        needs = spec.facts + (spec.facts_when(ctx) if spec.facts_when else ())
        if not needs:
            return ["its facts"]
        return [label(r) for r in needs if not self.has(r)]

    def evidence_for(self, check_id: str) -> Optional[Evidence]:
        return next((e for e in self.paste.evidence if check_id in implicated(e)), None)

    def last_candidate(self, evidence: Evidence, check_id: str) -> bool:
        candidates = [c for c in implicated(evidence) if c in self.layers] or list(implicated(evidence))
        return candidates[-1] == check_id

    def __call__(self, spec, ctx: Context) -> Outcome:
        if spec.advisory:
            return Outcome(Status.SKIP, "%s: advisories need the machine itself" % NOT_IN_PASTE)
        evidence = self.evidence_for(spec.id)
        missing = self.missing(spec, ctx)
        if not missing:
            judged = guarded(spec, ctx)
            outcome = spec.pasted(judged, ctx, self) if spec.pasted and judged.status != Status.ERROR else judged
            if outcome.status == Status.SKIP and judged.status != Status.SKIP:
                return outcome
            if outcome.status == Status.WARN and evidence is None:
                # A layer that only warns for want of its decisive fact (a driver's CUDA that another pasted message
                # stood in for) takes the suspicion for that fact.
                suspicion = suspect(tuple(r.split("|")[0] for r in spec.facts), self.paste.known)
                if suspicion is not None:
                    self.suspected.append(spec.id)
                    return suspicion
            if outcome.status != Status.ERROR:
                if evidence is not None and evidence.overrides:
                    return self.failed_by(evidence, spec.id)
                if outcome.status == Status.FAIL or evidence is None or not self.last_candidate(evidence, spec.id):
                    return with_lines(outcome, spec.id, self.paste)
                return self.failed_by(evidence, spec.id)
        if evidence is not None:
            return self.failed_by(evidence, spec.id)
        suspicion = suspect(spec.facts, self.paste.known)
        if suspicion is not None:
            self.suspected.append(spec.id)
            return suspicion
        self.undecided.append(spec.id)
        return Outcome(Status.SKIP, "%s: %s" % (NOT_IN_PASTE, ", ".join(missing) or "facts this check needs"))


    def failed_by(self, evidence: Evidence, check_id: str) -> Outcome:
        """CHECK_ID's failing outcome from EVIDENCE, remembered as what decided it."""
        self.decided_by[check_id] = evidence
        return from_evidence(evidence, self.paste)

    def known_error(self, root_id: Optional[str]) -> Optional[str]:
        """The catalogue id of the message that explains ROOT_ID: the message that failed that layer, or ROOT_ID
        itself when it is a message; else None."""
        pasted = {match.error.id for match in self.paste.matches}
        if root_id is None or root_id in pasted:
            return root_id
        evidence = self.decided_by.get(root_id)
        return evidence.source if evidence is not None and evidence.source in pasted else None


def implicated(evidence: Evidence) -> Tuple[str, ...]:
    """The layers EVIDENCE implicates: those registered for its kind of message, else its catalogue entry's layer."""
    return implicated_by(evidence.kind) if evidence.kind else evidence.checks


def python_of(paste: Paste) -> str:
    """How a command for the pasted machine starts its Python: `python` on Windows (python.org's installer and
    conda put no python3 there), else PASTED_PYTHON."""
    return "python" if value(paste, "host.system") == "Windows" else PASTED_PYTHON


def actions_for(intents: Sequence[Intent], paste: Paste):
    """INTENTS (a catalogue entry's, a parser's evidence's) as actions for the pasted machine (checking/intents.py)."""
    return actions_of(intents, value(paste, "host.system"), python_of(paste),
                          tuple(value(paste, "interpreter.version") or ()))


def from_evidence(evidence: Evidence, paste: Paste) -> Outcome:
    """A failing outcome from a message in the paste."""
    return Outcome(Status.FAIL, evidence.summary, ("pasted line %d (%s)" % (evidence.line, evidence.source),),
                   Remedy(evidence.problem, evidence.why, actions_for(evidence.actions, paste), evidence.link,
                          key="pasted-" + evidence.source))


def with_lines(outcome: Outcome, check_id: str, paste: Paste) -> Outcome:
    """OUTCOME with the pasted lines of the facts it judged in its details."""
    lines = sorted({n for r in (REGISTRY[check_id].facts if check_id in REGISTRY else ()) for p in r.split("|") if p in paste.known
                    for n in paste.known[p].lines})
    if not lines:
        return outcome
    return replace(outcome, details=outcome.details + ("from pasted line%s %s" % (
        "s" if len(lines) > 1 else "", ", ".join(map(str, lines))),))


def known_error_result(match: Match, is_root: bool, number: int, paste: Paste) -> CheckResult:
    """A matched catalogue entry as a result: the root cause when no layer fails, else supporting evidence."""
    error = match.error
    remedy = Remedy(stripped_line(match.text), error.cause + (" Fix: " + error.fix if error.fix else ""),
                    actions_for(error.actions, paste), error.link, key="known-error")
    return CheckResult(error.id, "Known message: %s" % first_sentence(error.cause), None,
                       Status.FAIL if is_root else Status.WARN, "%s (pasted line %d)" % (first_sentence(error.cause), number),
                       ("pasted line %d: %s" % (number, stripped_line(match.text)),), remedy,
                       "known_errors.json: " + ", ".join(error.sources[:2]))


# GitHub caps an issue's title at 256 characters.
TITLE_LIMIT = 256


def triage(raw: str, device: str = "auto", catalogue: Optional[Tuple[KnownError, ...]] = None,
           title: Optional[str] = None) -> Report:
    """The report for pasted text RAW; raise UsageError when it holds nothing recognizable. TITLE, the issue's title,
    is read as a maintainer reads it: only when RAW names no cause, as line 1 above RAW (its lines then count from 3;
    `source.title` says so). Secrets are replaced before anything is read, so that no fact, message or output can hold
    one."""
    heading = " ".join((title or "").split())[:TITLE_LIMIT]
    try:
        report = triage_text(raw, device, catalogue)
    except UsageError:
        if not heading:
            raise
        report = None
    if not heading or report is not None and (report.verdict.root_cause or (report.source or {}).get("kind") != "pasted"):
        return report
    try:
        titled = triage_text(heading + "\n\n" + raw, device, catalogue)
    except UsageError:
        titled = None
    if titled is None or titled.verdict.root_cause is None:
        if report is None:
            raise UsageError("nothing recognizable in the pasted text or its title")
        return report
    cleaned = clean(scrub(heading))
    text = scrub(cleaned[0].text) if len(cleaned) else ""
    return replace(titled, source=dict(titled.source, title={"line": 1, "text": text}))


def triage_text(raw: str, device: str = "auto", catalogue: Optional[Tuple[KnownError, ...]] = None) -> Report:
    """The report for pasted text RAW alone (triage)."""
    embedded = embedded_report(raw)
    if embedded is not None:
        return replayed_report(embedded)
    paste = read_paste(scrub(raw), catalogue)
    if not paste.recognized:
        raise UsageError("nothing recognizable in the pasted text (no collect_env, environment dump, install log, "
                         "platform string or known error message)")
    choice = device_choice(paste) if device == "auto" else None
    device = choice.device if choice is not None else device
    facts = build_facts(paste, device)
    layers = layers_for(device, facts.host.system)
    evaluator = Evaluator(paste, layers)
    options, checked, _ = check_results(facts, Options(device=device, requested_device=device), evaluate=evaluator)
    results = list(checked)
    root = next((r for r in results if r.layer is not None and r.status == Status.FAIL), None)
    for index, match in enumerate(paste.matches):
        number = paste.lines[match.line - 1].number
        results.append(known_error_result(match, root is None and index == 0, number, paste))
    root_id = root.id if root is not None else (paste.matches[0].error.id if paste.matches else None)
    error = unexplained_error(paste) if root_id is None else None
    verdict = replace(triage_verdict(results, device, root_id, error), suspected=root_id in evaluator.suspected,
                      known_error=evaluator.known_error(root_id))
    device_from = choice.reason if choice is not None else "--device %s" % device
    source = dict(source_of(paste, device_from), **({"unexplained_error": {"line": error.number, "text": stripped_line(error.text)}}
                                               if error is not None else {}))
    return Report(facts, options, tuple(results), verdict, created=created_now(),
                  source=source)


# A line that reports an error: a Python exception ("RuntimeError: ...", "torch.cuda.OutOfMemoryError: ..."), pip's
# and uv's "ERROR:" and "error:" lines, and a traceback's head.
# Names are bounded so that the match stays linear in the line's length.
EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]{0,100}\.)?[A-Z]\w{0,60}(?:Error|Exception)(?:: |$)")
ERROR_LINES = (EXCEPTION_LINE, re.compile(r"^(?:ERROR|error): "), re.compile(r"^Traceback \(most recent call last\):"))


def unexplained_error(paste: Paste) -> Optional[Line]:
    """The line of the paste that reports an error (an exception first), when nothing explains it; else None."""
    return next((line for pattern in ERROR_LINES for line in paste.lines if pattern.match(line.text)), None)


def replayed_report(data: bytes) -> Report:
    """The report that a pasted `check --format markdown` carries, checked again on its facts as `check --from` does:
    a paste of the doctor's own report is diagnosed from all its facts, not from the lines around it."""
    from mps_doctor.diagnosis import DiagnosisRequest, diagnose

    return diagnose(DiagnosisRequest(from_report="(the report in the pasted text)", from_data=data))


def triage_verdict(results: Sequence[CheckResult], device: str, root_id: Optional[str],
                   error: Optional[Line] = None) -> Verdict:
    """problem-found (root cause: the first failing layer, else the first known message) or no-problem-found, which
    names the pasted ERROR that nothing explains."""
    counts = {s.value: sum(1 for r in results if r.status == s) for s in Status}
    counts["accepted"] = 0
    undecided = sum(1 for r in results if r.layer is not None and r.summary.startswith(NOT_IN_PASTE))
    tally = "%d layer%s not in the pasted text" % (undecided, "" if undecided == 1 else "s") if undecided else \
        "the layers after it are skipped"
    if root_id is not None:
        root = next(r for r in results if r.id == root_id)
        return Verdict(False, "problem-found", root_id, "problem found (%s): %s; %s" % (device, root.summary, tally), counts)
    if error is not None:
        return Verdict(False, "no-problem-found", None, "no known cause of the error on pasted line %d (%s); %s" % (
            error.number, device, tally), counts)
    return Verdict(False, "no-problem-found", None, "no problem found in the pasted text (%s); %s" % (device, tally), counts)


def exit_code(report: Report) -> int:
    """1 when the paste shows a problem, else 0."""
    return exit_codes.NOT_READY if report.verdict.root_cause else exit_codes.READY


def source_of(paste: Paste, device_from: str) -> Dict[str, Any]:
    """The report's "source": what was read from the paste, with line numbers."""
    return {
        "kind": "pasted",
        "lines": len(paste.lines),
        # Whose home folders the paste shows: the names that a redacted reply removes wherever they appear.
        "home_users": home_user_names("\n".join(line.text for line in paste.lines)),
        "device_from": device_from,
        "facts": [{"fact": path, "value": list(k.value) if isinstance(k.value, tuple) else k.value, "lines": list(k.lines),
                   "parser": k.parser} for path, k in sorted(paste.known.items(), key=lambda item: item[1].lines)],
        "known_errors": [{"id": m.error.id, "line": paste.lines[m.line - 1].number, "text": stripped_line(m.text),
                          "layer": m.error.layer, "sources": list(m.error.sources)} for m in paste.matches],
    }


def read_text(path: Optional[str], stdin) -> str:
    """The text of PATH, or of STDIN for '-' or no path (inputs.read_input); undecodable bytes are replaced."""
    return read_input(path, stdin).decode("utf-8", errors="replace")


__all__ = ["triage", "read_paste", "exit_code", "read_text", "NOT_IN_PASTE"]
