"""What every check reads: the facts, the options and the release table, with small shared helpers."""

import re
from dataclasses import dataclass
from typing import Optional, Tuple

from mps_doctor.checks.model import (
    CheckAgain,
    Cmd,
    NewEnvironment,
    Options,
    Outcome,
    Remedy,
    export,
    failed,
    note,
    run,
    timed_out,
    unset,
)
from mps_doctor.facts import Facts, Host, Interpreter, Target, TorchInfo, describe_failure, longer_timeout, stage_work
from mps_doctor.timeouts import CHECK_TIMEOUT_MAX as MAX_TIMEOUT
from mps_doctor.versions import Release, ReleaseTable, admits, version_tuple

PYTORCH_MPS_DOCS = "https://docs.pytorch.org/docs/stable/notes/mps.html"
CUDA_DOCS = "https://docs.pytorch.org/docs/stable/notes/cuda.html"
GET_STARTED = "https://pytorch.org/get-started/locally/"
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
WHEEL_INDEX = "https://download.pytorch.org/whl/"


@dataclass(frozen=True)
class Context:
    """The inputs of a check; checks never look anywhere else."""

    facts: Facts
    options: Options
    releases: ReleaseTable

    @property
    def host(self) -> Host:
        return self.facts.host

    @property
    def target(self) -> Target:
        return self.facts.target

    @property
    def interp(self) -> Optional[Interpreter]:
        return self.facts.target.interpreter

    @property
    def torch(self) -> Optional[TorchInfo]:
        return self.facts.target.torch

    @property
    def device(self) -> str:
        return self.options.device

    @property
    def is_mac(self) -> bool:
        return self.host.system == "Darwin"

    @property
    def python_version(self) -> Optional[Tuple[int, ...]]:
        """The target Python's version; None when unknown (no interpreter facts, or a paste without the version)."""
        return tuple(self.interp.version) if self.interp and self.interp.version else None

    def python_label(self) -> str:
        """'Python 3.11.7 (arm64)' or 'the target Python' when unknown."""
        if not self.interp:
            return "the target Python"
        return "Python %s (%s)" % (".".join(map(str, self.interp.version)) or "?", self.interp.machine or "?")

    def torch_version(self) -> Optional[str]:
        """The installed torch version: from torch itself, else from its package metadata."""
        if self.torch is None:
            return None
        return self.torch.version or self.torch.packages.get("torch")

    def torch_imported(self) -> bool:
        return bool(self.torch and self.torch.installed and self.torch.import_error is None and self.torch.version)

    def macos(self) -> Optional[str]:
        """The macOS version from sw_vers, or Python's own view when sw_vers was unreadable (not 10.16)."""
        if self.host.macos_version:
            return self.host.macos_version
        if self.interp and self.interp.mac_ver and self.interp.mac_ver != "10.16":
            return self.interp.mac_ver
        return None

    def device_docs(self) -> str:
        """PyTorch's notes on the device checked: MPS, CUDA semantics, else installing PyTorch (the CPU)."""
        return {"mps": PYTORCH_MPS_DOCS, "cuda": CUDA_DOCS}.get(self.device, GET_STARTED)

    def intel_mac(self) -> bool:
        return self.is_mac and self.host.hw_arm64 is False

    def allows(self, release: Optional[Release]) -> bool:
        """Whether the team's torch and torchvision specifiers (none: every release) admit some build of RELEASE."""
        policy = self.options.policy
        return release is not None and admits(policy.torch, release.torch_pin) and admits(
            policy.torchvision, release.torchvision_pin)

    def installable(self, python: Optional[Tuple[int, ...]] = None) -> Tuple[Release, ...]:
        """The rows this machine can install for the requested device, oldest first: the last Intel-Mac release on an
        Intel Mac, those whose MPS runs on this macOS for --device mps, else the known ones; each for this Python (or
        PYTHON, the version of a new environment) when it is known."""
        py = python or self.python_version
        if self.intel_mac():
            return (self.releases.row_for(self.releases.last_intel_torch)[0],)
        macos = self.macos() if self.is_mac and self.device == "mps" else None
        return tuple(r for r in self.releases.releases if (py is None or r.supports_python(py)) and (
            (r.macos_min_mps is not None and at_least(macos, r.macos_min_mps)) if macos else r.confidence != "unknown"))

    def allowed_release(self, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """The newest release this machine can install (with PYTHON) that the team's policy allows; None if none."""
        return next((r for r in reversed(self.installable(python)) if self.allows(r)), None)

    def release_to_install(self, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """The torch release to install on this machine for the requested device and this Python (or PYTHON, the
        version of a new environment): the newest the team's policy allows, else (policy.torch says so) the newest."""
        rows = self.installable(python)
        return self.allowed_release(python) or (rows[-1] if rows else None)

    def newest_for_platform(self) -> Release:
        """The newest release this platform can get, whatever the Python, that the team's policy allows (when one
        does): 2.2 on an Intel Mac (its last wheels), the newest whose MPS runs on this macOS for --device mps, else
        the current release."""
        if self.intel_mac():
            return self.releases.row_for(self.releases.last_intel_torch)[0]
        if self.is_mac and self.device == "mps" and self.macos():
            rows = [r for r in self.releases.releases if r.macos_min_mps and at_least(self.macos(), r.macos_min_mps)]
        else:
            rows = [r for r in self.releases.releases if r.confidence != "unknown"]
        return next((r for r in reversed(rows) if self.allows(r)), rows[-1] if rows else self.releases.current)

    def newest_allowed(self) -> Release:
        """The newest known release the team's policy allows (the current release without a policy, or when the
        policy allows none)."""
        rows = [r for r in self.releases.releases if r.confidence != "unknown"]
        return next((r for r in reversed(rows) if self.allows(r)), self.releases.current)

    def limits_torch(self) -> bool:
        """Whether the team's policy sets a torch or torchvision specifier."""
        return bool(self.options.policy.torch or self.options.policy.torchvision)

    def newest_words(self) -> str:
        """How the output names the newest release it offers: 'the newest for this machine', or the team's limit."""
        return "the newest the team's policy allows here" if self.limits_torch() else "the newest for this machine"

    def current_words(self, release: Release) -> str:
        """How the output names RELEASE, the newest it offers: 'current torch 2.15', or 'the team's torch 2.13'."""
        return ("the team's torch %s" if self.limits_torch() and self.allows(release) else "current torch %s") % (
            release.torch)

    def new_environment_python(self) -> Optional[str]:
        """The Python ('3.12') of a new environment: the release table's choice when the team's Python specifier
        admits it and a release the policy allows installs for it here, else the nearest such Python; None if none."""
        table = self.releases
        spec = self.options.policy.python
        for version in table.new_pythons:
            py = version_tuple(version)
            if admits(spec, version + ".*") and self.allowed_release(py) is not None and (
                    self.allowed_release(py).supports_python(py)):
                return version
        return None

    def new_python(self) -> str:
        """new_environment_python(), or the table's choice when nothing fits (the policy checks then say why)."""
        return self.new_environment_python() or self.releases.new_environment_python

    def release_to_reinstall(self) -> Optional[Release]:
        """The table row of the installed torch, when it is in the table and the team's policy allows it; else the
        release to install."""
        version = self.torch_version()
        if version:
            release, exact = self.releases.row_for(version)
            if release is not None and exact and self.allows(release):
                return release
        return self.release_to_install()


def new_environment(ctx: Context, suffix: str = "", arm64: bool = False, install_torch: bool = True) -> NewEnvironment:
    """A new environment with the Python that ctx.new_python() chooses, named SUFFIX (default: py and its digits)."""
    python = ctx.new_python()
    return NewEnvironment(suffix or "py" + python.replace(".", ""), python, arm64=arm64, install_torch=install_torch)


def unpinned_gap(ctx: "Context", pinned: Release) -> str:
    """' (an unpinned `pip install torch` gets 2.11 here, ...)' when the newest torch that installs on this macOS is
    not PINNED, the newest whose MPS runs on it: wheel tags decide what installs, the MPS gate what runs."""
    macos = ctx.macos()
    unpinned = ctx.releases.newest_installable_on_macos(macos, ctx.python_version) if macos else None
    if unpinned is None or unpinned.torch == pinned.torch:
        return ""
    return " (an unpinned `pip install torch` gets %s here, which has no MPS on this macOS)" % unpinned.torch


def known_actions(commands: Tuple[str, ...]) -> Tuple[Cmd, ...]:
    """The commands of a known-error catalogue entry as actions: `export NAME=value` and `unset NAME` as such, any other
    command shown as a line to read (the catalogue's wording is not this machine's setup)."""
    actions = []
    for command in commands:
        setting = re.match(r"^export ([A-Z][A-Z0-9_]*)=([\w.:-]+)$", command)
        removal = re.match(r"^unset ([A-Z][A-Z0-9_]*)$", command)
        if setting:
            actions.append(export(setting.group(1), setting.group(2)))
        elif removal:
            actions.append(unset(removal.group(1)))
        else:
            actions.append(note("run: " + command))
    return tuple(actions)


def needs_interpreter(ctx: Context) -> Optional[Outcome]:
    """A fail when the target interpreter never described itself (crash, hang, too old), else None."""
    interp, failure = ctx.interp, ctx.target.failure
    if interp is not None and interp.too_old:
        return python_too_old(ctx, ".".join(map(str, interp.version)))
    if interp is not None:
        return None
    if failure is not None and failure.stage == "interpreter" and failure.kind == "timeout":
        return timeout_outcome(ctx)
    if failure is not None and failure.stage == "interpreter":
        what = describe_failure(failure)
        return failed(
            "the target Python %s before describing itself" % what,
            Remedy("%s %s." % (ctx.target.python, what), "Without a working interpreter nothing else can be checked.",
                   (run(ctx.target.python, "-c", "import sys; print(sys.version)"),), key="python-broken"),
            *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
        )
    return failed(
        "the target Python did not report itself",
        Remedy("No interpreter facts were recorded.", "Every later layer depends on them.",
               (run(ctx.target.python, "-c", "import sys; print(sys.version)"),), key="python-broken"),
    )


# The oldest Python the probe child runs on: child/__main__.py answers `too_old` below it.
PROBE_PYTHON = "3.7"


def python_too_old(ctx: Context, version: str) -> Outcome:
    """The failure for a Python too old for the probe child, worded for the device asked for and this platform: MPS is
    macOS's, and on Linux the torch in question is a CUDA or CPU build."""
    first, current = ctx.releases.releases[0], ctx.releases.current
    floor = ctx.releases.oldest_python()
    newest = "the newest, torch %s, needs Python %s" % (current.torch, current.python)
    if ctx.device == "mps":
        scope = "every PyTorch with MPS"
        why = "PyTorch with MPS (torch %s and later) needs Python %s at the very least; %s." % (first.torch, floor, newest)
    else:
        builds = {"cuda": "CUDA builds", "cpu": "CPU builds"}.get(ctx.device, "builds")
        on = "Linux" if ctx.host.system == "Linux" else "macOS" if ctx.is_mac else ctx.host.system
        scope = "PyTorch's %s for %s since %s" % (builds, on, first.torch)
        why = "Every torch release since %s needs Python %s or newer, its %s for %s included; %s." % (
            first.torch, floor, builds, on, newest)
    return failed(
        "Python %s is too old for mps-doctor's probe and for %s" % (version, scope),
        Remedy("The target Python is %s; mps-doctor's probe needs Python %s or newer." % (version, PROBE_PYTHON), why,
               (new_environment(ctx, arm64=ctx.is_mac and bool(ctx.host.hw_arm64)),),
               "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix",
               key="python-too-old", title="Create an environment with Python %s beside the current one" % ctx.new_python()),
    )


def at_least(version: str, minimum: str) -> bool:
    """Whether dotted VERSION >= MINIMUM numerically."""
    return version_tuple(version) >= version_tuple(minimum)


def timeout_outcome(ctx: Context) -> Outcome:
    """A probe stage that ran out of --timeout: its own outcome, neither passed nor failed, since nothing shows either
    way; it says what was still running, and the remedy is more time, never a reinstall."""
    failure = ctx.target.failure
    allowed = failure.timeout_seconds or 0
    doing = stage_work(failure.stage, ctx.device)
    return timed_out(
        "stopped after the --timeout of %g s while %s" % (allowed, doing),
        Remedy("mps-doctor stopped %s after the --timeout of %g s, while it was still %s." % (
                   ctx.target.python, allowed, doing),
               "A timeout shows neither a fault nor a working setup: a first import after installing, a busy or network "
               "disk, or a sleeping machine can take this long, and a step that hangs looks the same until more time "
               "has passed. Check again with more time (--timeout SECONDS, at most %d); if it stops at the same step "
               "again, that step hangs." % MAX_TIMEOUT,
               (CheckAgain(timeout=longer_timeout(allowed, MAX_TIMEOUT)),), key="probe-timeout",
               title="Check again with a longer --timeout"),
        *(("stderr: " + failure.stderr_tail,) if failure.stderr_tail else ()),
    )
