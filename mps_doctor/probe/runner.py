"""Run one command: an argv list, never a shell string, with a timeout and LC_ALL=C."""

import os
import subprocess
from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence


@dataclass(frozen=True)
class CommandResult:
    """What a command did; `returncode` None means it could not be started or timed out."""

    argv: Sequence[str]
    returncode: Optional[int]
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        """True when the command ran and exited 0."""
        return self.returncode == 0


Runner = Callable[..., CommandResult]


def command_env(extra: Optional[Mapping[str, str]] = None) -> dict:
    """The environment for a probe command: ours, with LC_ALL=C and EXTRA on top."""
    env = dict(os.environ)
    env["LC_ALL"] = "C"
    env.update(extra or {})
    return env


def run_command(argv: Sequence[str], timeout: float = 10.0, env: Optional[Mapping[str, str]] = None) -> CommandResult:
    """Run ARGV and capture its output; a missing program or a timeout is a result, not an exception."""
    try:
        done = subprocess.run(
            list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            timeout=timeout, env=command_env(env), text=True, errors="replace",
        )
    except subprocess.TimeoutExpired:
        return CommandResult(argv, None, timed_out=True, error="timed out after %g s" % timeout)
    except OSError as exc:
        return CommandResult(argv, None, error=exc.strerror or str(exc))
    return CommandResult(argv, done.returncode, done.stdout, done.stderr)


def replay_runner(recorded: Mapping[str, Mapping]) -> Runner:
    """A runner answering from RECORDED {"argv joined by spaces": {returncode, stdout, stderr}}; unknown argv raise."""

    def run(argv: Sequence[str], timeout: float = 10.0, env: Optional[Mapping[str, str]] = None) -> CommandResult:
        key = " ".join(argv)
        if key not in recorded:
            raise AssertionError("unrecorded command: %s" % key)
        entry = recorded[key]
        return CommandResult(argv, entry.get("returncode"), entry.get("stdout", ""), entry.get("stderr", ""),
                             timed_out=entry.get("timed_out", False), error=entry.get("error"))

    return run
