"""The MPS kernels of each torch release (data/mps_kernels.json): which ATen operators run on MPS, and since when.

The table is read from the macOS arm64 wheels' per-operator headers by `python -m tools.refresh kernels`. An operator
runs on MPS when it has an MPS kernel, or composite kernels (written in other operators) and no CPU one: the
dispatcher runs a composite kernel on any backend without its own. Otherwise it falls back to the CPU
(PYTORCH_ENABLE_MPS_FALLBACK=1) or fails. The table names operators, not overloads: an operator counts as running on
MPS when some overload has an MPS kernel.
"""

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import FrozenSet, Optional, Tuple

from mps_doctor.versions import minor_of

DATA_FILE = Path(__file__).resolve().parent / "data" / "mps_kernels.json"
FORMAT = 1
# ATen operator and kernel names are C identifiers (torchgen/model.py).
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
# torchgen/model.py, BaseOperatorName.parse: `__iand__` is the in-place form of `__and__`; both have the root name `and`.
AUGMENTED_ASSIGNMENT_NAMES = ("add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or")


@dataclass(frozen=True)
class ReleaseKernels:
    """The ATen operators of one torch release by how they run on MPS, and the wheel they were read from."""

    release: str
    wheel: str
    sha256: Optional[str]
    mps: FrozenSet[str]
    composite: FrozenSet[str]
    mps_kernels: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()

    @property
    def native(self) -> FrozenSet[str]:
        """The operators that run on MPS: those with an MPS kernel, and those with composite kernels and no CPU one."""
        return self.mps | self.composite

    def kernels_of(self, op: str) -> Tuple[str, ...]:
        """The MPS kernels the wheel's `<op>_native.h` names for OP (none when they share their CPU name)."""
        return dict(self.mps_kernels).get(operator_name(op), ())


Table = Tuple[ReleaseKernels, ...]


def operator_name(name: str) -> str:
    """The root name of an ATen operator as a trace or an error names it ('aten::add_.Tensor', 'aten.__iand__.Scalar',
    'isin'), the stem of its per-operator headers (torchgen/model.py, BaseOperatorName.parse); '' for anything else."""
    text = name.strip()
    for prefix in ("aten::", "aten."):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = text.split(".", 1)[0]
    if not IDENTIFIER.match(text):
        return ""
    dunder = re.match(r"^__([^_]+)__\Z", text)
    if dunder:
        base = dunder.group(1)
        return base[1:] if base[:1] == "i" and base[1:] in AUGMENTED_ASSIGNMENT_NAMES else base
    if text.endswith("_"):
        return text[:-1]
    return text[:-len("_functional")] if text.endswith("_functional") and text != "_functional" else text


def names(value, where: str) -> Tuple[str, ...]:
    """VALUE, a list of identifiers; ValueError naming WHERE for anything else."""
    if not isinstance(value, list) or not all(isinstance(v, str) and IDENTIFIER.match(v) for v in value):
        raise ValueError("%s: not a list of operator names" % where)
    return tuple(value)


def parse_release(release: str, entry) -> ReleaseKernels:
    """One release of the file; ValueError when it is not one."""
    where = "%s: release %r" % (DATA_FILE.name, release)
    if not isinstance(entry, dict) or minor_of(release) is None or not isinstance(entry.get("wheel"), str):
        raise ValueError("%s: not a release entry" % where)
    kernels = entry.get("mps_kernels", {})
    if not isinstance(kernels, dict):
        raise ValueError("%s: mps_kernels is not a table" % where)
    names(list(kernels), where + " mps_kernels")
    return ReleaseKernels(
        release=release, wheel=entry["wheel"], sha256=entry.get("sha256"),
        mps=frozenset(names(entry.get("mps"), where + " mps")),
        composite=frozenset(names(entry.get("composite"), where + " composite")),
        mps_kernels=tuple((op, names(found, where + " mps_kernels")) for op, found in sorted(kernels.items())))


@functools.lru_cache(maxsize=None)
def load_kernels(path: str = str(DATA_FILE)) -> Table:
    """The table's releases, oldest first; ValueError when the file is not a kernel table of this format."""
    with open(path, encoding="utf-8") as handle:
        doc = json.load(handle)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("releases"), dict):
        raise ValueError("%s: not a format-%d MPS kernel table" % (path, FORMAT))
    rows = [parse_release(release, entry) for release, entry in doc["releases"].items()]
    return tuple(sorted(rows, key=lambda row: minor_of(row.release)))


def release_kernels(release: str, table: Optional[Table] = None) -> Optional[ReleaseKernels]:
    """The row of RELEASE ('2.9', '2.9.1+cpu') in TABLE (the shipped one by default); None when it has none."""
    key = minor_of(release)
    rows = load_kernels() if table is None else table
    return next((row for row in rows if minor_of(row.release) == key), None) if key else None


def kernels_for(release: str, table: Optional[Table] = None) -> Optional[FrozenSet[str]]:
    """The ATen operators (root names) that run on MPS in RELEASE ('2.9', '2.9.1'): an MPS kernel, or composite
    kernels and no CPU one; None when the table has no row for RELEASE."""
    row = release_kernels(release, table)
    return row.native if row else None


def first_native_release(op: str, table: Optional[Table] = None) -> Optional[str]:
    """The oldest release of the table ('2.4') from which OP runs on MPS in every newer release too; None when the
    newest release does not run it (or OP is no operator name)."""
    name = operator_name(op)
    first = None
    for row in load_kernels() if table is None else table:
        first = (first or row.release) if name and name in row.native else None
    return first
