"""Triage: from pasted text to the same verdict as `check`, with every fact's line numbers.

One-way, like `check`: text -> lines -> findings and evidence -> Facts -> the same checks (with an evaluator that
says "not in the pasted text" where the paste cannot decide a layer) -> a Report whose source is "pasted".
"""

from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mps_doctor import exit_codes
from mps_doctor.checking.context import Context
from mps_doctor.checking.intents import actions_of
from mps_doctor.checking.model import CheckResult, Options, Outcome, Remedy, Status
from mps_doctor.checking.registry import REGISTRY, implicated_by, layers_for
from mps_doctor.errors import UsageError
from mps_doctor.fact_catalogue import label
from mps_doctor.inputs import embedded_report, read_input
from mps_doctor.known_errors import CUDA_UNAVAILABLE_REPORTED, Intent, KnownError, Match, by_id
from mps_doctor.report import Report, Verdict, check_results, created_now, guarded
from mps_doctor.secrets import home_user_names, scrub
from mps_doctor.triage.device import CPU_CHOSEN, by_default
from mps_doctor.triage.model import Evidence
from mps_doctor.triage.parsers.install import X86_64_PYTHON_ON_MAC
from mps_doctor.triage.paste import (
    LOADING_FAILURE,
    UNKNOWN_SYSTEM,
    Paste,
    build_facts,
    device_choice,
    first_sentence,
    python_of,
    read_paste,
    stripped_line,
    unexplained_error,
    value,
)
from mps_doctor.triage.precedents import MIN_CUES, Precedents, issue_words, load, suspicion, tells_trouble
from mps_doctor.triage.runtime import HOSTED_SOURCE, availability_layers
from mps_doctor.triage.suspected import suspect, symptom_alone
from mps_doctor.triage.text import Line, clean

NOT_IN_PASTE = "not in the pasted text"


class Evaluator:
    """Runs one check on a paste's facts: a layer whose facts the paste lacks says so instead of passing, and
    evidence (a message in the paste) fails the first layer it implicates that the facts do not clear. It is also the
    view of the paste that a check's `pasted` rule reads (checking/pasted.py)."""

    def __init__(self, paste: Paste, layers: Sequence[str]):
        self.paste, self.layers = paste, tuple(layers)
        self.undecided: List[str] = []
        self.suspected: List[str] = []
        self.decided_by: Dict[str, Evidence] = {}
        self.judged: List[str] = []
        self._alone: Optional[bool] = None

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

    def shown_by_a_session(self, spec) -> bool:
        """Whether a session the paste shows (torch's own output: `import torch; print(torch.__version__)`) states a fact
        SPEC passes on: a message elsewhere in the paste does not make that layer fail, it is a known message."""
        return any(fact.startswith("torch.") and self.parser(fact) == "session"
                   for requirement in spec.facts for fact in requirement.split("|"))

    def passed_on_stated_facts(self, spec, evidence: Evidence) -> bool:
        """Whether SPEC, which passes on the facts the paste states, yields EVIDENCE to a later layer that other pasted
        evidence implicates: pip's list ending at the last Intel-Mac torch on a Mac whose Apple chip the paste names is
        an x86_64 Python under Rosetta, not an Intel Mac (issue 20 item 5: a fact the paste states is never
        contradicted)."""
        later = self.layers[self.layers.index(spec.id) + 1:] if spec.id in self.layers else ()
        return all(self.has(fact) for fact in spec.facts) and \
            any(other is not evidence and set(implicated(other)) & set(later) for other in self.paste.evidence)

    def last_candidate(self, evidence: Evidence, check_id: str) -> bool:
        candidates = [c for c in implicated(evidence) if c in self.layers] or list(implicated(evidence))
        return candidates[-1] == check_id

    def __call__(self, spec, ctx: Context) -> Outcome:
        evidence = self.evidence_for(spec.id)
        if spec.advisory:
            # A pasted message an advisory registers for decides it (torchvision built for another torch); anything
            # else an advisory reads needs the machine itself, unless it declares facts that the paste states.
            if evidence is not None:
                judged = guarded(spec, ctx) if spec.facts and not self.missing(spec, ctx) else None
                if judged is not None and judged.status in (Status.WARN, Status.FAIL):
                    # The pasted facts say which versions to pin (torchvision 0.11.2 from the cu113 index for torch
                    # 1.10.1+cu113): their outcome speaks, the message decided it.
                    self.decided_by[spec.id] = evidence
                    return with_lines(judged, spec.id, self.paste)
                return self.failed_by(evidence, spec.id)
            if spec.facts and not self.missing(spec, ctx):
                # An advisory whose facts a paste can state (the versions of torch and its companions) is judged on them.
                self.judged.append(spec.id)
                return with_lines(guarded(spec, ctx), spec.id, self.paste)
            return Outcome(Status.SKIP, "%s: advisories need the machine itself" % NOT_IN_PASTE)
        missing = self.missing(spec, ctx)
        if not missing:
            judged = guarded(spec, ctx)
            outcome = spec.pasted(judged, ctx, self) if spec.pasted and judged.status != Status.ERROR else judged
            if outcome.status == Status.SKIP and judged.status != Status.SKIP:
                # What the paste's facts leave open (a GPU named, not a driver that loads), a catalogue message decides.
                return self.failed_by(evidence, spec.id) if self.from_catalogue(evidence) else outcome
            if outcome.status == Status.WARN and evidence is None:
                # A layer that only warns for want of its decisive fact (a driver's CUDA that another pasted message
                # stood in for) takes the suspicion for that fact.
                suspicion = suspect(tuple(r.split("|")[0] for r in spec.facts), self.paste.known, self.alone())
                if suspicion is not None:
                    self.suspected.append(spec.id)
                    return suspicion
            if outcome.status != Status.ERROR:
                if evidence is not None and (evidence.overrides or outcome.status == Status.FAIL and spec.facts == SYSTEM_ONLY):
                    # A layer judged by the system alone says less than a pasted message that fails it too: what the
                    # user ran there (Docker's `--gpus` on a Mac), and the fix for it.
                    return self.failed_by(evidence, spec.id)
                if outcome.status == Status.FAIL or evidence is None or not self.last_candidate(evidence, spec.id) or \
                        outcome.status == Status.PASS and (self.shown_by_a_session(spec) or self.passed_on_stated_facts(spec, evidence)):
                    return with_lines(outcome, spec.id, self.paste)
                return self.failed_by(evidence, spec.id)
        if evidence is not None:
            return self.failed_by(evidence, spec.id)
        suspicion = suspect(spec.facts, self.paste.known, self.alone())
        if suspicion is not None:
            self.suspected.append(spec.id)
            return suspicion
        self.undecided.append(spec.id)
        return Outcome(Status.SKIP, "%s: %s" % (NOT_IN_PASTE, ", ".join(missing) or "facts this check needs"))

    def from_catalogue(self, evidence: Optional[Evidence]) -> bool:
        """Whether EVIDENCE is a message of the catalogue the paste holds, not a parser's reading."""
        return evidence is not None and any(match.error.id == evidence.source for match in self.paste.matches)

    def alone(self) -> bool:
        """Whether the paste's false is_available() stands alone: no catalogue message, no parser's evidence, and words
        that leave the build the first thing to read (suspected.symptom_alone); read once per paste."""
        if self._alone is None:
            self._alone = not self.paste.evidence and not self.paste.matches and \
                symptom_alone(self.paste.lines, self.paste.known.get("torch.cuda_available"))
        return self._alone

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
        if evidence is not None and evidence.source in pasted:
            return evidence.source
        # A parser's reading of a message decided the layer (pip's version listing): the catalogue entry of that layer.
        return next((match.error.id for match in self.paste.matches if match.error.layer == root_id), None)


# The facts of a layer that the system alone decides (os.macos, os.linux).
SYSTEM_ONLY = ("host.system",)


def implicated(evidence: Evidence) -> Tuple[str, ...]:
    """The layers EVIDENCE implicates: those registered for its kind of message, else its catalogue entry's layer."""
    return implicated_by(evidence.kind) if evidence.kind else evidence.checks




def actions_for(intents: Sequence[Intent], paste: Paste):
    """INTENTS (a catalogue entry's, a parser's evidence's) as actions for the pasted machine (checking/intents.py)."""
    return actions_of(intents, value(paste, "host.system"), python_of(paste),
                          tuple(value(paste, "interpreter.version") or ()))


def from_evidence(evidence: Evidence, paste: Paste) -> Outcome:
    """A failing outcome from a message in the paste."""
    return Outcome(Status.FAIL, evidence.summary, ("pasted line %d (%s)" % (evidence.line, evidence.source),),
                   Remedy(evidence.problem, evidence.why, actions_for(evidence.actions, paste), evidence.link,
                          key=evidence_key(evidence.source)))


def evidence_key(source: str) -> str:
    """The remedy key of an outcome that pasted evidence from SOURCE decided."""
    return "pasted-" + source


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
# How much of a text that nothing recognizes is read again for its device, under a title the memory answers: the
# corpus's unrecognized pastes are all shorter.
UNREAD_HEAD = 16 * 1024


def triage(raw: str, device: str = "auto", catalogue: Optional[Tuple[KnownError, ...]] = None,
           title: Optional[str] = None, precedents: Optional[Precedents] = None) -> Report:
    """The report for pasted text RAW; raise UsageError when it holds nothing recognizable. TITLE, the issue's title,
    is read as a maintainer reads it: only when RAW names no cause, or blames an x86_64 Python on a Mac whose chip it
    does not name and the title names it (chip_left_open), a hosted runtime without a GPU that the title denies
    (runtime_left_open), or only the symptom that CUDA is unavailable (symptom_only), as line 1 above RAW (its lines then count from 3;
    `source.title` says so). Where neither names a cause, an issue (a TITLE given) that tells trouble gets the cause that
    confirmed threads worded like it had, as a suspicion no stated fact rules out (triage/precedents.py; PRECEDENTS: the
    shipped model by default). Secrets are replaced before anything is read, so that no fact, message or output can hold
    one."""
    heading = " ".join((title or "").split())[:TITLE_LIMIT]
    report = reasoned(raw, device, catalogue, heading)
    if not heading or report is not None and (report.verdict.root_cause or (report.source or {}).get("kind") != "pasted"):
        return report
    memory = load() if precedents is None else precedents
    text_words = issue_words(raw, heading)
    suspected = None
    if memory.cues(text_words) >= MIN_CUES and tells_trouble(raw, heading):
        # A text that nothing recognizes gives no fact, but its words still say which device it is about: its head is
        # read once more with the title for that (UNREAD_HEAD), and all its lines are counted below the title's.
        base = report or unread_text_report(heading, raw, triage_text(heading + "\n\n" + raw[:UNREAD_HEAD], device, catalogue,
                                                                      recognized_only=False))
        # Another device's reading is for a recognized paste short enough to be read whole again, that tells trouble in
        # its own words, with the device left to triage (review12 H3, M1, M2).
        movable = report is not None and device == "auto" and len(raw) <= UNREAD_HEAD and tells_trouble(raw)
        suspected = suspicion(memory, text_words, base,
                              lambda other: accelerator_report(heading, raw, other, catalogue) if movable else None)
    if suspected is None:
        if report is None:
            raise UsageError("nothing recognizable in the pasted text or its title")
        return report
    return suspected


def accelerator_report(heading: str, raw: str, device: str, catalogue: Optional[Tuple[KnownError, ...]]) -> Optional[Report]:
    """The report of HEADING above RAW read on DEVICE, an accelerator; None unless the two leave the device open
    (device.by_default) or point at DEVICE, or when they choose the CPU (device.CPU_CHOSEN) or state a system DEVICE
    does not run on (review12 H2, M1)."""
    text = heading + "\n\n" + raw
    paste = read_paste(scrub(text), catalogue)
    choice, system = device_choice(paste), value(paste, "host.system")
    if CPU_CHOSEN.search(text) or not (by_default(choice) or choice.device == device) or \
            system is not None and (device == "mps") != (system == "Darwin"):
        return None
    other = titled_report(heading, triage_text(text, device, catalogue, recognized_only=False))
    return replace(other, source=dict(other.source, device_from=choice.reason))


def reasoned(raw: str, device: str, catalogue: Optional[Tuple[KnownError, ...]], heading: str) -> Optional[Report]:
    """The report that RAW and the issue's HEADING decide (triage); None when neither is recognizable but HEADING is
    given, and UsageError when RAW is not and no HEADING is."""
    try:
        report = triage_text(raw, device, catalogue)
    except UsageError:
        if not heading:
            raise
        report = None
    chip_open, runtime_open, symptom = (report is not None and chip_left_open(report),
                                        report is not None and runtime_left_open(report),
                                        report is not None and symptom_only(report))
    if not heading or report is not None and (report.verdict.root_cause and not (chip_open or runtime_open or symptom) or
                                              (report.source or {}).get("kind") != "pasted"):
        return report
    try:
        titled = triage_text(heading + "\n\n" + raw, device, catalogue)
    except UsageError:
        titled = None
    # A suspicion made without the system yields to a title that names one, even where that reading finds no cause: a
    # Mac's "cuda not available" is no CPU build (suspected.cpu_build).
    placed = symptom and report.verdict.suspected and titled is not None and \
        titled.facts.host.system != UNKNOWN_SYSTEM and (titled.source or {}).get("kind") == "pasted"
    if not placed and (titled is None or titled.verdict.root_cause is None or (titled.source or {}).get("kind") != "pasted" or \
            chip_open and titled.facts.host.hw_arm64 is None or runtime_open and runtime_left_open(titled) or \
            symptom and (titled.verdict.root_cause, titled.facts.host.system) == (report.verdict.root_cause,
                                                                                 report.facts.host.system)):
        return report
    return titled_report(heading, titled)


def unread_text_report(heading: str, raw: str, titled: Report) -> Report:
    """TITLED, the report of HEADING alone, standing for HEADING above RAW, a text nothing recognizes."""
    report = titled_report(heading, titled)
    return replace(report, source=dict(report.source, lines=2 + len(raw.splitlines())))


def titled_report(heading: str, titled: Report) -> Report:
    """TITLED, the report of HEADING above a text, with the title's line in its source."""
    cleaned = clean(scrub(heading))
    text = stripped_line(scrub(cleaned[0].text)) if len(cleaned) else ""
    return replace(titled, source=dict(titled.source, title={"line": 1, "text": text}))


def symptom_only(report: Report) -> bool:
    """Whether REPORT's cause is only the symptom (torch.cuda.is_available() is False, no message saying why, and no
    suspicion but one made without the system), which a title ("Windows installation command dosent work", h2ogpt#890;
    "... on Ubuntu") may turn into a reason."""
    if report.verdict.suspected:
        return report.facts.host.system == UNKNOWN_SYSTEM and report.verdict.known_error is None
    return report.verdict.root_cause in availability_layers() and (
        report.verdict.known_error is None or reported_unavailable(report.verdict.known_error))


def reported_unavailable(error_id: str) -> bool:
    """Whether catalogue entry ERROR_ID is only a program saying that torch.cuda.is_available() is False (Triton's "0
    active drivers", Unsloth's "No NVIDIA GPU found?"): the symptom in other words, not a reason."""
    try:
        return by_id(error_id).kind == CUDA_UNAVAILABLE_REPORTED
    except KeyError:
        return False


def runtime_left_open(report: Report) -> bool:
    """Whether REPORT blames a hosted notebook runtime started without a GPU, which the paste does not show and a title
    ("No CUDA GPUs are avialable (even when GPU runtime is selected)", DALLE-pytorch#111) may deny."""
    root = next((r for r in report.results if r.id == report.verdict.root_cause), None)
    return root is not None and root.remedy is not None and root.remedy.key == evidence_key(HOSTED_SOURCE)


def chip_left_open(report: Report) -> bool:
    """Whether REPORT blames an x86_64 Python on a Mac whose chip the paste does not name: an Intel Mac or Rosetta on
    Apple Silicon, which a title ("Unable to install Intel MacOS using uv", docling#1351) may settle."""
    return report.verdict.root_cause in implicated_by(X86_64_PYTHON_ON_MAC) and report.facts.host.hw_arm64 is None


def triage_text(raw: str, device: str = "auto", catalogue: Optional[Tuple[KnownError, ...]] = None,
                recognized_only: bool = True) -> Report:
    """The report for pasted text RAW alone (triage); UsageError when RECOGNIZED_ONLY and nothing in it is."""
    embedded = embedded_report(raw)
    if embedded is not None:
        return replayed_report(embedded)
    paste = read_paste(scrub(raw), catalogue)
    if recognized_only and not paste.recognized:
        raise UsageError("nothing recognizable in the pasted text (no collect_env, environment dump, install log, "
                         "platform string or known error message)")
    choice = device_choice(paste) if device == "auto" else None
    device = choice.device if choice is not None else device
    facts = build_facts(paste, device)
    layers = layers_for(device, facts.host.system)
    evaluator = Evaluator(paste, layers)
    options, checked, _ = check_results(facts, Options(device=device, requested_device=device), evaluate=evaluator)
    results = list(checked)
    root = next((r for r in results if r.layer is not None and r.status == Status.FAIL), None) or \
        next((r for r in results if r.id in evaluator.decided_by and r.status in (Status.FAIL, Status.WARN)), None)
    failure = unexplained_error(paste) if root is None and not paste.matches else None
    if failure is not None and LOADING_FAILURE.search(failure.text):
        # With no layer failing and no known message, an advisory the pasted facts fail (companions from another
        # release) is the likeliest cause of an error in loading code; of any other error it is only a warning.
        root = next((r for r in results if r.id in evaluator.judged and r.status in (Status.FAIL, Status.WARN)), None)
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


__all__ = ["triage", "exit_code", "read_text", "NOT_IN_PASTE"]
