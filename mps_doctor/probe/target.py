"""The target probe: run the child script under the target interpreter and turn what it said into facts.

A crash, a hang, a segfault or an `Illegal instruction` in the child becomes a ProbeFailure naming the
stage it happened in; only input that is not a Python at all is a usage error.
"""

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import psutil

from mps_doctor import exit_codes
from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.errors import ReportFormatError, TargetPythonError
from mps_doctor.facts import (
    CudaDevice,
    ErrorInfo,
    Interpreter,
    Parity,
    ProbeFailure,
    Smoke,
    Target,
    TorchInfo,
    from_jsonable,
)
from mps_doctor.probe.runner import command_env
from mps_doctor.words import shorten

CHILD_DIR = Path(__file__).resolve().parent.parent / "child"
DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "mnist"


def validate_python(path: str) -> str:
    """PATH as an absolute path to an executable file; raise TargetPythonError with a one-line reason."""
    if not path.strip():
        raise TargetPythonError("--python: empty path (give the interpreter, e.g. .venv/bin/python)")
    candidate = Path(path).expanduser()
    if not candidate.exists():
        raise TargetPythonError("--python %s: no such file" % path)
    if candidate.is_dir():
        raise TargetPythonError("--python %s: is a directory, not a Python executable" % path)
    if not os.access(str(candidate), os.X_OK):
        raise TargetPythonError("--python %s: not executable" % path)
    return str(candidate.absolute())


@dataclass(frozen=True)
class ChildOutcome:
    """What a probe child said and how it ended."""

    results: Dict[str, dict]  # the data of each stage's `result` frame, by stage
    begun: Tuple[str, ...]  # the stages that began (or answered), in order
    returncode: Optional[int]  # negative: killed by that signal
    stderr: str
    timed_out: bool  # killed when --timeout passed


class ChildRun:
    """A running probe child (ENV: variables set for it on top of the doctor's); `wait()` returns its ChildOutcome:
    its stages as parsed JSON and how it ended.

    The child runs in its own session, so a terminal's signals do not reach it: while it runs, SIGINT, SIGTERM and
    SIGHUP to the doctor kill it and everything it started first. Its pipes are read with a deadline, so a descendant
    that escaped the process group and keeps them open cannot hold the doctor past --timeout.
    """

    def __init__(self, argv: List[str], timeout: float, env: Optional[Mapping[str, str]] = None):
        if FATAL_SIGNALS:
            end_for_signal(FATAL_SIGNALS[0])
        self.argv, self.timeout = argv, timeout
        self.started = time.monotonic()
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=command_env(dict({"PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}, **(env or {}))),
                start_new_session=True,
            )
        except OSError as exc:
            raise TargetPythonError("--python %s: cannot run it (%s)" % (argv[0], exc.strerror or exc))
        LIVE_CHILDREN.add(self)
        guard_signals()

    def stream(self, on_frame) -> ChildOutcome:
        """Like wait(), calling ON_FRAME(frame) for each framed line as it arrives (progress bars)."""
        pending = [b""]

        def on_stdout(chunk: bytes) -> None:
            *complete, pending[0] = (pending[0] + chunk).split(b"\n")
            for raw in complete:
                line = raw.decode("utf-8", "replace")
                if line.startswith(FRAME_MARK):
                    try:
                        on_frame(json.loads(line[len(FRAME_MARK):]))
                    except ValueError:
                        pass

        return self.wait(on_stdout)

    def wait(self, on_stdout=None) -> ChildOutcome:
        """Read the child until it ends or --timeout passes (then kill it); ON_STDOUT(chunk) sees stdout as it comes."""
        try:
            out, err, timed_out = self.collect(self.started + self.timeout, on_stdout)
        finally:
            self.close()
        if FATAL_SIGNALS:
            end_for_signal(FATAL_SIGNALS[0])
        results, begun = parse_frames(out.decode("utf-8", "replace"))
        return ChildOutcome(results=results, begun=tuple(begun), returncode=self.process.returncode,
                            stderr=err.decode("utf-8", "replace"), timed_out=timed_out)

    def collect(self, deadline: float, on_stdout=None) -> Tuple[bytes, bytes, bool]:
        """Read both pipes until the child ends and they close, or until DEADLINE; then kill what is left."""
        chunks: Dict[int, List[bytes]] = {self.process.stdout.fileno(): [], self.process.stderr.fileno(): []}
        stdout_fd = self.process.stdout.fileno()
        timed_out = False
        with selectors.DefaultSelector() as selector:
            for pipe in (self.process.stdout, self.process.stderr):
                selector.register(pipe, selectors.EVENT_READ)
            while selector.get_map() and not FATAL_SIGNALS:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    timed_out = True
                    break
                for key, _ in selector.select(remaining):
                    data = os.read(key.fd, 65536)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    chunks[key.fd].append(data)
                    if key.fd == stdout_fd and on_stdout is not None:
                        on_stdout(data)
            if not timed_out:
                try:
                    self.process.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
            if timed_out:
                kill_tree(self.process)
                drain_until = time.monotonic() + DRAIN_SECONDS
                while selector.get_map() and time.monotonic() < drain_until:
                    for key, _ in selector.select(max(0.0, drain_until - time.monotonic())):
                        data = os.read(key.fd, 65536)
                        if data:
                            chunks[key.fd].append(data)
                        else:
                            selector.unregister(key.fileobj)
        return b"".join(chunks[stdout_fd]), b"".join(chunks[self.process.stderr.fileno()]), timed_out

    def close(self) -> None:
        """Kill whatever of the child is still running, reap it, close its pipes and stop guarding signals."""
        if self.process.poll() is None:
            kill_tree(self.process)
        self.process.wait()
        for pipe in (self.process.stdout, self.process.stderr):
            pipe.close()
        LIVE_CHILDREN.discard(self)
        if not LIVE_CHILDREN:
            unguard_signals()


# Seconds to keep reading what a killed child had already written.
DRAIN_SECONDS = 1.0
LIVE_CHILDREN: "set[ChildRun]" = set()
GUARDED_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
PREVIOUS_HANDLERS: Dict[int, object] = {}
# The signals on_fatal_signal handled. Python runs a handler between any two bytecodes, also inside a finalizer
# (`__del__`), which swallows its exception ("Exception ignored in ..."); the doctor then ends when the child it reads
# ends (the handler killed it), or before it starts another.
FATAL_SIGNALS: List[int] = []


def on_fatal_signal(signum, frame) -> None:
    """Kill every live child tree, then end the doctor as the signal asked (SIGINT as KeyboardInterrupt)."""
    FATAL_SIGNALS.append(signum)
    for child in list(LIVE_CHILDREN):
        kill_tree(child.process)
    end_for_signal(signum)


def end_for_signal(signum: int) -> "NoReturn":  # noqa: F821
    """Raise what ends the doctor for SIGNUM: KeyboardInterrupt for SIGINT, else SystemExit(128 + SIGNUM)."""
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(exit_codes.KILLED_BY_SIGNAL_BASE + signum)


def guard_signals() -> None:
    """Route SIGINT, SIGTERM and SIGHUP through on_fatal_signal while children live (main thread only;
    a signal the doctor was told to ignore, as by nohup, stays ignored)."""
    if PREVIOUS_HANDLERS or threading.current_thread() is not threading.main_thread():
        return
    for signum in GUARDED_SIGNALS:
        previous = signal.getsignal(signum)
        if previous is signal.SIG_IGN:
            continue
        PREVIOUS_HANDLERS[signum] = previous
        signal.signal(signum, on_fatal_signal)


def unguard_signals() -> None:
    """Put back the handlers guard_signals replaced."""
    if threading.current_thread() is not threading.main_thread():
        return
    while PREVIOUS_HANDLERS:
        signum, previous = PREVIOUS_HANDLERS.popitem()
        signal.signal(signum, previous if previous is not None else signal.SIG_DFL)


def kill_tree(process: subprocess.Popen) -> None:
    """Kill the child, its process group, and every descendant that left the group (a new session, setsid)."""
    try:
        escaped = psutil.Process(process.pid).children(recursive=True)
    except (psutil.Error, OSError):
        escaped = []
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except OSError:
        pass
    for proc in escaped + [process]:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def parse_frames(stdout: str) -> Tuple[Dict[str, dict], List[str]]:
    """Framed lines of the child's stdout: results by stage and the stages begun, in order; other lines ignored."""
    results: Dict[str, dict] = {}
    begun: List[str] = []
    for line in stdout.splitlines():
        if not line.startswith(FRAME_MARK):
            continue
        try:
            frame = json.loads(line[len(FRAME_MARK):])
            stage = str(frame["stage"])
        except (ValueError, KeyError, TypeError):
            continue
        if frame.get("event") == "begin":
            begun.append(stage)
        elif frame.get("event") == "result" and isinstance(frame.get("data"), dict):
            results[stage] = frame["data"]
            if stage not in begun:
                begun.append(stage)
    return results, begun


def start_target(python: str, device: str, smoke: bool, timeout: float) -> ChildRun:
    """Start the child probe under PYTHON; the host probe runs while it imports torch."""
    options = {"device": device, "smoke": smoke, "data_dir": str(DATA_DIR)}
    return ChildRun([python, str(CHILD_DIR), "check", json.dumps(options)], timeout)


def finish_target(run: ChildRun, python: str, device: str, smoke: bool, chosen_because: Optional[str] = None,
                  on_frame: Optional[Callable[[dict], None]] = None) -> Target:
    """Wait for the child (ON_FRAME hears each of its frames as it comes) and build the Target facts; raise
    TargetPythonError when it was not a Python."""
    outcome = run.stream(on_frame) if on_frame is not None else run.wait()
    return target_from_frames(outcome.results, outcome.begun, outcome.returncode, outcome.stderr, outcome.timed_out,
                              run.timeout, python, device, smoke, chosen_because)


def target_from_frames(results: Dict[str, dict], begun: Sequence[str], returncode: Optional[int], stderr: str,
                       timed_out: bool, timeout: float, python: str, device: str, smoke: bool,
                       chosen_because: Optional[str] = None) -> Target:
    """Target facts from what a child said and how it ended (recorded or live); raise TargetPythonError when it
    never answered at all."""
    stages = ("interpreter", "torch", "parity") + (("smoke",) if smoke else ())
    failure = None
    unfinished = [s for s in begun if s not in results]
    if timed_out or unfinished or (returncode not in (0, None) and "interpreter" in results):
        stage = unfinished[-1] if unfinished else (begun[-1] if begun else "interpreter")
        failure = probe_failure(stage, returncode, stderr, timed_out, timeout)
    if "interpreter" not in results and failure is None:
        if returncode is not None and returncode < 0:
            failure = probe_failure("interpreter", returncode, stderr, False, timeout)
        else:
            raise TargetPythonError("%s: not a Python interpreter (it exited with code %s without answering the probe)"
                                    % (target_named(python, chosen_because), returncode))
    adapters = (("interpreter", lambda data: adapt(Interpreter, data, "interpreter")), ("torch", adapt_torch),
                ("parity", lambda data: adapt(Parity, data, "parity")), ("smoke", adapt_smoke))
    facts = {}
    for stage, adapter in adapters:
        try:
            facts[stage] = adapter(results.get(stage))
        except (ReportFormatError, AttributeError, TypeError, ValueError, KeyError) as exc:
            # A frame of the wrong shape is the child's answer, not the doctor's failure: a fact about the target.
            facts[stage] = None
            if failure is None:
                failure = ProbeFailure(stage=stage, kind="bad-answer", returncode=returncode,
                                       stderr_tail=shorten("malformed %s frame: %s" % (stage, exc), 300))
    return Target(python=python, device=device, stages_requested=stages, failure=failure, chosen_because=chosen_because,
                  **facts)


def target_named(python: str, chosen_because: Optional[str]) -> str:
    """How a message names the target: `--python PATH` when the user gave it, else PATH and why it was chosen."""
    if chosen_because in (None, "--python"):
        return "--python %s" % python
    return "%s (Python chosen: %s)" % (python, chosen_because)


def probe_failure(stage: str, returncode: Optional[int], stderr: str, timed_out: bool, timeout: float) -> ProbeFailure:
    """A ProbeFailure for a child that timed out, died by a signal, or exited mid-stage."""
    tail = "\n".join(stderr.strip().splitlines()[-8:])
    if timed_out:
        return ProbeFailure(stage=stage, kind="timeout", stderr_tail=tail, timeout_seconds=timeout)
    name = None
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
    return ProbeFailure(stage=stage, kind="crash", returncode=returncode, signal=name, stderr_tail=tail)


def last_line(text: str) -> str:
    """The last non-empty line of TEXT, shortened."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return shorten(lines[-1], 200) if lines else ""


def adapt(cls, data: Optional[dict], path: str):
    """Child JSON for one stage as a facts dataclass, keeping only the fields the class knows."""
    if data is None:
        return None
    if cls is Parity and "error" in data:
        return Parity(device=data.get("device", "?"), error=from_jsonable(ErrorInfo, data["error"], path + ".error"))
    known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
    return from_jsonable(cls, known, path)


def adapt_torch(data: Optional[dict]) -> Optional[TorchInfo]:
    """The child's torch stage (nested mps/cuda objects) as a flat TorchInfo."""
    if data is None:
        return None
    mps, cuda = data.get("mps") or {}, data.get("cuda") or {}
    flat = {
        "installed": data.get("installed", False),
        "version": data.get("version"), "file": data.get("file"), "import_seconds": data.get("import_seconds"),
        "import_error": data.get("import_error"), "num_threads": data.get("num_threads"),
        "mps_built": mps.get("built"), "mps_available": mps.get("available"), "mps_name": mps.get("name"),
        "mps_core_count": mps.get("core_count"), "mps_recommended_max_memory": mps.get("recommended_max_memory"),
        "cuda_version": cuda.get("version"), "cuda_available": cuda.get("available"),
        "cuda_arch_list": cuda.get("arch_list") or [],
        "cuda_devices": [{k: d.get(k) for k in CudaDevice.__dataclass_fields__} for d in cuda.get("devices") or []],
        "packages": data.get("packages") or {}, "warnings": data.get("warnings") or [],
        "shadows": data.get("shadows") or [], "build": data.get("build") or {},
    }
    return from_jsonable(TorchInfo, flat, "torch")


def adapt_smoke(data: Optional[dict]) -> Optional[Smoke]:
    """The child's smoke stage as Smoke facts."""
    if data is None:
        return None
    parity = data.get("parity") or {}
    flat = {k: v for k, v in data.items() if k in Smoke.__dataclass_fields__ and k != "parity"}
    flat["reference"] = parity.get("reference")
    flat["loss_parity"] = parity.get("loss")
    flat["grad_parity"] = parity.get("grads") or []
    return from_jsonable(Smoke, flat, "smoke")


def this_python() -> str:
    """The interpreter running the doctor."""
    return sys.executable


__all__ = ["start_target", "finish_target", "validate_python", "this_python"]
