"""`mps-doctor bench`: the MNIST example of pytorch/examples (CPU vs accelerator), run in the target interpreter.

This module only plans the run, reads the child's measurements and derives figures from them; the timing
itself happens in child/mpsd_bench.py.
"""

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mps_doctor import __version__, exit_codes
from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.facts import Target, describe_failure, longer_timeout, stage_work, step_work
from mps_doctor.probe.target import (
    CHILD_DIR,
    DATA_DIR,
    ChildOutcome,
    ChildRun,
    last_line,
    probe_failure,
    target_from_frames,
    validate_python,
)
from mps_doctor.timeouts import BENCH_TIMEOUT_DEFAULT, BENCH_TIMEOUT_MAX
from mps_doctor.words import shorten

FORMAT = "mps-doctor-bench"
SCHEMA_VERSION = 1
# One training step of the MNIST Net at batch 64 is 4.580 GFLOP (reference/performance.md section 4).
STEP_FLOP_AT_64 = 4.580179968e9
SEED_EPOCH_IMAGES = 60000
PEAKS_FILE = Path(__file__).resolve().parent / "data" / "chip_peaks.json"
# A measurement is noisy when the standard deviation of its windows is more than 10% of their mean: the threshold at
# which pyperf's `check` command calls a benchmark result unstable (pyperf documentation, "Analyze benchmark results").
NOISY_VARIATION = 0.10


class BenchTimedOut(DoctorError):
    """The run ran out of --timeout before any device was measured (exit 1)."""

    exit_code = exit_codes.NOT_READY


class BenchUnavailable(DoctorError):
    """The accelerator asked for, or torch, cannot run here (exit 1). TARGET holds what the bench's child found, for
    `check`'s layers on DEVICE to say why (with WHAT, the part of the run that was not measured); MESSAGE is the line
    shown when they find no cause."""

    exit_code = exit_codes.NOT_READY

    def __init__(self, message: str, target: Optional[Target] = None, device: str = "auto", what: str = ""):
        super().__init__(message)
        self.target, self.device, self.what = target, device, what


@dataclass(frozen=True)
class BenchOptions:
    """What to measure."""

    device: str = "auto"
    batch: int = 64
    warmup: int = 10
    windows: int = 5
    steps: int = 20
    epochs: int = 0
    pipeline: Optional[str] = None
    workers: int = 0
    data_dir: Optional[str] = None
    include_cpu: bool = True
    timeout: float = BENCH_TIMEOUT_DEFAULT


@dataclass(frozen=True)
class DeviceRun:
    """One device's measurement and the figures derived from it."""

    device: str
    name: str = ""
    batch: int = 64
    pipeline: str = "resident"
    cold_first_step_ms: Optional[float] = None
    window_ms: Tuple[float, ...] = ()
    epochs: Tuple[Dict[str, float], ...] = ()
    final_loss: Optional[float] = None
    warnings: Tuple[str, ...] = ()
    error: Optional[str] = None  # why there are no figures: the run failed, or it was stopped (timed_out)
    timed_out: bool = False
    unavailable: bool = False
    peak_tflops: Optional[float] = None
    peak_source: Optional[str] = None

    @property
    def median_ms(self) -> Optional[float]:
        return statistics.median(self.window_ms) if self.window_ms else None

    @property
    def spread(self) -> Optional[float]:
        """(max - min) / median of the windows: how noisy the measurement was."""
        if len(self.window_ms) < 2:
            return None
        return (max(self.window_ms) - min(self.window_ms)) / self.median_ms

    @property
    def variation(self) -> Optional[float]:
        """Standard deviation over mean of the windows (the coefficient of variation); None below two windows."""
        if len(self.window_ms) < 2 or not statistics.mean(self.window_ms):
            return None
        return statistics.stdev(self.window_ms) / statistics.mean(self.window_ms)

    @property
    def noisy(self) -> bool:
        """Whether the windows vary by more than NOISY_VARIATION: the figures are uncertain."""
        return self.variation is not None and self.variation > NOISY_VARIATION

    @property
    def images_per_second(self) -> Optional[float]:
        return self.batch / (self.median_ms / 1e3) if self.median_ms else None

    @property
    def tflops(self) -> Optional[float]:
        """Achieved TFLOP/s: 4.58 GFLOP per step at batch 64, scaled by batch (information, not a health signal)."""
        if not self.median_ms:
            return None
        return STEP_FLOP_AT_64 * (self.batch / 64.0) / (self.median_ms / 1e3) / 1e12


@dataclass(frozen=True)
class BenchReport:
    """Everything `bench` prints."""

    options: BenchOptions
    python: str
    torch_version: Optional[str]
    runs: Tuple[DeviceRun, ...]
    data: str
    notes: Tuple[str, ...] = field(default=())

    def run_for(self, device: str) -> Optional[DeviceRun]:
        return next((r for r in self.runs if r.device == device and not r.unavailable and r.error is None), None)

    @property
    def accelerator(self) -> Optional[DeviceRun]:
        return next((r for r in self.runs if r.device != "cpu" and not r.unavailable and r.error is None), None)

    @property
    def speedup(self) -> Optional[float]:
        """CPU ms/step divided by accelerator ms/step, measured in this run."""
        cpu, accel = self.run_for("cpu"), self.accelerator
        if cpu is None or accel is None or not accel.median_ms:
            return None
        return cpu.median_ms / accel.median_ms

    @property
    def warnings(self) -> Tuple[str, ...]:
        """What makes the figures suspect or surprising: a noisy measurement, an accelerator slower than the CPU."""
        found = tuple(noise_warning(run, bool(self.options.epochs)) for run in self.runs if run.noisy)
        if self.speedup is not None and self.speedup < 1.0:
            found += (
                "%s is slower than the CPU here (%.2fx). On this small network at batch %d each step is ~%.1f GFLOP, so "
                "per-operation launch overhead dominates; that is expected on small chips or old torch and is no fault. "
                "Try --batch 256, or a bigger model, to see the GPU's throughput."
                % (self.accelerator.device, self.speedup, self.options.batch, STEP_FLOP_AT_64 * self.options.batch / 64e9),)
        return found

    @property
    def status(self) -> Tuple[str, str]:
        """('pass' | 'warn' | 'fail' | 'timeout', message): a run that failed first, then one that --timeout stopped
        (neither fast nor broken is shown: the remedy is more time), else the warnings, one after the other."""
        failed = [r for r in self.runs if r.error and not r.timed_out]
        if failed:
            return "fail", "%s failed: %s" % (failed[0].device, failed[0].error)
        stopped = [r for r in self.runs if r.timed_out]
        if stopped:
            return "timeout", "%s: %s. Nothing shows whether it is slow or hangs; run again with more time (--timeout " \
                              "%g)." % (stopped[0].device, stopped[0].error, longer_timeout(self.options.timeout,
                                                                                           BENCH_TIMEOUT_MAX))
        if self.warnings:
            return "warn", " ".join(self.warnings)
        return "pass", ""

    def exit_code(self) -> int:
        """NOT_READY when a device's run failed or timed out, else READY (a slower accelerator or a noisy run is a
        warning, not a failure)."""
        return exit_codes.NOT_READY if self.status[0] in ("fail", "timeout") else exit_codes.READY


def noise_warning(run: DeviceRun, epochs: bool) -> str:
    """Why RUN's figures are uncertain: how much its windows (or EPOCHS) varied, and what gives a steadier one."""
    what = "epochs" if epochs else "timing windows"
    return ("%s is noisy: its %s vary by %.0f%% (standard deviation over mean, %.2f to %.2f ms/step), more than the "
            "%.0f%% at which a result is unstable, so its figures are uncertain. Other programs or thermal throttling "
            "disturbed it: close them and run again, or measure longer (--windows, --steps)."
            % (run.device, what, 100 * run.variation, min(run.window_ms), max(run.window_ms), 100 * NOISY_VARIATION))


def resolved_accelerator(requested: str, results: Dict[str, dict]) -> str:
    """The accelerator the bench is about: auto resolved like check --device auto (devices.resolve_device): mps on
    macOS, cuda where torch sees a CUDA GPU, else cpu."""
    if requested != "auto":
        return requested
    if (results.get("interpreter") or {}).get("sys_platform") == "darwin":
        return "mps"
    if ((results.get("torch") or {}).get("cuda") or {}).get("available"):
        return "cuda"
    return "cpu"


def load_peaks() -> List[dict]:
    with open(str(PEAKS_FILE), encoding="utf-8") as handle:
        return json.load(handle)["chips"]


def find_peak(name: str, cores: Optional[int] = None, peaks: Optional[List[dict]] = None):
    """(FP32 TFLOP/s, source) for a device NAME (and Apple GPU CORES), or (None, None) when unknown."""
    for row in peaks if peaks is not None else load_peaks():
        same_name = name == row["name"] or (row["name"].startswith("NVIDIA") and name.startswith(row["name"]))
        if same_name and (row.get("gpu_cores") is None or row.get("gpu_cores") == cores):
            return row["fp32_tflops"], row["source"]
    return None, None


def run_bench(python: str, options: BenchOptions, system: str, on_progress=None,
              chosen_because: str = "--python") -> BenchReport:
    """Run the bench child under PYTHON (chosen as CHOSEN_BECAUSE says) and build the report; a target whose torch
    does not import raises BenchUnavailable with check's report of it."""
    python = validate_python(python)
    accel = options.device  # auto is resolved by the child, as check resolves it
    if accel == "cpu" and not options.include_cpu:
        raise UsageError("--no-cpu with --device cpu leaves nothing to measure")
    devices = (["cpu"] if options.include_cpu or accel == "cpu" else []) + ([accel] if accel != "cpu" else [])
    data_dir = options.data_dir or str(DATA_DIR)
    pipeline = options.pipeline or ("loader" if options.epochs else "resident")
    child_options = {
        "devices": devices, "batch": options.batch, "warmup": options.warmup, "windows": options.windows,
        "steps": options.steps, "epochs": options.epochs, "pipeline": pipeline, "workers": options.workers,
        "data_dir": data_dir, "images_per_epoch": SEED_EPOCH_IMAGES if options.epochs and not options.data_dir else None,
        "no_cpu": not options.include_cpu,
    }
    child = ChildRun([python, str(CHILD_DIR), "bench", json.dumps(child_options)], options.timeout)
    progress: Dict[str, dict] = {}

    def on_frame(frame) -> None:
        """Each frame as it comes: the last progress frame kept, for what a stop interrupted (running); every frame
        to ON_PROGRESS (the progress line), which reads the same frames the same way (facts.step_work)."""
        if isinstance(frame, dict) and frame.get("event") == "progress" and frame.get("stage") == "bench" \
                and isinstance(frame.get("data"), dict):
            progress["last"] = frame["data"]
        if on_progress is not None:
            on_progress(frame)

    outcome = child.stream(on_frame)
    results = outcome.results
    target = early_target(outcome, python, options, chosen_because)
    if target.failure is not None and target.failure.kind == "timeout":
        doing = stage_work(target.failure.stage, options.device)
        raise BenchTimedOut("nothing was measured: %s stopped after the --timeout of %g s while %s; run again with more "
                            "time (--timeout %g)" % (python, options.timeout, doing,
                                                     longer_timeout(options.timeout, BENCH_TIMEOUT_MAX)))
    if not torch_usable(target):
        raise BenchUnavailable("torch does not import in %s; run: mps-doctor check --python %s" % (python, python),
                               target, options.device, "nothing was measured")
    torch_data = results["torch"]
    accel = resolved_accelerator(options.device, results)
    if accel == "cpu" and not options.include_cpu:
        raise UsageError("--no-cpu: torch in %s sees no accelerator (no MPS, no CUDA GPU), so there is nothing to "
                         "measure but the CPU; run without --no-cpu, or see: mps-doctor check --python %s" % (python, python))
    devices = list(dict.fromkeys(["cpu" if device == "cpu" or device == "auto" and accel == "cpu" else
                                  accel if device == "auto" else device for device in devices]))
    runs = []
    for device in devices:
        data = results.get("bench-" + device)
        if data is None:
            runs.append(stopped_run(device, outcome, progress.get("last"), options.timeout))
            continue
        runs.append(device_run(data, torch_data))
    accel_run = next((r for r in runs if r.device == accel), None)
    if accel != "cpu" and accel_run is not None and accel_run.unavailable:
        raise BenchUnavailable("%s is not available to torch in %s; run: mps-doctor check --python %s --device %s"
                               % (accel, python, python, accel), target, accel, "%s was not measured" % accel)
    data_note = describe_data(options, data_dir)
    return BenchReport(options=options, python=python, torch_version=torch_data.get("version"), runs=tuple(runs),
                       data=data_note, notes=(("pipeline: " + describe_pipeline(pipeline, options.workers)),))


# The stages the bench child answers as check's child does (child/mpsd_bench.py run).
EARLY_STAGES = ("interpreter", "torch")


def early_target(outcome: ChildOutcome, python: str, options: BenchOptions, chosen_because: str) -> Target:
    """The interpreter and torch stages of a bench child as check's probe reads them; how the child ended counts
    only when it ended before the torch stage answered (later, it is a device's run that failed)."""
    results = {stage: outcome.results[stage] for stage in EARLY_STAGES if stage in outcome.results}
    begun = [stage for stage in outcome.begun if stage in EARLY_STAGES]
    ended_early = "torch" not in results
    return target_from_frames(results, begun, outcome.returncode if ended_early else 0, outcome.stderr,
                              outcome.timed_out and ended_early, options.timeout, python, options.device, False,
                              chosen_because)


def torch_usable(target: Target) -> bool:
    """Whether the facts show a torch that imported in a Python the probe could describe (Context.torch_imported)."""
    torch, interp = target.torch, target.interpreter
    return bool(target.failure is None and interp is not None and not interp.too_old and torch is not None
                and torch.installed and torch.import_error is None and torch.version)


def stopped_run(device: str, outcome: ChildOutcome, progress: Optional[dict], timeout: float) -> DeviceRun:
    """The run of DEVICE, which the child never reported: stopped by --timeout or ended (a crash, an exit) while it
    ran, or before it began; it says what was still running, from the child's last PROGRESS frame."""
    stage = "bench-" + device
    began = stage in outcome.begun
    doing = running(progress, device if began else None)
    if outcome.timed_out:
        return DeviceRun(device=device, timed_out=True, error=(
            "stopped after the --timeout of %g s while %s" % (timeout, doing) if began else
            "not started: the --timeout of %g s passed while %s" % (timeout, doing)))
    ended = describe_failure(probe_failure(stage, outcome.returncode, outcome.stderr, False, timeout))
    last = last_line(outcome.stderr)
    return DeviceRun(device=device, error=(
        "the benchmark %s while %s" % (ended, doing) if began else "not started: the benchmark %s while %s" % (ended, doing))
        + (": " + last if last else ""))


def running(progress: Optional[dict], device: Optional[str] = None) -> str:
    """What the bench child was doing by its last PROGRESS frame's data (untrusted), in the progress line's words
    (facts.step_work), 'timing window 3 of 5 on cpu'; with DEVICE, the device whose run had begun (before its first
    frame, its network and data were being set up)."""
    data = progress if isinstance(progress, dict) else {}
    if device is not None and data.get("device") != device:
        return stage_work("bench-" + device, device)
    return step_work("bench", data) or "benchmarking"


def device_run(data: dict, torch_data: dict) -> DeviceRun:
    """A DeviceRun from the child's bench frame, with the chip's peak when known."""
    if data.get("unavailable"):
        return DeviceRun(device=data["device"], unavailable=True)
    if data.get("error"):
        return DeviceRun(device=data["device"], error="%s: %s" % (data["error"]["type"], shorten(data["error"]["message"], 300)))
    cores = (torch_data.get("mps") or {}).get("core_count") if data["device"] == "mps" else None
    peak, source = find_peak(data.get("name", ""), cores) if data["device"] != "cpu" else (None, None)
    return DeviceRun(
        device=data["device"], name=data.get("name", ""), batch=data["batch"], pipeline=data["pipeline"],
        cold_first_step_ms=data.get("cold_first_step_ms"), window_ms=tuple(data.get("window_ms", ())),
        epochs=tuple(data.get("epochs", ())), final_loss=data.get("final_loss"), warnings=tuple(data.get("warnings", ())),
        peak_tflops=peak, peak_source=source,
    )


def describe_data(options: BenchOptions, data_dir: str) -> str:
    if options.data_dir:
        return "MNIST from %s" % options.data_dir
    if options.epochs:
        return "the 2,000 MNIST digits shipped with mps-doctor, cycled to 60,000 images per epoch (the MNIST training set's size)"
    return "the 2,000 MNIST digits shipped with mps-doctor"


def describe_pipeline(pipeline: str, workers: int) -> str:
    if pipeline == "loader":
        return ("DataLoader with per-sample decode and normalize (like torchvision's ToTensor + Normalize in pytorch/examples), "
                "num_workers=%d, copied to the device every step" % workers)
    return "data resident on the device (measures the device, not the input pipeline)"


def bench_to_dict(report: BenchReport) -> dict:
    """The versioned JSON document of a bench run."""
    status, message = report.status
    return {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "tool": {"name": "mps-doctor", "version": __version__},
        "python": report.python, "torch": report.torch_version, "data": report.data,
        "options": {"device": report.options.device, "batch": report.options.batch, "warmup": report.options.warmup,
                    "windows": report.options.windows, "steps": report.options.steps, "epochs": report.options.epochs,
                    "pipeline": report.runs[0].pipeline if report.runs else report.options.pipeline,
                    "workers": report.options.workers},
        "step_gflop": STEP_FLOP_AT_64 * report.options.batch / 64e9,
        "runs": [run_to_dict(r) for r in report.runs],
        "speedup": report.speedup, "status": status, "message": message, "notes": list(report.notes),
    }


def run_to_dict(run: DeviceRun) -> dict:
    return {
        "device": run.device, "name": run.name, "unavailable": run.unavailable, "error": run.error,
        "timed_out": run.timed_out,
        "cold_first_step_ms": run.cold_first_step_ms, "window_ms_per_step": list(run.window_ms),
        "median_ms_per_step": run.median_ms, "spread": run.spread, "variation": run.variation, "noisy": run.noisy,
        "images_per_second": run.images_per_second,
        "achieved_tflops": run.tflops, "peak_fp32_tflops": run.peak_tflops, "peak_source": run.peak_source,
        "fraction_of_peak": run.tflops / run.peak_tflops if run.tflops and run.peak_tflops else None,
        "epochs": list(run.epochs), "final_loss": run.final_loss, "warnings": list(run.warnings),
    }
