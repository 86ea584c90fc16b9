"""Result types of the checks: closed statuses, remedies as data, immutable results."""

import enum
from dataclasses import dataclass, field
from typing import Optional, Tuple


class Status(str, enum.Enum):
    """The closed set of check outcomes."""

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"


@dataclass(frozen=True)
class Remedy:
    """What is wrong, why it matters, the exact commands, and where to read more."""

    problem: str
    why: str
    commands: Tuple[str, ...] = ()
    link: Optional[str] = None
    key: str = ""


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

    @property
    def strict_warnings(self) -> bool:
        """Whether unaccepted warnings make the verdict not ready (--strict or the policy's strict = true)."""
        return self.strict or self.policy.strict

    @property
    def demanded(self) -> Tuple[str, ...]:
        """Devices the policy or --require-device insist on."""
        return tuple(dict.fromkeys(self.required + self.policy.devices))
