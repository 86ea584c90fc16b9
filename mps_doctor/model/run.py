"""Run the `model` child under the target interpreter (with check's containment: probe/target.py's ChildRun) and read
its frames into facts; the host is probed while the child imports torch.

The child runs with PYTORCH_ENABLE_MPS_FALLBACK=1 set before torch is imported, so that one step names every operator
that falls back. When the user's environment does not enable the fallback and some did, a second child runs the
step on the device with it off, and names each NotImplementedError the user would meet.
"""

import json
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, Optional

from mps_doctor.errors import ReportFormatError
from mps_doctor.facts import Facts, Host, ProbeFailure, Target, from_jsonable
from mps_doctor.model.facts import Loaded, Memory, ModelFacts, ModelParity, Observed, Speed, Trace
from mps_doctor.model.target import TargetSpec
from mps_doctor.probe import collect
from mps_doctor.probe.default_target import default_python
from mps_doctor.probe.target import CHILD_DIR, ChildOutcome, ChildRun, probe_failure, target_from_frames, validate_python
from mps_doctor.words import shorten

FALLBACK = "PYTORCH_ENABLE_MPS_FALLBACK"
MODEL_STAGES = ("model-load", "model-trace", "model-observe", "model-memory", "model-speed", "model-parity")
ADAPTERS = {"model-load": ("loaded", Loaded), "model-trace": ("trace", Trace), "model-observe": ("observed", Observed),
            "model-memory": ("memory", Memory), "model-speed": ("speed", Speed), "model-parity": ("parity", ModelParity)}
# The child's keys that differ from the facts' field names.
RENAMED = {"model-load": {"class": "class_name"}}


@dataclass(frozen=True)
class ModelRequest:
    """What `mps-doctor model` was asked: the TARGET, the device, the interpreter (None: the default target), the
    batch (None: the factory's own), the torch release to predict for (None: the installed one), the seconds the
    child may take, and the callback that hears each of its frames (the progress line)."""

    target: TargetSpec
    device: str = "auto"
    python: Optional[str] = None
    batch: Optional[int] = None
    torch: Optional[str] = None
    timeout: float = 900.0
    scan_seconds: float = 60.0
    on_frame: Optional[Callable[[dict], None]] = field(default=None, compare=False, repr=False)


def fallback_enabled(value: Optional[str]) -> bool:
    """Whether torch reads VALUE of PYTORCH_ENABLE_MPS_FALLBACK as on: an integer other than 0 (MPSFallback.mm:
    std::stoi(value) != 0)."""
    text = (value or "").strip()
    digits = text[1:] if text[:1] in "+-" else text
    return bool(digits) and digits.isascii() and digits.isdigit() and int(digits) != 0


def child_options(request: ModelRequest, stages=MODEL_STAGES) -> dict:
    return {"target": request.target.child_options(), "device": request.device,
            "batch": request.batch or request.target.default_batch, "stages": list(stages),
            "scan_seconds": request.scan_seconds}


def start_child(python: str, request: ModelRequest, fallback: str, timeout: float, stages=MODEL_STAGES) -> ChildRun:
    """The model child under PYTHON with PYTORCH_ENABLE_MPS_FALLBACK=FALLBACK set before torch imports."""
    return ChildRun([python, str(CHILD_DIR), "model", json.dumps(child_options(request, stages))], timeout,
                    env={FALLBACK: fallback})


def stage_facts(results: Dict[str, dict]) -> Dict[str, object]:
    """The model stages' results as facts, by field of ModelFacts; raise ReportFormatError for a frame of the wrong
    shape."""
    facts = {}
    for stage, (name, cls) in ADAPTERS.items():
        data = results.get(stage)
        if data is None:
            continue
        if not isinstance(data, dict):
            raise ReportFormatError("%s: expected an object" % stage)
        data = {RENAMED.get(stage, {}).get(key, key): value for key, value in data.items()}
        known = {key: value for key, value in data.items() if key in cls.__dataclass_fields__}
        facts[name] = from_jsonable(cls, known, stage)
    return facts


def ended_in(outcome: ChildOutcome, timeout: float) -> Optional[ProbeFailure]:
    """The ProbeFailure of a child that a --timeout, a signal or an exit stopped inside a model stage, else None."""
    unfinished = [stage for stage in outcome.begun if stage not in outcome.results]
    if not unfinished and not outcome.timed_out and outcome.returncode in (0, None):
        return None
    stage = unfinished[-1] if unfinished else (outcome.begun[-1] if outcome.begun else "interpreter")
    if stage not in MODEL_STAGES and not outcome.timed_out:
        return None  # an early stage: target_from_frames says so
    return probe_failure(stage, outcome.returncode, outcome.stderr, outcome.timed_out, timeout)


def read_outcome(outcome: ChildOutcome, python: str, request: ModelRequest, why: Optional[str]) -> ModelFacts:
    """ModelFacts from what one child said and how it ended."""
    early = {stage: outcome.results[stage] for stage in ("interpreter", "torch") if stage in outcome.results}
    begun = [stage for stage in outcome.begun if stage in early or stage in ("interpreter", "torch")]
    ended_early = "torch" not in outcome.results
    target = target_from_frames(early, begun, outcome.returncode if ended_early else 0, outcome.stderr,
                                outcome.timed_out and ended_early, request.timeout, python, request.device, False, why)
    failure = None if ended_early else ended_in(outcome, request.timeout)
    try:
        facts = stage_facts(outcome.results)
    except ReportFormatError as exc:
        facts = {}
        failure = failure or ProbeFailure(stage="model", kind="bad-answer", returncode=outcome.returncode,
                                          stderr_tail=shorten("malformed frame: %s" % exc, 300))
    device = next((frame_device(outcome.results.get(stage)) for stage in ("model-observe", "model-speed",
                                                                         "model-parity") if stage in outcome.results),
                  None) or resolved_device(request.device, target)
    return ModelFacts(target=target, device=device, failure=failure, **facts)


def frame_device(data) -> Optional[str]:
    device = data.get("device") if isinstance(data, dict) else None
    return device if device in ("cpu", "mps", "cuda") else None


def resolved_device(requested: str, target: Target) -> str:
    """auto as the child resolves it (mpsd_probe.resolve_device): mps on macOS, cuda where torch sees a GPU, else
    cpu."""
    if requested != "auto":
        return requested
    interp, torch = target.interpreter, target.torch
    if interp is not None and interp.sys_platform == "darwin":
        return "mps"
    return "cuda" if torch is not None and torch.cuda_available else "cpu"


def run_model(request: ModelRequest, host_probe: Optional[Callable[[], Host]] = None):
    """(host and target facts, ModelFacts) for REQUEST: the child with the fallback on, then, where fallbacks were
    seen and the user's environment leaves the fallback off, the device step again with it off."""
    python, why = (request.python, "--python") if request.python is not None else default_python()
    python = validate_python(python)
    child = start_child(python, request, "1", request.timeout)
    host = (host_probe or collect.collect_host)()
    outcome = child.stream(request.on_frame) if request.on_frame is not None else child.wait()
    facts = read_outcome(outcome, python, request, why)
    observed = facts.observed
    if observed is not None and observed.fallback_ops and not fallback_enabled(host.env.get(FALLBACK)) \
            and facts.failure is None:
        again = start_child(python, request, "0", request.timeout, ("model-load", "model-observe"))
        second = again.stream(request.on_frame) if request.on_frame is not None else again.wait()
        without = read_outcome(second, python, request, why)
        facts = replace(facts, observed_without_fallback=without.observed)
    return Facts(host=host, target=facts.target), facts
