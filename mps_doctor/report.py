"""Run the checks on the facts and build the report: results, verdict, exit code, and its JSON form."""

import datetime
import json
import traceback
from dataclasses import dataclass, replace
from typing import Any, Dict, Optional, Tuple

from mps_doctor import __version__, exit_codes
from mps_doctor.checking.context import Context
from mps_doctor.checking.model import (
    NEEDS_EARLIER_LAYER,
    NEEDS_REMEDY,
    STOPPING,
    UNJUDGED,
    CheckAgain,
    CheckResult,
    Options,
    Outcome,
    Remedy,
    Status,
    note,
)
from mps_doctor.checking.registry import REGISTRY, advisories, device_work_checks, layers_for, policy_checks
from mps_doctor.devices import DEVICE_CHOICES, DEVICES, HOSTED_SKIP, hosted_cpu_fallback, resolve_device
from mps_doctor.env_summary import environment_summary
from mps_doctor.environment import relevant_env
from mps_doctor.errors import ReportFormatError
from mps_doctor.facts import Facts, from_jsonable, to_jsonable
from mps_doctor.inputs import REPORT_FORMAT
from mps_doctor.policy import policy_to_dict
from mps_doctor.versions import load_releases
from mps_doctor.words import shorten

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Verdict:
    """The answer: ready or not, the root cause (first failing layer), and the one-line summary."""

    ready: bool
    state: str  # "ready" | "not-ready" | "timed-out" | "doctor-failed"
    root_cause: Optional[str]
    summary: str
    counts: Dict[str, int]
    suspected: bool = False  # triage: the root cause is suspected, the paste lacks the fact that decides it
    known_error: Optional[str] = None  # triage: the catalogue message that explains the root cause, if one does


@dataclass(frozen=True)
class Report:
    """Facts, options, results and verdict of one run."""

    facts: Facts
    options: Options
    results: Tuple[CheckResult, ...]
    verdict: Verdict
    tool_version: str = __version__
    created: str = ""
    source: Optional[Dict[str, Any]] = None

    def exit_code(self) -> int:
        """The verdict's code: 0 ready, 1 not ready or timed out (an unaccepted warning too under --strict or a
        strict policy: make_verdict), 3 a check crashed. `verdict.ready` is True exactly when this is 0."""
        if self.verdict.state == "doctor-failed":
            return exit_codes.DOCTOR_FAILED
        return exit_codes.READY if self.verdict.ready else exit_codes.NOT_READY

    def result(self, check_id: str) -> Optional[CheckResult]:
        """The result of CHECK_ID, or None when it did not run."""
        return next((r for r in self.results if r.id == check_id), None)


def guarded(spec, ctx: Context) -> Outcome:
    """Run one check; an exception becomes an ERROR outcome carrying the traceback (never a doctor crash)."""
    try:
        outcome = spec.fn(ctx)
    except Exception as exc:  # crash containment: one broken check never breaks the doctor
        return Outcome(Status.ERROR, "the check itself failed: %s: %s" % (type(exc).__name__, exc),
                       (traceback.format_exc(),))
    if outcome.status in NEEDS_REMEDY and outcome.remedy is None:
        return Outcome(Status.ERROR, "the check returned %s without a remedy" % outcome.status.value)
    return outcome


NOT_SELECTED = "skipped: not selected (--select)"


def selected(check_id: str, options: Options) -> bool:
    """Whether --select leaves CHECK_ID in (no --select: every check)."""
    return not options.select or check_id in options.select


def filtered(check_id: str, options: Options) -> Optional[Outcome]:
    """A skip outcome when --select leaves CHECK_ID out or the policy (or --skip) skips it."""
    if not selected(check_id, options):
        return Outcome(Status.SKIP, NOT_SELECTED)
    reason = options.policy.reason_to_skip(check_id)
    if reason:
        return Outcome(Status.SKIP, "skipped by policy: %s" % reason)
    return None


def result_of(spec, number: Optional[int], outcome: Outcome, options: Options) -> CheckResult:
    """A CheckResult, with the policy's acceptance attached to a warning."""
    accepted = options.policy.reason_to_accept(spec.id) if outcome.status == Status.WARN else None
    return CheckResult(spec.id, spec.title, number, outcome.status, outcome.summary, outcome.details,
                       outcome.remedy, outcome.rule, accepted)


def run_checks(facts: Facts, options: Options) -> Report:
    """The report of the checks on FACTS: their results (check_results) and the verdict on them."""
    options, results, root = check_results(facts, options)
    return Report(facts, options, results, make_verdict(results, options.device, root, options), created=created_now())


def created_now() -> str:
    """The time a report is made, as its "created" field: UTC, to the second, ISO 8601."""
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def check_results(facts: Facts, options: Options,
                  evaluate=guarded) -> Tuple[Options, Tuple[CheckResult, ...], Optional[CheckResult]]:
    """(OPTIONS with the device resolved, the results, the root cause's result or None): the layers for the device in
    order, skipped after the first failure, then the advisories and policy checks. EVALUATE(spec, ctx) runs one check
    (triage passes one that knows which facts the pasted text held, and judges the results itself)."""
    releases = load_releases()
    device = resolve_device(options, facts)
    options = replace(options, device=device)
    ctx = Context(facts, options, releases)
    layers = layers_for(device, facts.host.system)
    hosted_cpu = hosted_cpu_fallback(device, options.requested_device, facts.host)
    if hosted_cpu:
        # The MPS layers are shown, those that do not apply to the CPU skipped with the reason.
        layers = layers_for("mps", facts.host.system)
    # The layers that run work on the device, that this run includes (--quick's smoke step skips itself), and that the
    # policy or --skip skips: the first of them fails, and the later layers are skipped after it.
    refused = tuple(i for i in layers if i in device_work_checks() and selected(i, options) and options.policy.skipped_by(i)
                    and evaluate(REGISTRY[i], ctx).status != Status.SKIP)
    results = []
    left_out = []
    root: Optional[CheckResult] = None
    for number, check_id in enumerate(layers, start=1):
        spec = REGISTRY[check_id]
        if hosted_cpu and not spec.runs_on("cpu", facts.host.system):
            outcome = Outcome(Status.SKIP, HOSTED_SKIP)
        elif root is not None:
            outcome = Outcome(Status.SKIP, "skipped: %s %s" % (root.id, "timed out" if root.status == Status.TIMEOUT
                                                                 else "failed"))
        else:
            outcome = filtered(check_id, options)
            if outcome is None:
                outcome = evaluate(spec, ctx)
            elif check_id in refused:
                outcome = device_work_skipped(spec, refused, options, device)
            else:
                left_out.append(check_id)
            if outcome.status == Status.ERROR and left_out:
                outcome = needs_left_out(check_id, left_out, options, outcome)
        result = result_of(spec, number, outcome, options)
        if root is None and result.status in STOPPING:
            root = result
        results.append(result)
    for check_id in advisories() + policy_checks(options):
        spec = REGISTRY[check_id]
        outcome = filtered(check_id, options) or evaluate(spec, ctx)
        if outcome.status == Status.FAIL and spec.advisory:
            outcome = replace(outcome, status=Status.WARN)
        results.append(result_of(spec, None, outcome, options))
    return options, tuple(results), root


def needs_left_out(check_id: str, left_out, options: Options, crashed: Outcome) -> Outcome:
    """A warning for a layer that could not be judged because earlier layers it relies on were left out (by --select
    or the policy): its facts may not hold, and a crash there is not the doctor's failure."""
    return Outcome(Status.WARN, "not checked: earlier layers it relies on did not run (%s)" % ", ".join(left_out),
                   crashed.details,
                   Remedy("%s assumes that the layers before it passed; --select or the policy left them out." % check_id,
                          "Its facts (for example an importable torch) are not known to hold.",
                          (CheckAgain(),), key=NEEDS_EARLIER_LAYER))


def device_work_skipped(spec, refused: Tuple[str, ...], options: Options, device: str) -> Outcome:
    """The failure of SPEC, the first of the layers REFUSED: they run work on DEVICE that this run includes, and the
    policy or --skip skips them. Only that work shows that the device trains, so a skip list never turns the verdict
    ready without it; the remedy removes every such skip."""
    policy = options.policy
    problem = " ".join("%s (%s) is skipped by %s." % (i, REGISTRY[i].title, skipped_why(i, policy)) for i in refused)
    undo = []
    by_file = [i for i in refused if policy.skipped_by(i) != "--skip"]
    if by_file:
        undo.append(note("remove the skip entr%s for %s from [tool.mps-doctor] in %s" % (
            "y" if len(by_file) == 1 else "ies", ", ".join(by_file), policy.source or "the policy file")))
    by_command_line = [i for i in refused if policy.skipped_by(i) == "--skip"]
    if by_command_line:
        undo.append(note("run again without %s" % " ".join("--skip " + i for i in by_command_line)))
    return Outcome(Status.FAIL, "%s is skipped by %s, but ready needs the work it runs on %s" % (
        spec.id, skipped_why(spec.id, policy), device),
        remedy=Remedy(problem, "Only the layers that run work on the device show that it computes and trains; a skip list "
                      "(the team policy's or --skip) cannot stand in for them, so without them the verdict is not ready.",
                      tuple(undo) + (CheckAgain(),), key="device-work-skipped", title="Stop skipping the work on the device"))


def skipped_why(check_id: str, policy) -> str:
    """Who skips CHECK_ID, with the policy's reason: "the policy in FILE (REASON)" or "--skip"."""
    who = policy.skipped_by(check_id)
    return who if who == "--skip" else "%s (%s)" % (who, policy.reason_to_skip(check_id))


def make_verdict(results, device: str, root: Optional[CheckResult], options: Optional[Options] = None) -> Verdict:
    """The verdict and its one-line summary from the results. Ready needs the work on the device: a layer that runs it
    passed (or warned about work it ran), and none could not judge it (`device_unproven`). Under --strict (or a strict
    policy) an unaccepted warning makes it not ready, so that `ready` always means exit code 0. A layer that ran out of
    --timeout, with no failure anywhere, makes it timed-out: not shown ready, and nothing shown broken. The summary
    names the checks that the policy and --skip skip."""
    counts = {s.value: sum(1 for r in results if r.status == s) for s in Status}
    counts["accepted"] = sum(1 for r in results if r.accepted)
    tally = "%d failure%s, %d warning%s%s, %d passed" % (
        counts["fail"], "" if counts["fail"] == 1 else "s", counts["warn"], "" if counts["warn"] == 1 else "s",
        " (%d accepted)" % counts["accepted"] if counts["accepted"] else "", counts["pass"])
    if counts["timeout"]:
        tally += ", %d timed out" % counts["timeout"]
    if counts["error"]:
        tally += ", %d check error%s" % (counts["error"], "" if counts["error"] == 1 else "s")
    if options is not None:
        tally += skips_named(results, options)
    if counts["fail"]:
        first = root if root is not None and root.status == Status.FAIL else next(r for r in results if r.status == Status.FAIL)
        return Verdict(False, "not-ready", first.id, "not ready: %s; %s" % (first.summary, tally), counts)
    if counts["timeout"]:
        first = next(r for r in results if r.status == Status.TIMEOUT)
        return Verdict(False, "timed-out", first.id, "timed out, so not shown ready: %s; %s" % (first.summary, tally),
                       counts)
    if counts["error"]:
        first = next(r for r in results if r.status == Status.ERROR)
        return Verdict(False, "doctor-failed", first.id, "incomplete: %s could not be checked; %s" % (first.id, tally), counts)
    unproven = device_unproven(results, device, options)
    if unproven is not None:
        root_id, why = unproven
        return Verdict(False, "not-ready", root_id, "not ready: %s; %s" % (why, tally), counts)
    unaccepted = [r for r in results if r.status == Status.WARN and not r.accepted]
    if options is not None and options.strict_warnings and unaccepted:
        why = "--strict" if options.strict else "strict = true in the policy"
        return Verdict(False, "not-ready", unaccepted[0].id, "not ready (%s, warnings count): %s; %s" % (
            why, unaccepted[0].summary, tally), counts)
    if options is not None and options.select:
        return Verdict(True, "ready", None, "the selected checks pass on %s (%s), not a full verdict; %s" % (
            device, ", ".join(options.select), tally), counts)
    return Verdict(True, "ready", None, "ready to train on %s; %s" % (device, tally), counts)


def device_unproven(results, device: str, options: Optional[Options]) -> Optional[Tuple[Optional[str], str]]:
    """(root cause, why) when no layer showed the work on DEVICE: one that runs it warns that it could not judge it,
    or none ran it (--select left them all out); else None. A layer that the policy or --skip skipped already failed
    (`device_work_skipped`); one that this run leaves out by itself (--quick's smoke step) needs no proof."""
    work = [r for r in results if r.layer is not None and r.id in device_work_checks()]
    blind = next((r for r in work if r.status == Status.WARN and r.remedy is not None and r.remedy.key in UNJUDGED), None)
    if blind is not None:
        return blind.id, "%s could not judge the work on %s: %s" % (blind.id, device, blind.summary)
    if any(r.status in (Status.PASS, Status.WARN) for r in work):
        return None
    ids = ", ".join(r.id for r in work)
    if options is not None and options.select:
        return None, "--select %s ran none of the layers that run work on %s (%s), so it shows nothing about %s" % (
            ", ".join(options.select), device, ids, device)
    return None, "none of the layers that run work on %s (%s) ran" % (device, ids)


def skips_named(results, options: Options) -> str:
    """"; skipped by the policy in FILE: ids; skipped by --skip: ids" for the checks of RESULTS that the policy or
    --skip skips (and --select did not already leave out), else ""."""
    by: Dict[str, list] = {}
    for result in results:
        who = options.policy.skipped_by(result.id)
        if who is not None and selected(result.id, options):
            by.setdefault(who, []).append(result.id)
    return "".join("; skipped by %s: %s" % (who, ", ".join(ids)) for who, ids in by.items())


def result_to_dict(result: CheckResult, commands: Tuple[str, ...]) -> Dict[str, Any]:
    """One result for the JSON report; its remedy with COMMANDS, the commands `fix` prints for it."""
    remedy = result.remedy
    document = dict(to_jsonable(result), status=result.status.value)
    if remedy is not None:
        document["remedy"] = {"problem": remedy.problem, "why": remedy.why, "title": remedy.title or remedy.problem,
                              "commands": list(commands), "link": remedy.link, "key": remedy.key}
    return document


def verdict_to_dict(report: Report) -> Dict[str, Any]:
    """The verdict's JSON; `suspected` and `known_error` only in a triage report, where a root cause can be suspected
    or explained by a pasted message."""
    verdict = to_jsonable(report.verdict)
    if not (report.source or {}).get("kind") == "pasted":
        verdict.pop("suspected", None)
        verdict.pop("known_error", None)
    return verdict


def report_to_dict(report: Report, commands: Optional[Dict[str, Tuple[str, ...]]] = None) -> Dict[str, Any]:
    """The versioned JSON document (docs/report-format.md); COMMANDS gives each result's remedy commands (spelled by
    render/, from the fix plan)."""
    commands = commands or {}
    return {
        "format": REPORT_FORMAT,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "mps-doctor", "version": report.tool_version},
        "created": report.created,
        "options": {"device": report.options.device, "requested_device": report.options.requested_device,
                    "quick": report.options.quick, "select": list(report.options.select),
                    "required": list(report.options.required), "strict": report.options.strict,
                    "policy": policy_to_dict(report.options.policy)},
        "verdict": verdict_to_dict(report),
        "results": [
            result_to_dict(r, commands.get(r.id, ())) for r in report.results
        ],
        "environment": {label: value for label, value in environment_summary(report.facts)},
        "facts": to_jsonable(report.facts),
        **({"source": report.source} if report.source is not None else {}),
    }


def facts_from_report(doc: Any) -> Tuple[Facts, Dict[str, Any]]:
    """(facts, options) of a saved report; raise ReportFormatError for anything that is not one we can read."""
    if not isinstance(doc, dict) or doc.get("format") != REPORT_FORMAT:
        raise ReportFormatError("not an mps-doctor report (missing \"format\": \"%s\")" % REPORT_FORMAT)
    version = doc.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ReportFormatError("report has no integer schema_version")
    if version > SCHEMA_VERSION:
        raise ReportFormatError("report schema_version %d is newer than this mps-doctor understands (%d); upgrade "
                                "mps-doctor" % (version, SCHEMA_VERSION))
    if version < 1:
        raise ReportFormatError("report schema_version %d is not supported" % version)
    if isinstance(doc.get("source"), dict) and doc["source"].get("kind") == "pasted":
        raise ReportFormatError("a triage report (facts read from pasted text): give the pasted text to "
                                "`mps-doctor fix --from` or `mps-doctor triage` instead")
    facts = from_jsonable(Facts, doc.get("facts"), "facts")
    facts = replace(facts, host=replace(facts.host, env=relevant_env(facts.host.env)))
    return facts, validated_options(doc.get("options"))


def validated_options(options: Any) -> Dict[str, Any]:
    """A report's options, checked like a command line: a bad value is a ReportFormatError naming its JSON path."""
    from mps_doctor.checking.registry import REGISTRY, all_checks
    from mps_doctor.policy import PolicyError, policy_from_dict

    if not isinstance(options, dict):
        raise ReportFormatError("report has no options object")
    all_checks()
    clean: Dict[str, Any] = {}
    for key in ("device", "requested_device"):
        if options.get(key) is not None:
            if options[key] not in DEVICE_CHOICES:
                raise ReportFormatError("options.%s: %s is not one of %s" % (key, json_repr(options[key]),
                                                                              ", ".join(DEVICE_CHOICES)))
            clean[key] = options[key]
    for key in ("quick", "strict"):
        if options.get(key) is not None:
            if not isinstance(options[key], bool):
                raise ReportFormatError("options.%s: expected true or false, not %s" % (key, json_repr(options[key])))
            clean[key] = options[key]
    for key, allowed, what in (("select", REGISTRY, "a check id (see mps-doctor list-checks)"),
                               ("required", DEVICES, "one of " + ", ".join(DEVICES))):
        value = options.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise ReportFormatError("options.%s: expected a list, not %s" % (key, json_repr(value)))
        for index, item in enumerate(value):
            if not isinstance(item, str) or item not in allowed:
                raise ReportFormatError("options.%s[%d]: %s is not %s" % (key, index, json_repr(item), what))
        clean[key] = tuple(value)
    try:
        clean["policy"] = policy_from_dict(options.get("policy"))
    except PolicyError as exc:
        raise ReportFormatError("options.policy: %s" % exc)
    return clean


def json_repr(value: Any) -> str:
    """VALUE as JSON, shortened, for an error message."""
    text = json.dumps(value)
    return shorten(text, 60)


