"""The MPS kernel table (data/mps_kernels.json): per torch minor release, the ATen operators (base names, those of
the wheel's torch/include/ATen/ops/*_native.h headers) with an MPS kernel, and those with a composite kernel that
runs on any device, read from the macOS arm64 wheels by the refresh tool.

A minimal loader of that format: `kernels_for` and `first_native_release`, plus `releases`, the table's minors in
order. A missing or unreadable table is an empty one (no prediction), never an error.
"""

import functools
import json
from pathlib import Path
from typing import FrozenSet, Optional, Tuple

from packaging.version import InvalidVersion, Version

TABLE = Path(__file__).resolve().parent / "data" / "mps_kernels.json"


@functools.lru_cache(maxsize=None)
def load_table(path: str = str(TABLE)) -> dict:
    """The table document at PATH, or an empty one when it is missing or not the format."""
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError):
        return {"releases": {}}
    if not isinstance(document, dict) or not isinstance(document.get("releases"), dict):
        return {"releases": {}}
    return document


def release_key(release: str) -> Tuple[int, ...]:
    try:
        return Version(release).release
    except InvalidVersion:
        return (0,)


def releases(path: str = str(TABLE)) -> Tuple[str, ...]:
    """The table's torch minors ('2.9'), oldest first."""
    return tuple(sorted(load_table(path)["releases"], key=release_key))


def kernels_for(release: str, path: str = str(TABLE)) -> FrozenSet[str]:
    """The ATen base names with an MPS or a composite kernel in torch RELEASE ('2.9'); empty when not in the table."""
    row = load_table(path)["releases"].get(release) or {}
    return frozenset(row.get("mps") or ()) | frozenset(row.get("composite") or ())


def first_native_release(op: str, path: str = str(TABLE)) -> Optional[str]:
    """The first release of the table from which OP (a base name) has an MPS or composite kernel in every later one."""
    found = None
    for release in releases(path):
        if op in kernels_for(release, path):
            found = found or release
        else:
            found = None
    return found
