"""`summarize --format json`: the summary as a versioned document (docs/report-format.md, "The summary document")."""

import json
from typing import Any, Dict

from mps_doctor import __version__
from mps_doctor.fleet.summarize import Machine, Summary
from mps_doctor.render.summary_text import fix_command

FORMAT = "mps-doctor-summary"
SCHEMA_VERSION = 1


def machine_document(machine: Machine) -> Dict[str, Any]:
    """One machine: what its report recorded, and the command that prints its fix plan (home and user left out)."""
    return {"name": machine.name, "file": machine.path, "state": machine.state, "ready": machine.ready,
            "device": machine.device, "root_cause": machine.root_cause, "problem": machine.problem,
            "fix": {"key": machine.fix_key, "title": machine.fix_title} if machine.fix_title is not None else None,
            "fix_command": None if machine.ready else fix_command(machine), "created": machine.created,
            "os": machine.os, "versions": dict(machine.versions), "failing": list(machine.failing),
            "warnings": list(machine.warnings),
            "outside_policy": [{"id": i, "summary": s} for i, s in machine.outside_policy],
            "policy": machine.has_policy}


def summary_document(summary: Summary) -> Dict[str, Any]:
    """The whole summary as JSON-ready values."""
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "mps-doctor", "version": __version__},
        "states": dict(summary.states),
        "root_causes": [{"id": i, "machines": n} for i, n in summary.root_causes],
        "checks": [{"id": i, "failed": f, "warned": w} for i, f, w in summary.checks],
        "versions": {label: [{"version": v, "machines": n} for v, n in counts] for label, counts in summary.versions},
        "outside_policy": [m.name for m in summary.outside_policy],
        "without_policy": summary.without_policy,
        "groups": [{"root_cause": g.root_cause, "fix_keys": list(g.fix_keys), "title": g.title,
                    "machines": [m.name for m in g.machines]} for g in summary.groups],
        "machines": [machine_document(m) for m in summary.machines],
        "left_out": [{"name": item.name, "kind": item.kind, "reason": item.reason} for item in summary.left_out],
    }


def render_summary_json(summary: Summary) -> str:
    """The summary document, indented, ending with a newline."""
    return json.dumps(summary_document(summary), indent=2) + "\n"
