"""`check --format prometheus`: the report as gauges in Prometheus' text exposition format (version 0.0.4), for
node_exporter's textfile collector (a *.prom file in its --collector.textfile.directory, written atomically with
--output). Sources: https://prometheus.io/docs/instrumenting/exposition_formats/ (escaping of label values and
HELP text) and https://github.com/prometheus/node_exporter#textfile-collector (atomic writes).

Each state and status is one series whose value is 1 for the one that holds and 0 for the others (as node_exporter's
systemd collector does for unit states), so an alert reads `mps_doctor_check_status{status="fail"} == 1`.
"""

import datetime
from typing import Iterable, List, Optional, Tuple

from mps_doctor.checking.model import Status
from mps_doctor.fleet.summarize import STATES, versions_of
from mps_doctor.render.junit import kind_of
from mps_doctor.render.safe import visible
from mps_doctor.report import Report

STATUSES = tuple(status.value for status in Status)
Labels = Tuple[Tuple[str, str], ...]


def label_value(value) -> str:
    """VALUE as a label value: control characters shown as escapes, then backslash, double quote and line feed
    escaped as the exposition format requires."""
    return visible(str(value)).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def sample(name: str, labels: Labels, value) -> str:
    """One sample line: NAME{LABELS} VALUE."""
    inside = ",".join('%s="%s"' % (key, label_value(text)) for key, text in labels)
    return "%s%s %s" % (name, "{%s}" % inside if inside else "", value)


def family(name: str, help_text: str, samples: Iterable[Tuple[Labels, object]]) -> List[str]:
    """The HELP and TYPE lines of the gauge NAME and its samples; nothing when there is no sample."""
    lines = [sample(name, labels, value) for labels, value in samples]
    return ["# HELP %s %s" % (name, help_text), "# TYPE %s gauge" % name] + lines if lines else []


def timestamp(created: str) -> Optional[int]:
    """The Unix time of the report's `created` (ISO 8601; UTC when it names no zone), None when it is not one."""
    try:
        moment = datetime.datetime.fromisoformat(created)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp())


def render_prometheus(report: Report) -> str:
    """The report's verdict, check statuses, versions and time as gauges."""
    verdict = report.verdict
    info = (("version", report.tool_version), ("device", report.options.device),
            ("requested_device", report.options.requested_device), ("system", report.facts.host.system)) + tuple(
        (label if label != "driver" else "nvidia_driver", value or "unknown") for label, value in versions_of(report.facts))
    lines = family("mps_doctor_ready", "1 when the last check was ready (exit code 0), else 0.", [((), int(verdict.ready))])
    lines += family("mps_doctor_exit_code", "The exit code of the last check (0 ready, 1 not ready, 3 a check crashed).",
                    [((), report.exit_code())])
    lines += family("mps_doctor_verdict", "The verdict of the last check: 1 for its state, 0 for the others.",
                    [((("state", state),), int(verdict.state == state)) for state in STATES])
    lines += family("mps_doctor_root_cause", "The check that is the root cause of the last check's verdict (absent "
                    "when there is none).", [((("check", verdict.root_cause),), 1)] if verdict.root_cause else [])
    lines += family("mps_doctor_check_status", "Each check of the last check: 1 for its status, 0 for the others.",
                    [((("check", r.id), ("layer_kind", kind_of(r)), ("status", status)), int(r.status.value == status))
                     for r in report.results for status in STATUSES])
    lines += family("mps_doctor_info", "What the last check saw, as labels (unknown when the report does not say); "
                    "always 1.", [(info, 1)])
    created = timestamp(report.created)
    lines += family("mps_doctor_report_timestamp_seconds", "When the last check's report was made, in Unix time.",
                    [((), created)] if created is not None else [])
    return "\n".join(lines) + "\n"
