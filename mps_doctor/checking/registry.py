"""The registry of checks: each registration states the check's id, title, kind, layer position, devices and facts;
the layer order of every device, list-checks, docs/checks.md, policy filtering, triage and `fix` read it."""

import functools
import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from mps_doctor.checking.model import Options, Outcome
from mps_doctor.devices import DEVICES

CHECK_ID_PATTERN = r"^[a-z]+(\.[a-z0-9-]+)+$"
# The fact of the layers that run tensor work on the device: a paste or another device's report never holds it.
DEVICE_RUN = "device run"
KINDS = ("layer", "advisory", "policy")
# The package whose modules hold the checks: found, not listed, so that the registry imports no check module.
CHECKS_PACKAGE = "mps_doctor.checks"


@dataclass(frozen=True)
class CheckSpec:
    """A registered check.

    kind: layer (part of the layered verdict: the first failing layer is the root cause and every later one is
    skipped, DESIGN.md "The MPS verdict is layered"), advisory (warns, never fails) or policy (runs when `applies`
    says the team's policy asks for it). position: a layer's rank, one order shared by every device, or an advisory's
    rank among the advisories (whatever module it lives in). devices: where a
    layer runs, a device optionally qualified by the platform.system() it runs on ("cpu:Darwin"). facts: the facts it
    judges ("a|b": either will do), so that triage can tell a layer a paste cannot decide; facts_when(ctx): the facts
    it also judges in that case. evidence: the kinds of pasted messages (triage/parsers/) that implicate it.
    pasted(outcome, ctx, paste): its outcome on pasted facts, without claims the paste cannot back (paste.has(fact),
    paste.value(fact)).
    """

    id: str
    title: str
    fn: Callable[..., Outcome]
    kind: str = "layer"
    position: Optional[int] = None
    devices: Tuple[str, ...] = ()
    facts: Tuple[str, ...] = ()
    applies: Optional[Callable[[Options], bool]] = None
    evidence: Tuple[str, ...] = ()
    facts_when: Optional[Callable[..., Tuple[str, ...]]] = None
    pasted: Optional[Callable[..., Outcome]] = None

    @property
    def advisory(self) -> bool:
        return self.kind == "advisory"

    @property
    def policy(self) -> bool:
        return self.kind == "policy"

    def runs_on(self, device: str, system: str) -> bool:
        """Whether this layer belongs to a run on DEVICE on a host whose platform.system() is SYSTEM."""
        return any(d == device or d == "%s:%s" % (device, system) for d in self.devices)

    def layer_devices(self) -> Tuple[str, ...]:
        """The devices this layer runs on, unqualified."""
        return tuple(dict.fromkeys(d.split(":")[0] for d in self.devices))


REGISTRY: Dict[str, CheckSpec] = {}


def check(check_id: str, title: str, *, layer: Optional[int] = None, devices: Tuple[str, ...] = (),
          advisory: Optional[int] = None, policy: Optional[Callable[[Options], bool]] = None, facts: Tuple[str, ...] = (),
          evidence: Tuple[str, ...] = (), facts_when: Optional[Callable[..., Tuple[str, ...]]] = None,
          pasted: Optional[Callable[..., Outcome]] = None):
    """Register the decorated function as the check CHECK_ID: a layer at rank LAYER on DEVICES, an advisory at rank
    ADVISORY among the advisories, or a policy check that runs when POLICY(options) is true (CheckSpec says what the
    other fields mean)."""
    kind = "policy" if policy is not None else "advisory" if advisory is not None else "layer"
    if kind == "layer" and (layer is None or not devices):
        raise ValueError("layer %s needs a position and its devices" % check_id)
    position = advisory if kind == "advisory" else layer
    if any(d.split(":")[0] not in DEVICES for d in devices):
        raise ValueError("%s: unknown device in %s" % (check_id, devices))

    def register(fn):
        if check_id in REGISTRY:
            raise ValueError("duplicate check id %s" % check_id)
        clash = [s.id for s in REGISTRY.values() if position is not None and s.kind == kind and s.position == position]
        if clash:
            raise ValueError("%s: %s position %d is taken by %s" % (check_id, kind, position, clash[0]))
        REGISTRY[check_id] = CheckSpec(check_id, title, fn, kind, position, tuple(devices), tuple(facts), policy,
                                       tuple(evidence), facts_when, pasted)
        return fn

    return register


@functools.lru_cache(maxsize=None)
def _load() -> None:
    """Import every module of the checks' package, each registering its checks."""
    package = importlib.import_module(CHECKS_PACKAGE)
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module("%s.%s" % (CHECKS_PACKAGE, module.name))


def all_checks() -> List[CheckSpec]:
    """Every check: the layers in rank order, then the advisories in rank order, then the policy checks (by module
    name and line), whatever the order the modules were imported in."""
    _load()
    registered = tuple(REGISTRY.values())
    # Sorted once for each state of the registry (triage asks per layer); the cached order holds its specs, so that
    # no id in a key can be another object's.
    key = tuple(map(id, registered))
    if key not in _ORDERED:
        specs = sorted(registered, key=lambda s: (s.fn.__module__, s.fn.__code__.co_firstlineno))
        ranked = sorted((s for s in specs if s.position is not None), key=lambda s: s.position)
        if len(_ORDERED) > 8:
            _ORDERED.clear()
        _ORDERED[key] = [s for s in ranked if s.kind == "layer"] + [s for s in ranked if s.advisory] + \
            [s for s in specs if s.policy]
    return list(_ORDERED[key])


_ORDERED: Dict[Tuple[int, ...], List[CheckSpec]] = {}


def layers_for(device: str, system: str) -> Tuple[str, ...]:
    """The layer ids of a run on DEVICE on a host whose platform.system() is SYSTEM, in order."""
    return tuple(s.id for s in all_checks() if s.kind == "layer" and s.runs_on(device, system))


def advisories() -> Tuple[str, ...]:
    """The advisory ids, in order."""
    return tuple(s.id for s in all_checks() if s.advisory)


# Where list-checks and docs/checks.md number the layers: MPS on macOS, CUDA and the CPU on Linux (a CPU run on macOS
# starts with python.rosetta).
LISTED_RUNS = (("mps", "Darwin"), ("cuda", "Linux"), ("cpu", "Linux"))


def check_rows() -> List[dict]:
    """Every check as list-checks shows it: id, title, kind, and its layer number per device."""
    numbered = {device: layers_for(device, system) for device, system in LISTED_RUNS}
    return [{"id": s.id, "title": s.title, "kind": s.kind,
             "layers": {device: ids.index(s.id) + 1 for device, ids in numbered.items() if s.id in ids}}
            for s in all_checks()]


def implicated_by(kind: str) -> Tuple[str, ...]:
    """The layers a pasted message of KIND implicates, in layer order."""
    return tuple(s.id for s in all_checks() if kind in s.evidence)


def device_work_checks() -> Tuple[str, ...]:
    """The layers that judge work run on the device itself (their facts come only from a probe of that device)."""
    return tuple(s.id for s in all_checks() if DEVICE_RUN in s.facts)


def policy_checks(options: Options) -> Tuple[str, ...]:
    """The policy checks that the policy (or --require-device) asks for."""
    return tuple(s.id for s in all_checks() if s.policy and s.applies(options))
