"""What a long step is doing while it runs (importing torch, training step k of n, timing window k of n): one line
on stderr, rewritten in place, only where a person watches it.

The child's progress frames (child/mpsd_probe.py, child/mpsd_bench.py) come in; text goes out. Nothing here decides
anything, and nothing reaches stdout, so reports, JSON and pipes are the same with or without it.
"""

import contextlib
import os
import threading
import time
from typing import Callable, Iterator, Mapping, Optional

from mps_doctor.ci import ci_name
from mps_doctor.facts import stage_work, step_work
from mps_doctor.render.safe import escaped_line
from mps_doctor.words import shorten

PREFIX = "mps-doctor: "
# ANSI "erase to the end of the line" (ECMA-48 EL): a shorter line leaves nothing of the longer one before it.
ERASE = "\x1b[K"
# Seconds between redraws of the elapsed time.
TICK = 1.0


def wanted(stream, environ: Mapping[str, str]) -> bool:
    """Progress only where a person watches: STREAM (stderr) is a terminal that understands ERASE (TERM is not
    dumb), and no CI system runs us (ci.ci_name, the CI variable among them)."""
    if environ.get("TERM") == "dumb" or ci_name(environ):
        return False
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def device_of(data: Mapping) -> str:
    """The device a frame names, made safe and short."""
    device = data.get("device")
    return shorten(escaped_line(device), 16) if isinstance(device, str) and device else "the device"


def describe(frame) -> Optional[str]:
    """What FRAME says is running now, in words; None when it says nothing new (a result, an unknown frame). The words
    are those a stop would be reported with: a stage's `begin` frame as check's --timeout names it (facts.stage_work),
    a `progress` frame as bench's (facts.step_work, bench.running)."""
    if not isinstance(frame, Mapping):
        return None
    event, stage, data = frame.get("event"), frame.get("stage"), frame.get("data")
    data = data if isinstance(data, Mapping) else {}
    if event == "begin":
        if stage in ("interpreter", "torch", "parity", "smoke"):
            return stage_work(stage, device_of(data))
        if isinstance(stage, str) and stage.startswith("bench-"):
            return stage_work("bench-", shorten(escaped_line(stage[len("bench-"):]), 16))
        return None
    if event != "progress":
        return None
    return step_work(stage, data)


def columns(stream) -> int:
    """The width of the terminal behind STREAM (COLUMNS, else the terminal's own, else 80)."""
    try:
        return max(20, int(os.environ["COLUMNS"]))
    except (KeyError, ValueError):
        pass
    try:
        return max(20, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):
        return 80


class StatusLine:
    """One line on STREAM saying what runs and for how long, redrawn in place each TICK and as frames arrive;
    erased by close(), so that what follows starts on a clean line."""

    def __init__(self, stream, text: str = "starting", clock: Callable[[], float] = time.monotonic):
        self.stream, self.clock = stream, clock
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.thread: Optional[threading.Thread] = None
        self.text, self.since, self.drawn = text, clock(), False

    def __call__(self, frame) -> None:
        """Show what FRAME says runs now (a child frame callback)."""
        text = describe(frame)
        if text is not None:
            self.show(text)

    def show(self, text: str) -> None:
        with self.lock:
            if text != self.text:
                self.text, self.since = text, self.clock()
            self.draw()

    def line(self) -> str:
        """The line as drawn now: what runs, and its seconds so far once there is one, within the terminal's width."""
        seconds = int(self.clock() - self.since)
        text = PREFIX + self.text + ("... %d s" % seconds if seconds >= 1 else "...")
        return shorten(text, columns(self.stream) - 1)

    def draw(self) -> None:
        self.write("\r" + self.line() + ERASE)
        self.drawn = True

    def write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a terminal that went away is no reason to fail the command
            pass

    def start(self) -> "StatusLine":
        """Draw now, then redraw every TICK on a daemon thread until close()."""
        self.show(self.text)
        self.thread = threading.Thread(target=self.tick, name="mps-doctor-progress", daemon=True)
        self.thread.start()
        return self

    def tick(self) -> None:
        while not self.stopped.wait(TICK):
            with self.lock:
                if not self.stopped.is_set():
                    self.draw()

    def close(self) -> None:
        """Stop redrawing and erase the line."""
        self.stopped.set()
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            if self.drawn:
                self.write("\r" + ERASE)
                self.drawn = False


@contextlib.contextmanager
def status_line(stream, environ: Mapping[str, str], enabled: bool = True) -> Iterator[Optional[StatusLine]]:
    """A started StatusLine on STREAM while the block runs, when ENABLED and wanted(STREAM, ENVIRON); else None."""
    if not (enabled and wanted(stream, environ)):
        yield None
        return
    line = StatusLine(stream).start()
    try:
        yield line
    finally:
        line.close()
