"""Team policy: what "ready" means for a project, read from `[tool.mps-doctor]` in its pyproject.toml.

Every value is validated; an unknown key, a wrong type, a missing reason or a specifier that does not parse (or has an
empty clause, which packaging would drop) is a PolicyError naming the key (exit 2), never silently ignored.
"""

import os
import sys
from typing import Any, Dict, Optional, Tuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from mps_doctor.checking.model import Policy
from mps_doctor.checking.registry import REGISTRY, all_checks
from mps_doctor.devices import DEVICES
from mps_doctor.errors import UsageError
from mps_doctor.versions import is_number

TABLE = "tool.mps-doctor"
SPECIFIER_KEYS = ("torch", "torchvision", "python")
KNOWN_KEYS = ("device", "torch", "torchvision", "python", "min-macos", "skip", "accept", "strict")


class PolicyError(UsageError):
    """A policy file that cannot be read or does not validate (exit 2)."""


def read_toml(path: str) -> Dict[str, Any]:
    """Parse a TOML file with tomllib (3.11+) or its backport tomli (3.8 to 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib  # novermin (3.11+ only; tomli below)
    else:  # pragma: no cover - exercised on Python 3.8 to 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise PolicyError("%s: no such file" % path)
    except IsADirectoryError:
        raise PolicyError("%s: is a directory" % path)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyError("%s: not valid TOML (%s)" % (path, exc))
    except RecursionError:
        raise PolicyError("%s: not valid TOML (nested too deeply)" % path)
    except OSError as exc:
        raise PolicyError("%s: %s" % (path, exc.strerror or exc))


def find_pyproject(start: str) -> Optional[str]:
    """The nearest pyproject.toml with a [tool.mps-doctor] table at START or above it; the search stops at the
    repository's root (the first folder holding .git) or the filesystem's root."""
    folder = os.path.abspath(start)
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate) and policy_table(read_toml(candidate)) is not None:
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder or os.path.exists(os.path.join(folder, ".git")):
            return None
        folder = parent


def policy_table(document: Dict[str, Any]) -> Any:
    """The [tool.mps-doctor] table of a parsed pyproject.toml, or None."""
    tool = document.get("tool")
    return tool.get("mps-doctor") if isinstance(tool, dict) else None


def working_directory() -> str:
    """The working directory; a deleted one is a usage error (the policy search starts there)."""
    try:
        return os.getcwd()
    except OSError:
        raise UsageError("the working directory no longer exists; cd to an existing folder and run again")


def load_policy(config: Optional[str] = None, cwd: Optional[str] = None) -> Policy:
    """The policy of --config FILE, else of the nearest pyproject.toml with a [tool.mps-doctor] table, else none."""
    path = config or find_pyproject(cwd or working_directory())
    if path is None:
        return Policy()
    table = policy_table(read_toml(path))
    if table is None:
        raise PolicyError("%s: has no [%s] table" % (path, TABLE))
    return policy_from_table(table, path)


def policy_file(policy: Policy) -> Optional[str]:
    """The absolute path of the file that load_policy read POLICY from (its source), None when there was none; for
    the commands that run the check again from any folder (`--config FILE`)."""
    return os.path.abspath(policy.source) if policy.source else None


def policy_from_table(table: Any, source: str = "pyproject.toml") -> Policy:
    """Validate one [tool.mps-doctor] table."""
    where = "%s [%s]" % (source, TABLE)
    if not isinstance(table, dict):
        raise PolicyError("%s: must be a table" % where)
    unknown = sorted(k for k in table if k not in KNOWN_KEYS)
    if unknown:
        raise PolicyError("%s: unknown key %r (known: %s)" % (where, unknown[0], ", ".join(KNOWN_KEYS)))
    values: Dict[str, Any] = {}
    origins = []
    if "device" in table:
        values["devices"] = devices_of(table["device"], where)
    for key in SPECIFIER_KEYS:
        if key in table:
            values[key] = specifier_of(table[key], "%s.%s" % (where, key))
    if "min-macos" in table:
        values["min_macos"] = macos_of(table["min-macos"], where + ".min-macos")
    for key in ("skip", "accept"):
        if key in table:
            values[key] = entries_of(table[key], "%s.%s" % (where, key))
    if "strict" in table:
        if not isinstance(table["strict"], bool):
            raise PolicyError("%s.strict: must be true or false, not %r" % (where, table["strict"]))
        values["strict"] = table["strict"]
    origins = tuple((key, "%s.%s" % (where, key)) for key in KNOWN_KEYS if key in table)
    return Policy(source=source, origins=origins, **values)


def devices_of(value: Any, where: str) -> Tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(d, str) for d in items):
        raise PolicyError("%s.device: must be one of %s or a non-empty list of them" % (where, ", ".join(DEVICES)))
    bad = [d for d in items if d not in DEVICES]
    if bad:
        raise PolicyError("%s.device: %r is not one of %s" % (where, bad[0], ", ".join(DEVICES)))
    return tuple(dict.fromkeys(items))


def specifier_of(value: Any, where: str) -> str:
    """VALUE when it is a PEP 440 specifier whose every clause names a version. packaging's SpecifierSet drops empty
    clauses, so "," or ">=2.9,," would parse (the first to a set that admits every version) and a typo would loosen
    the gate; an operator with nothing after it ("===", which packaging 26.2 still read) is refused here too."""
    example = "for example \">=2.9,<2.15\""
    if not isinstance(value, str) or not value.strip():
        raise PolicyError("%s: must be a PEP 440 specifier string such as \">=2.9,<2.15\"" % where)
    if any(not clause.strip() for clause in value.split(",")):
        raise PolicyError("%s: %r is not a PEP 440 specifier: it has an empty clause (a comma with nothing before or "
                          "after it), which packaging would drop (%s)" % (where, value, example))
    try:
        specifiers = list(SpecifierSet(value))
    except InvalidSpecifier:
        raise PolicyError("%s: %r is not a PEP 440 specifier (%s)" % (where, value, example))
    bare = [s.operator for s in specifiers if not str(s.version).strip()]
    if bare or not specifiers:
        raise PolicyError("%s: %r is not a PEP 440 specifier: %s (%s)" % (
            where, value, "%r has no version after it" % bare[0] if bare else "it names no version", example))
    return value


def macos_of(value: Any, where: str) -> str:
    text = value if isinstance(value, str) else None
    if text is None or not all(is_number(part) for part in text.split(".")) or not text:
        raise PolicyError("%s: must be a macOS version string such as \"14.0\"" % where)
    return text


def entries_of(value: Any, where: str) -> Tuple[Tuple[str, str], ...]:
    all_checks()
    if not isinstance(value, list):
        raise PolicyError("%s: must be a list of {id = \"...\", reason = \"...\"} tables" % where)
    entries = []
    for index, entry in enumerate(value):
        at = "%s[%d]" % (where, index)
        if not isinstance(entry, dict):
            raise PolicyError("%s: must be a table {id = \"...\", reason = \"...\"}" % at)
        extra = sorted(k for k in entry if k not in ("id", "reason"))
        if extra:
            raise PolicyError("%s: unknown key %r (known: id, reason)" % (at, extra[0]))
        check_id, reason = entry.get("id"), entry.get("reason")
        if not isinstance(check_id, str) or check_id not in REGISTRY:
            raise PolicyError("%s.id: %r is not a check id (see mps-doctor list-checks)" % (at, check_id))
        if not isinstance(reason, str) or not reason.strip():
            raise PolicyError("%s.reason: a non-empty reason is required" % at)
        entries.append((check_id, reason.strip()))
    return tuple(entries)


def policy_to_dict(policy: Policy) -> Dict[str, Any]:
    """The policy as stored in a report's options (so that --from replays it)."""
    return {"devices": list(policy.devices), "torch": policy.torch, "torchvision": policy.torchvision,
            "python": policy.python, "min_macos": policy.min_macos,
            "skip": [{"id": i, "reason": r} for i, r in policy.skip],
            "accept": [{"id": i, "reason": r} for i, r in policy.accept], "strict": policy.strict,
            "source": policy.source}


def policy_from_dict(data: Any) -> Policy:
    """A policy saved in a report; validated like a file."""
    if data is None:
        return Policy()
    if not isinstance(data, dict):
        raise PolicyError("report options.policy: must be an object")
    table = {}
    if data.get("devices"):
        table["device"] = data["devices"]
    for key in SPECIFIER_KEYS:
        if data.get(key) is not None:
            table[key] = data[key]
    if data.get("min_macos") is not None:
        table["min-macos"] = data["min_macos"]
    for key in ("skip", "accept"):
        if data.get(key):
            table[key] = data[key]
    if data.get("strict") is not None:
        table["strict"] = data["strict"]
    source = data.get("source") if isinstance(data.get("source"), str) else "report"
    return policy_from_table(table, source)
