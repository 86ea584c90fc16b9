"""The registry of checks (stable ids and titles) and the ordered layers of the verdict per device."""

import functools
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from typing import Callable, Dict, List, Tuple

from mps_doctor.checks.model import Outcome

CHECK_ID_PATTERN = r"^[a-z]+(\.[a-z0-9-]+)+$"


@dataclass(frozen=True)
class CheckSpec:
    """A registered check; `advisory` checks can warn but never fail."""

    id: str
    title: str
    fn: Callable[..., Outcome]
    advisory: bool = False


REGISTRY: Dict[str, CheckSpec] = {}

# The layered verdict per device (DESIGN.md "The MPS verdict is layered"): the first failing layer is the
# root cause and every later layer is skipped with that reason.
MPS_LAYERS = (
    "os.macos", "hardware.apple-silicon", "python.rosetta", "macos.version", "python.version",
    "torch.import", "torch.mps-built", "torch.mps-available", "device.parity", "device.smoke",
)
CPU_LAYERS = ("python.version", "torch.import", "device.parity", "device.smoke")
CUDA_LAYERS = (
    "os.linux", "cuda.driver", "python.version", "torch.import", "torch.cuda-built", "cuda.driver-version",
    "cuda.visible-devices", "cuda.available", "cuda.capability", "device.parity", "device.smoke",
)


def check(check_id: str, title: str, advisory: bool = False):
    """Register the decorated function as the check CHECK_ID."""

    def register(fn):
        if check_id in REGISTRY:
            raise ValueError("duplicate check id %s" % check_id)
        REGISTRY[check_id] = CheckSpec(check_id, title, fn, advisory)
        return fn

    return register


@functools.lru_cache(maxsize=None)
def _load() -> None:
    """Import every module of this package, each registering its checks: found, not listed, so that the registry
    imports no check module back."""
    package = sys.modules[__package__]
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module("%s.%s" % (__package__, module.name))


def all_checks() -> List[CheckSpec]:
    """Every check: the MPS layers, then CUDA-only layers, then advisories."""
    _load()
    ordered = list(MPS_LAYERS) + [c for c in CUDA_LAYERS if c not in MPS_LAYERS]
    ordered += [c for c in REGISTRY if c not in ordered]
    return [REGISTRY[c] for c in ordered]


def plan_for(device: str, system: str) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(layer ids in order, advisory ids) for a run on DEVICE on a host whose platform.system() is SYSTEM."""
    _load()
    if device == "mps":
        layers = MPS_LAYERS
    elif device == "cuda":
        layers = CUDA_LAYERS
    else:
        # On a Mac an x86_64 Python still runs torch on the CPU, but is worth a warning.
        layers = (("python.rosetta",) if system == "Darwin" else ()) + CPU_LAYERS
    advisories = tuple(c for c, spec in REGISTRY.items() if spec.advisory)
    return layers, advisories
