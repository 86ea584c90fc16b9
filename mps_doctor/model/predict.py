"""Predicted operator coverage: the traced operators against the MPS kernels of each torch release in the table.

Works anywhere the step can be traced (Linux too): an operator whose base name has neither an MPS nor a composite
kernel in a release falls back to the CPU there (with PYTORCH_ENABLE_MPS_FALLBACK=1) or raises NotImplementedError.
What the trace cannot see: a composite operator that picks another kernel on MPS than on the CPU (max_pool2d calls
_mps_max_pool2d on MPS), and kernels that refuse some dtypes or shapes at run time (model/dtypes.py).
"""

import json
from dataclasses import dataclass
from typing import Callable, FrozenSet, Iterable, Mapping, Optional, Tuple

from mps_doctor import mps_ops
from mps_doctor.model.facts import Op
from mps_doctor.versions import minor_of

# Namespaces whose operators are bookkeeping, never a kernel on a device (torch.profiler's record_function).
IGNORED_NAMESPACES = ("profiler",)
# Kernels that a composite operator picks for the CPU, where MPS gets its own: a CPU trace names them, a Mac never
# calls them. scaled_dot_product_attention chooses its backend per device (aten/src/ATen/native/transformers/
# attention.cpp, _fused_sdp_choice): the CPU's flash attention, on MPS _scaled_dot_product_attention_math_for_mps
# (from 2.5) or the math decomposition. The prediction asks about the operator the model called.
CPU_CHOICES = {"_scaled_dot_product_flash_attention_for_cpu": "scaled_dot_product_attention",
               "_scaled_dot_product_flash_attention_for_cpu_backward": "scaled_dot_product_attention"}


@dataclass(frozen=True)
class KernelTable:
    """The releases of a kernel table, oldest first, and what each has (kernels_for) and since when (first_native)."""

    releases: Tuple[str, ...]
    kernels_for: Callable[[str], FrozenSet[str]]
    first_native: Callable[[str], Optional[str]]
    source: str = ""

    @classmethod
    def of(cls, rows: mps_ops.Table, source: str = "") -> "KernelTable":
        """A table of ROWS (mps_ops.load_kernels)."""
        return cls(tuple(row.release for row in rows), lambda r: mps_ops.kernels_for(r, rows) or frozenset(),
                   lambda op: mps_ops.first_native_release(op, rows), source)


def load_table(path: str) -> KernelTable:
    """The table in the file PATH, of data/mps_kernels.json's format (an empty one when it is missing or not one)."""
    try:
        rows = mps_ops.load_kernels(path)
        with open(path, encoding="utf-8") as handle:
            source = str(json.load(handle).get("source") or "")
    except (OSError, ValueError):
        return KernelTable((), lambda r: frozenset(), lambda op: None)
    return KernelTable.of(rows, source)


def default_table() -> KernelTable:
    """The table shipped in data/ (mps_ops)."""
    return load_table(str(mps_ops.DATA_FILE))


@dataclass(frozen=True)
class ReleaseCoverage:
    """One release: the traced base names without an MPS or composite kernel in it."""

    release: str
    missing: Tuple[str, ...]


@dataclass(frozen=True)
class Prediction:
    """The traced operators against the table: per release, what is missing; for RELEASE (the installed torch's minor,
    or --torch) its own row; NATIVE_FROM, the first release from which every operator has a kernel in all later
    ones; FIRST_NATIVE, since when each missing operator has one (None: no release in the table)."""

    ops: Tuple[str, ...]  # ATen base names, first seen first
    other: Tuple[str, ...]  # operators of other namespaces (torchvision::nms), which the table does not cover
    release: Optional[str]
    in_table: bool
    missing: Tuple[str, ...]
    coverage: Tuple[ReleaseCoverage, ...]
    native_from: Optional[str]
    first_native: Mapping[str, Optional[str]]
    table_source: str = ""

    @property
    def newest(self) -> Optional[str]:
        return self.coverage[-1].release if self.coverage else None


def aten_ops(ops: Iterable[Op]) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(ATen base names, other operators) of OPS, each once, first seen first; bookkeeping namespaces left out, the
    CPU's own choices under a composite operator named by that operator (CPU_CHOICES)."""
    bases, other = [], []
    for op in ops:
        if op.namespace in IGNORED_NAMESPACES:
            continue
        if op.namespace != "aten":
            if op.name not in other:
                other.append(op.name)
        elif CPU_CHOICES.get(op.base, op.base) not in bases:
            bases.append(CPU_CHOICES.get(op.base, op.base))
    return tuple(bases), tuple(other)


def predict(ops: Iterable[Op], release: Optional[str], table: KernelTable) -> Prediction:
    """The Prediction for the traced OPS on torch RELEASE (a version or minor; None: unknown) with TABLE."""
    bases, other = aten_ops(ops)
    numbers = minor_of(release) if release else None
    minor = "%d.%d" % numbers if numbers else None
    coverage = tuple(ReleaseCoverage(r, tuple(op for op in bases if op not in table.kernels_for(r)))
                     for r in table.releases)
    native_from = None
    for row in coverage:
        native_from = (native_from or row.release) if not row.missing else None
    own = next((row for row in coverage if row.release == minor), None)
    missing = own.missing if own is not None else ()
    everything = tuple(dict.fromkeys(op for row in coverage for op in row.missing))
    return Prediction(ops=bases, other=other, release=minor, in_table=own is not None, missing=missing,
                      coverage=coverage, native_from=native_from,
                      first_native={op: table.first_native(op) for op in everything}, table_source=table.source)
