"""Result types of the checks: closed statuses, remedies as data (shell- and manager-neutral actions), results."""

import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple, Union


class Status(str, enum.Enum):
    """The closed set of check outcomes."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"
    TIMEOUT = "timeout"  # the probe ran out of --timeout in this layer's stage: not shown to work, not shown broken


@dataclass(frozen=True)
class Cmd:
    """One shell-neutral command; renderers spell it for zsh, bash or fish.

    kind: run (argv, with optional VAR=value prefixes in env), doctor (mps-doctor with the arguments in argv),
    export (name=value), unset (name), activate (a venv folder in value, or a conda env name in name), note (value is
    printed as a comment only).
    """

    kind: str = "run"
    argv: Tuple[str, ...] = ()
    env: Tuple[Tuple[str, str], ...] = ()
    name: str = ""
    value: str = ""


def run(*argv: str, env: Tuple[Tuple[str, str], ...] = ()) -> Cmd:
    """Run the program ARGV[0] with its arguments."""
    return Cmd("run", tuple(argv), env)


def doctor(*args: str) -> Cmd:
    """Run mps-doctor with ARGS (remedies/ spells it: by name on another machine, else this one's path)."""
    return Cmd("doctor", tuple(args))


def export(name: str, value: str) -> Cmd:
    """Set the environment variable NAME to VALUE for this shell."""
    return Cmd("export", name=name, value=value)


def unset(name: str) -> Cmd:
    """Remove the environment variable NAME from this shell."""
    return Cmd("unset", name=name)


def note(text: str) -> Cmd:
    """A line that is shown, never run."""
    return Cmd("note", value=text)


def activate_venv(folder: str) -> Cmd:
    """Activate the venv in FOLDER in this shell."""
    return Cmd("activate", value=folder)


def activate_conda(name: str) -> Cmd:
    """Activate the conda environment NAME in this shell."""
    return Cmd("activate", name=name)


@dataclass(frozen=True)
class InstallTorch:
    """Install torch and torchvision pinned together into the environment the plan is working on.

    torch: the release table row to install (its `torch`, such as "2.8"); None is the release for this machine.
    cuda: a CUDA build such as "12.6", installed from its index. audio: pin torchaudio to the release too. The manager
    and index are chosen in remedies/.
    """

    torch: Optional[str] = None
    force: bool = False
    cuda: Optional[str] = None
    audio: bool = False


@dataclass(frozen=True)
class InstallPackages:
    """Install PACKAGES (plain requirements such as numpy) into the environment the plan is working on; with UPGRADE
    an installed one is upgraded too; with CUDA (a build such as "11.3") from PyTorch's index of that build, as a
    companion of a CUDA build of torch must be."""

    packages: Tuple[str, ...]
    upgrade: bool = False
    cuda: Optional[str] = None


@dataclass(frozen=True)
class NewEnvironment:
    """Create an environment beside the current one (nothing is deleted), with Python PYTHON (a native arm64 one when
    ARM64), install torch into it unless not INSTALL_TORCH, and switch to it; named after SUFFIX."""

    suffix: str
    python: str
    arm64: bool = False
    install_torch: bool = True


@dataclass(frozen=True)
class CheckAgain:
    """Check again once the other steps are done, on DEVICE (default: the one asked for) with TIMEOUT seconds."""

    device: Optional[str] = None
    timeout: Optional[float] = None


Action = Union[Cmd, InstallTorch, InstallPackages, NewEnvironment, CheckAgain]


@dataclass(frozen=True)
class Task:
    """A separately titled part of a remedy (an alternative, or a step that must come first), with its own key."""

    key: str
    title: str
    actions: Tuple[Action, ...]
    reason: str = ""


@dataclass(frozen=True)
class Remedy:
    """What is wrong, why it matters, what fixes it (actions and tasks, as data), and where to read more.

    `key` names the fix; `title` is its step's title in a fix plan (default: the problem). Remedies never hold a shell
    string: remedies/ turns the actions into commands for the user's manager, and render/ spells them for the shell.
    """

    problem: str
    why: str
    actions: Tuple[Union[Action, Task], ...] = ()
    link: Optional[str] = None
    key: str = ""
    title: str = ""


@dataclass(frozen=True)
class Outcome:
    """What a check function returns; the runner adds the id, title and layer."""

    status: Status
    summary: str
    details: Tuple[str, ...] = ()
    remedy: Optional[Remedy] = None
    rule: Optional[str] = None


@dataclass(frozen=True)
class CheckResult:
    """One check's result in a report."""

    id: str
    title: str
    layer: Optional[int]
    status: Status
    summary: str
    details: Tuple[str, ...] = ()
    remedy: Optional[Remedy] = None
    rule: Optional[str] = None
    accepted: Optional[str] = None


def passed(summary: str, *details: str, rule: Optional[str] = None) -> Outcome:
    """A pass outcome."""
    return Outcome(Status.PASS, summary, tuple(details), rule=rule)


def skipped(summary: str, *details: str) -> Outcome:
    """A skip outcome: the check does not apply here."""
    return Outcome(Status.SKIP, summary, tuple(details))


def failed(summary: str, remedy: Remedy, *details: str, rule: Optional[str] = None) -> Outcome:
    """A fail outcome; a failure always carries a remedy."""
    return Outcome(Status.FAIL, summary, tuple(details), remedy, rule)


def warned(summary: str, remedy: Remedy, *details: str, rule: Optional[str] = None) -> Outcome:
    """A warn outcome; a warning always carries a remedy."""
    return Outcome(Status.WARN, summary, tuple(details), remedy, rule)


def timed_out(summary: str, remedy: Remedy, *details: str) -> Outcome:
    """A timeout outcome: the probe was stopped in this layer's stage, so it is neither shown to work nor broken; its
    remedy gives more time."""
    return Outcome(Status.TIMEOUT, summary, tuple(details), remedy)


# The statuses that stop the layers after them: the first is the root cause (report.run_checks).
STOPPING = (Status.FAIL, Status.ERROR, Status.TIMEOUT)
# The statuses that carry a remedy (report.guarded) and that `fix` plans for (with unaccepted warnings).
NEEDS_REMEDY = (Status.FAIL, Status.WARN, Status.TIMEOUT)


# The remedy keys of a warning that says a layer could not judge its facts (the layers it relies on were left out, or
# the saved device work is another device's): such a warning never shows that the device works (report.make_verdict).
NEEDS_EARLIER_LAYER = "needs-earlier-layer"
PROBE_DEVICE = "probe-device"
UNJUDGED = (NEEDS_EARLIER_LAYER, PROBE_DEVICE)

# The remedy key of a cause suspected without a fact that decides it (triage's memory of earlier threads): nothing is
# fixed before the full check on the machine decides it.
CHECK_FIRST = "check-first"

# The reason that diagnosis gives the ids of --skip, which join the policy's own skips.
COMMAND_LINE_SKIP = "--skip on the command line"


@dataclass(frozen=True)
class Policy:
    """The effective team policy (policy.py reads and validates it); `origins` says where each set value came from."""

    devices: Tuple[str, ...] = ()
    torch: Optional[str] = None
    torchvision: Optional[str] = None
    python: Optional[str] = None
    min_macos: Optional[str] = None
    skip: Tuple[Tuple[str, str], ...] = ()
    accept: Tuple[Tuple[str, str], ...] = ()
    strict: bool = False
    source: Optional[str] = None
    origins: Tuple[Tuple[str, str], ...] = field(default=())

    @property
    def empty(self) -> bool:
        return self == Policy(source=self.source, origins=self.origins)

    def reason_to_skip(self, check_id: str) -> Optional[str]:
        return next((reason for cid, reason in self.skip if cid == check_id), None)

    def skipped_by(self, check_id: str) -> Optional[str]:
        """Who skips CHECK_ID: "--skip", "the policy in FILE" (or "the policy" without a file), else None."""
        reason = self.reason_to_skip(check_id)
        if reason is None:
            return None
        if reason == COMMAND_LINE_SKIP:
            return "--skip"
        return "the policy in %s" % self.source if self.source else "the policy"

    def reason_to_accept(self, check_id: str) -> Optional[str]:
        return next((reason for cid, reason in self.accept if cid == check_id), None)


@dataclass(frozen=True)
class Options:
    """Run options that checks may read: the resolved device, what the user asked for, and the team policy."""

    device: str
    requested_device: str = "auto"
    quick: bool = False
    policy: Policy = field(default_factory=Policy)
    select: Tuple[str, ...] = ()
    required: Tuple[str, ...] = ()
    strict: bool = False
    replayed_from: Optional[str] = None
    # The policy file this run read on this machine (--config, or the nearest pyproject.toml with the table), as an
    # absolute path; None without one, and when the policy is the one saved in a replayed report. The commands that
    # run the check or the fix again name it (`--config`), so that they keep the policy from any folder.
    config: Optional[str] = None

    @property
    def strict_warnings(self) -> bool:
        """Whether unaccepted warnings make the verdict not ready (--strict or the policy's strict = true)."""
        return self.strict or self.policy.strict

    def repeated(self, here: bool = True, strict: bool = True) -> Tuple[str, ...]:
        """What a command that runs the check or the fix again must say to judge as this run did, from any folder:
        `--config FILE` for the policy file read here (only when HERE, a command run on this machine: another
        machine's policy file is unknown), and with STRICT `--strict` when the run was strict."""
        config = ("--config", self.config) if here and self.config else ()
        return config + (("--strict",) if strict and self.strict else ())

    @property
    def demanded(self) -> Tuple[str, ...]:
        """Devices the policy or --require-device insist on."""
        return tuple(dict.fromkeys(self.required + self.policy.devices))
