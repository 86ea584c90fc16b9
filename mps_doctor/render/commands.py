"""What reports show of each remedy: the fix plan's own commands for that result, spelled for a shell."""

from typing import Any, Dict, Optional, Tuple

from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.script import spell
from mps_doctor.report import Report, report_to_dict


def remedy_commands(report: Report, shell: Optional[str] = None,
                    doctor: Optional[Tuple[str, ...]] = None) -> Dict[str, Tuple[str, ...]]:
    """{result id: the commands of the fix plan's steps that fix it}, spelled for SHELL (default: the user's), so that
    `check` shows exactly what `fix` prints; DOCTOR is how those commands start mps-doctor (see build_plan)."""
    plan = build_plan(report, shell=shell, doctor=doctor)
    return {result.id: tuple(spell(command, plan.shell) for step in plan.steps_fixing(result.id)
                             for command in step.commands)
            for result in report.results}


def report_document(report: Report, doctor: Optional[Tuple[str, ...]] = None) -> Dict[str, Any]:
    """The JSON report (docs/report-format.md), each remedy with its commands for a POSIX shell (bash)."""
    return report_to_dict(report, remedy_commands(report, "bash", doctor))
