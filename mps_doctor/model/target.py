"""TARGET of `mps-doctor model`: what the argument names, checked before anything runs.

`path/to/file.py:factory`, `package.module:factory` (the module importable from the working directory or the
target Python's path), or a built-in. The TARGET is code the user chose to run: it is only ever taken from the
command line, never from a saved report or pasted text.
"""

import os
import re
from dataclasses import dataclass
from typing import Dict, Optional

from mps_doctor.child.mpsd_builtins import DEFAULT_BATCH, NAMES
from mps_doctor.errors import UsageError

# A dotted Python name: what `importlib.import_module` and attribute access accept (ASCII identifiers only, so that
# no look-alike character names a module the user did not mean).
DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
BUILTIN_HELP = ", ".join(NAMES)


@dataclass(frozen=True)
class TargetSpec:
    """A checked TARGET: a built-in NAME, a FILE and its FACTORY, or a MODULE and its FACTORY."""

    text: str
    kind: str  # builtin | file | module
    name: Optional[str] = None
    path: Optional[str] = None
    module: Optional[str] = None
    factory: Optional[str] = None

    @property
    def default_batch(self) -> Optional[int]:
        """The batch a built-in uses when --batch is not given; None for the user's factories (their own choice)."""
        return DEFAULT_BATCH.get(self.name) if self.kind == "builtin" else None

    def child_options(self) -> Dict[str, str]:
        """The TARGET as the child (child/mpsd_model.py load_factory) reads it."""
        if self.kind == "builtin":
            return {"kind": "builtin", "name": self.name}
        if self.kind == "file":
            return {"kind": "file", "path": self.path, "factory": self.factory}
        return {"kind": "module", "module": self.module, "factory": self.factory}


def parse_target(text: str, cwd: Optional[str] = None) -> TargetSpec:
    """TEXT as a TargetSpec; a UsageError (exit 2) naming what is wrong. A file is resolved against CWD."""
    if text in NAMES:
        return TargetSpec(text=text, kind="builtin", name=text)
    location, sep, factory = text.rpartition(":")
    if not sep or not location:
        raise UsageError("TARGET %s: expected path/to/file.py:factory, package.module:factory or a built-in (%s)"
                         % (text, BUILTIN_HELP))
    if not DOTTED.match(factory):
        raise UsageError("TARGET %s: %r is not a Python name of a factory function" % (text, factory))
    if location.endswith(".py") or os.sep in location or "/" in location:
        path = os.path.join(cwd or os.getcwd(), os.path.expanduser(location))
        if not location.endswith(".py"):
            raise UsageError("TARGET %s: %s is not a .py file" % (text, location))
        if not os.path.isfile(path):
            raise UsageError("TARGET %s: no such file %s" % (text, location))
        return TargetSpec(text=text, kind="file", path=os.path.abspath(path), factory=factory)
    if location in ("torchvision", "mps-doctor"):
        raise UsageError("TARGET %s: not a built-in; the built-ins are %s" % (text, BUILTIN_HELP))
    if not DOTTED.match(location):
        raise UsageError("TARGET %s: %r is neither a .py file nor a dotted module name" % (text, location))
    return TargetSpec(text=text, kind="module", module=location, factory=factory)
