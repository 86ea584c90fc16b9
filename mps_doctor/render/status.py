"""The fleet status: a report in one flat dictionary of one-line strings and integers, as an XML property list.

osquery's `plist` table reads it with a stock query (install/mdm/README.md), and the MDM and cluster scripts of install/
read its `state`, `summary` and root cause in POSIX sh. Flat and one line per value on purpose: osquery turns nested
keys into `subkey` paths, and a line-oriented reader needs each value on the line after its key.
"""

import plistlib
import re
from typing import Any, Dict, Mapping

from mps_doctor.render.safe import escape_char, escaped_line
from mps_doctor.words import shorten

STATUS_FORMAT = "mps-doctor-status"
# Additive changes (new keys) keep the number; a key that changes meaning raises it.
STATUS_VERSION = 1
# A value longer than this is cut at a word: a status is a summary, the JSON report has the rest.
MAX_VALUE = 400
FAILING = ("fail", "error", "timeout")
# The two noncharacters that escaped_line() keeps and XML 1.0 forbids (its Char production).
NOT_XML = re.compile("[\ufffe\uffff]")


def status_fields(doc: Mapping[str, Any], exit_code: int) -> Dict[str, Any]:
    """The status of the report document DOC (docs/report-format.md) that exited with EXIT_CODE."""
    verdict = doc["verdict"]
    results = doc.get("results") or []
    root = next((r for r in results if r.get("id") == verdict.get("root_cause")), None)
    facts = doc.get("facts") or {}
    host = facts.get("host") or {}
    target = facts.get("target") or {}
    interpreter = target.get("interpreter") or {}
    torch = target.get("torch") or {}
    counts = verdict.get("counts") or {}
    fields = {
        "format": STATUS_FORMAT,
        "status_version": STATUS_VERSION,
        "doctor_version": (doc.get("tool") or {}).get("version"),
        "checked_at": doc.get("created"),
        "state": verdict.get("state"),
        "exit_code": exit_code,
        "summary": verdict.get("summary"),
        "root_cause": verdict.get("root_cause"),
        "root_cause_summary": root.get("summary") if root else None,
        "failed": ",".join(r["id"] for r in results if r.get("status") in FAILING),
        "warned": ",".join(r["id"] for r in results if r.get("status") == "warn" and not r.get("accepted")),
        "passed_count": counts.get("pass", 0),
        "warned_count": counts.get("warn", 0),
        "failed_count": sum(counts.get(status, 0) for status in FAILING),
        "device": (doc.get("options") or {}).get("device"),
        "python": target.get("python"),
        "python_version": ".".join(str(part) for part in interpreter.get("version") or ()),
        "torch_version": torch.get("version"),
        "system": host.get("system"),
        "macos_version": host.get("macos_version"),
        "nvidia_driver": (host.get("nvidia_smi") or {}).get("driver_version"),
        "user": host.get("user"),
    }
    return {key: plain(value) for key, value in fields.items()}


def plain(value: Any) -> Any:
    """VALUE as a status value: an integer stays one, None is the empty string (a plist has no null), anything else
    one safe line of at most MAX_VALUE characters (a plist string cannot hold control characters)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = escaped_line("" if value is None else str(value))
    return shorten(NOT_XML.sub(lambda m: escape_char(m.group()), text), MAX_VALUE)


def status_plist(doc: Mapping[str, Any], exit_code: int) -> str:
    """The status of DOC as an XML property list, keys sorted, one `<key>` line then one value line each."""
    return plistlib.dumps(status_fields(doc, exit_code), fmt=plistlib.FMT_XML, sort_keys=True).decode("utf-8")
