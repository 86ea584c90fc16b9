"""`mps-doctor model`: run the request, build the report, render it; what the CLI's thin wrapper calls."""

import json
from typing import Callable, Optional, Tuple

from mps_doctor.bench import BenchUnavailable, torch_usable
from mps_doctor.errors import UsageError
from mps_doctor.facts import FRAME_DEVICES, frame_number, step_work
from mps_doctor.model.report import ModelReport, build_report, report_document
from mps_doctor.model.run import ModelRequest, run_model
from mps_doctor.model.target import parse_target
from mps_doctor.versions import minor_of

# What each model stage does, in the words of the progress line and of a --timeout (facts.stage_work's style).
STAGE_WORK = {"model-load": "loading the TARGET", "model-trace": "tracing one training step on the CPU",
              "model-observe": "running one training step on %s", "model-memory": "measuring the memory of a step on %s",
              "model-speed": "timing training steps on %s and the CPU", "model-parity": "comparing a step on %s with the CPU"}


class ModelUnavailable(BenchUnavailable):
    """torch does not import in the target (exit 1): check's layers say why (cli.explained)."""


def model_work(frame) -> Optional[str]:
    """What a model child's FRAME (untrusted) says runs now, or None for a frame of another kind."""
    if not isinstance(frame, dict):
        return None
    stage, data = frame.get("stage"), frame.get("data") if isinstance(frame.get("data"), dict) else {}
    device = data.get("device") if data.get("device") in FRAME_DEVICES else "the device"
    if frame.get("event") == "begin" and stage in STAGE_WORK:
        return STAGE_WORK[stage] % device if "%s" in STAGE_WORK[stage] else STAGE_WORK[stage]
    if frame.get("event") == "progress" and stage == "model" and data.get("phase") in ("speed", "scan"):
        batch = frame_number(data, "batch")
        return "timing batch %s on %s" % (batch if batch is not None else "?", device)
    return step_work(stage, data) if frame.get("event") == "progress" else None


def progress_callback(line) -> Optional[Callable[[dict], None]]:
    """The frame callback that shows model stages on LINE (a StatusLine, or None for no progress line)."""
    if line is None:
        return None

    def on_frame(frame) -> None:
        text = model_work(frame)
        if text is not None:
            line.show(text)
        else:
            line(frame)

    return on_frame


def model_request(target: str, device: str, python: Optional[str], batch: Optional[int], torch: Optional[str],
                  timeout: float, on_frame=None, scan_seconds: Optional[float] = None) -> ModelRequest:
    """The request of the command line's values (the scan's budget: SCAN_SECONDS, never more than a sixth of TIMEOUT so
    that the run still ends within it; None: a sixth of TIMEOUT, at most 60); a UsageError for a bad TARGET or
    --torch."""
    if torch is not None and minor_of(torch) is None:
        raise UsageError("--torch %s: not a release number such as 2.9 or 2.9.1" % torch)
    return ModelRequest(target=parse_target(target), device=device, python=python, batch=batch, torch=torch,
                        timeout=timeout, scan_seconds=min(60.0 if scan_seconds is None else scan_seconds, timeout / 6),
                        on_frame=on_frame)


def diagnose_model(request: ModelRequest) -> ModelReport:
    """Run REQUEST's child and build its report; ModelUnavailable when torch does not import in the target."""
    facts, mf = run_model(request)
    if not torch_usable(mf.target):
        python = mf.target.python
        raise ModelUnavailable("torch does not import in %s; run: mps-doctor check --python %s" % (python, python),
                               mf.target, request.device, "the model was not run")
    return build_report(request, facts, mf)


def render(report: ModelReport, fmt: str, verbose: bool, color: bool, unicode: bool, redacted: bool) -> str:
    """REPORT in FMT (text, json or markdown)."""
    if fmt == "json":
        from mps_doctor.render.commands import remedy_commands

        return json.dumps(report_document(report, remedy_commands(report.plan_report(), "bash")), indent=2) + "\n"
    if fmt == "markdown":
        from mps_doctor.render.model_markdown import render_model_markdown

        return render_model_markdown(report, redacted=redacted)
    from mps_doctor.render.model_text import render_model_text

    return render_model_text(report, verbose=verbose, color=color, unicode=unicode)


def run_command(request: ModelRequest, fmt: str, verbose: bool, color: bool, unicode: bool,
                redacted: bool) -> Tuple[str, int]:
    """(the output, the exit code) of `mps-doctor model`."""
    report = diagnose_model(request)
    return render(report, fmt, verbose, color, unicode, redacted), report.exit_code()
