"""The `model` report: the results, the verdict (ready / runs with fallbacks / will fail), and its versioned JSON
document (docs/report-format.md, data/model.schema.json)."""

import datetime
from dataclasses import dataclass, replace
from typing import Any, Dict, Optional, Tuple

from mps_doctor import __version__, exit_codes
from mps_doctor.checking.context import Context
from mps_doctor.checking.model import CheckResult, Options, Outcome, Status
from mps_doctor.facts import Facts, to_jsonable
from mps_doctor.model import dtypes as dtype_rules
from mps_doctor.model.facts import ModelFacts
from mps_doctor.model.measured import memory_outcome, parity_outcome, speed_outcome
from mps_doctor.model.predict import KernelTable, Prediction, default_table, predict
from mps_doctor.model.results import IDS, TITLES, dtypes_outcome, load_outcome, operators_outcome
from mps_doctor.model.run import FALLBACK, ModelRequest, fallback_enabled
from mps_doctor.report import Report, Verdict
from mps_doctor.versions import load_releases, minor_of

FORMAT = "mps-doctor-model"
SCHEMA_VERSION = 1
STATES = ("ready", "runs-with-fallbacks", "will-fail", "not-judged", "target-error", "timed-out", "doctor-failed")


@dataclass(frozen=True)
class ModelVerdict:
    """The answer: STATE (STATES), on what it rests (`observed` on the device, or `predicted` from the trace and the
    kernel table), the first result that fails, and one line."""

    state: str
    basis: str
    root_cause: Optional[str]
    summary: str
    counts: Dict[str, int]

    @property
    def ready(self) -> bool:
        return self.state == "ready"


@dataclass(frozen=True)
class ModelReport:
    """Everything `model` prints."""

    request: ModelRequest
    facts: Facts
    model: ModelFacts
    release: Optional[str]  # the torch the verdict is about: --torch, else the installed version
    prediction: Optional[Prediction]
    findings: Tuple[dtype_rules.DtypeFinding, ...]
    results: Tuple[CheckResult, ...]
    verdict: ModelVerdict
    created: str = ""

    def exit_code(self) -> int:
        """0 ready (observed, or predicted: every operator and dtype has a kernel), 1 anything else, 3 a result of
        the doctor itself crashed."""
        if self.verdict.state == "doctor-failed":
            return exit_codes.DOCTOR_FAILED
        return exit_codes.READY if self.verdict.ready else exit_codes.NOT_READY

    def plan_report(self) -> Report:
        """These results as a check Report, for the fix plan (remedies/plan.py) that spells their commands."""
        verdict = Verdict(self.verdict.ready, "ready" if self.verdict.ready else "not-ready", self.verdict.root_cause,
                          self.verdict.summary, self.verdict.counts)
        return Report(facts=self.facts, options=options_for(self.request, self.model.device), results=self.results,
                      verdict=verdict, created=self.created)


def options_for(request: ModelRequest, device: str) -> Options:
    return Options(device=device, requested_device=request.device)


def observed_on_device(mf: ModelFacts) -> bool:
    """Whether the step ran on the device (on the CPU, the traced step is that run)."""
    if mf.device == "cpu":
        return mf.trace is not None and mf.trace.available and mf.trace.error is None
    return mf.observed is not None and mf.observed.device == mf.device


def run_results(request: ModelRequest, facts: Facts, mf: ModelFacts, table: KernelTable):
    """(release judged, prediction, dtype findings, results) of a run."""
    releases = load_releases()
    ctx = Context(facts, options_for(request, mf.device), releases)
    installed = ctx.torch_version()
    release = request.torch or installed
    what_if = request.torch is not None and minor_of(request.torch) != minor_of(installed or "")
    ops = mf.trace.ops if mf.trace is not None else ()
    if not ops and mf.observed is not None and mf.observed.ops:
        ops = mf.observed.ops
    prediction = predict(ops, release, table) if ops else None
    here = observed_on_device(mf) and not what_if
    judged = minor_of(release) if release else None
    macos = ctx.macos() if ctx.is_mac else None
    if mf.device == "mps":
        findings = dtype_rules.mps_findings(ops, mf.loaded, judged, macos, releases)
    elif mf.device == "cuda":
        devices = ctx.torch.cuda_devices if ctx.torch is not None else ()
        tf32 = dict(mf.speed.tf32) if mf.speed is not None and mf.speed.tf32 else None
        findings = dtype_rules.cuda_findings(ops, mf.loaded, devices[0].capability if devices else None, tf32)
    else:
        findings = ()
    flag = fallback_enabled(facts.host.env.get(FALLBACK))
    batch = mf.loaded.batch if mf.loaded is not None else None
    outcomes = {
        "model.load": load_outcome(mf, request.target.text),
        "model.operators": operators_outcome(ctx, mf, prediction, release, here, flag),
        "model.dtypes": dtypes_outcome(mf, findings, here),
        "model.memory": memory_outcome(mf, here, batch),
        "model.speed": speed_outcome(mf, here),
        "model.parity": parity_outcome(mf, here),
    }
    results, root = [], None
    for number, check_id in enumerate(IDS, start=1):
        outcome = outcomes[check_id]
        if root is not None and outcome.status != Status.SKIP:
            outcome = Outcome(Status.SKIP, "skipped: %s %s" % (root, "timed out" if outcomes[root].status ==
                                                                Status.TIMEOUT else "failed"))
        if root is None and check_id == "model.load" and outcome.status in (Status.FAIL, Status.TIMEOUT):
            root = check_id
        if root is None and outcome.status == Status.TIMEOUT:
            root = check_id
        results.append(CheckResult(check_id, TITLES[check_id], number, outcome.status, outcome.summary,
                                   outcome.details, outcome.remedy, outcome.rule))
    return release, prediction, findings, tuple(results), here


def make_verdict(results: Tuple[CheckResult, ...], basis: str, device: str, release: Optional[str],
                 target: str) -> ModelVerdict:
    """The state and summary line of RESULTS."""
    counts = {s.value: sum(1 for r in results if r.status == s) for s in Status}
    first = next((r for r in results if r.status in (Status.FAIL, Status.TIMEOUT, Status.ERROR)), None)
    on = "on %s with torch %s (%s)" % (device, release or "?", basis)
    tally = "%d failures, %d warnings" % (counts["fail"], counts["warn"])
    if first is not None and first.status == Status.ERROR:
        return ModelVerdict("doctor-failed", basis, first.id, "a result of mps-doctor itself failed: %s" % first.id,
                            counts)
    if first is not None and first.status == Status.TIMEOUT:
        return ModelVerdict("timed-out", basis, first.id, "timed out: %s" % first.summary, counts)
    if first is not None and (first.id == "model.load" or first.remedy is not None and first.remedy.key == "model-target"):
        return ModelVerdict("target-error", basis, first.id, "the TARGET failed on its own: %s" % first.summary, counts)
    if first is not None:
        return ModelVerdict("will-fail", basis, first.id, "will fail %s: %s" % (on, first.summary), counts)
    operators = next(r for r in results if r.id == "model.operators")
    if operators.status == Status.SKIP:
        return ModelVerdict("not-judged", basis, None, "not judged %s: %s" % (on, operators.summary), counts)
    if operators.status == Status.WARN:
        return ModelVerdict("runs-with-fallbacks", basis, None, "runs with CPU fallbacks %s; %s" % (on, tally), counts)
    return ModelVerdict("ready", basis, None, "ready: %s trains %s; %s" % (target, on, tally), counts)


def build_report(request: ModelRequest, facts: Facts, mf: ModelFacts, table: Optional[KernelTable] = None) -> ModelReport:
    """The ModelReport of a run's facts (TABLE: the kernel table, default the shipped one)."""
    release, prediction, findings, results, here = run_results(request, facts, mf, table or default_table())
    verdict = make_verdict(results, "observed" if here else "predicted", mf.device, release, request.target.text)
    created = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return ModelReport(request=request, facts=facts, model=mf, release=release, prediction=prediction,
                       findings=findings, results=results, verdict=verdict, created=created)


def prediction_document(prediction: Optional[Prediction]) -> Optional[Dict[str, Any]]:
    if prediction is None:
        return None
    return {"release": prediction.release, "in_table": prediction.in_table, "missing": list(prediction.missing),
            "native_from": prediction.native_from, "operators": len(prediction.ops), "other": list(prediction.other),
            "releases": [{"release": row.release, "missing": list(row.missing)} for row in prediction.coverage],
            "first_native": dict(prediction.first_native), "table_source": prediction.table_source}


def report_document(report: ModelReport, commands: Dict[str, Tuple[str, ...]]) -> Dict[str, Any]:
    """The versioned JSON document (docs/report-format.md, "The model document"); COMMANDS: each result's commands
    for a POSIX shell."""
    request = report.request
    results = []
    for result in report.results:
        remedy = None
        if result.remedy is not None:
            remedy = {"problem": result.remedy.problem, "why": result.remedy.why, "link": result.remedy.link,
                      "key": result.remedy.key, "title": result.remedy.title or result.remedy.problem,
                      "commands": list(commands.get(result.id, ()))}
        results.append({"id": result.id, "title": result.title, "status": result.status.value,
                        "summary": result.summary, "details": list(result.details), "remedy": remedy})
    mf = report.model
    return {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "tool": {"name": "mps-doctor", "version": __version__},
        "created": report.created,
        "target": {"text": request.target.text, "kind": request.target.kind},
        "options": {"device": mf.device, "requested_device": request.device, "batch": request.batch,
                    "torch": request.torch, "timeout": request.timeout},
        "python": report.facts.target.python, "torch": report.release,
        "verdict": {"state": report.verdict.state, "ready": report.verdict.ready, "basis": report.verdict.basis,
                    "root_cause": report.verdict.root_cause, "summary": report.verdict.summary,
                    "counts": report.verdict.counts},
        "results": results,
        "prediction": prediction_document(report.prediction),
        "dtypes": [{"rule": f.rule, "status": f.status, "summary": f.summary, "ops": list(f.ops),
                    "message": f.message, "source": f.source} for f in report.findings],
        "facts": {"host": to_jsonable(report.facts.host), "target": to_jsonable(report.facts.target),
                  "model": to_jsonable(replace(mf, target=None))},
    }
