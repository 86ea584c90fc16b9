"""`check --format junit`: the report as a JUnit XML test report, which GitLab, Jenkins, Buildkite and GitHub's
test-report actions read.

The dialect is the Jenkins xUnit plugin's junit-10.xsd (https://github.com/jenkinsci/xunit-plugin, src/main/resources/
org/jenkinsci/plugins/xunit/types/model/xsd/junit-10.xsd), the schema pytest's --junitxml follows: `testsuites` holds
one `testsuite` of one `testcase` per check (classname `mps-doctor.DEVICE.KIND`, KIND layer, advisory or policy)
and one `verdict` case that fails exactly when `check` exits non-zero. Every value from outside is text that XML 1.0
can hold: control characters are shown as escapes (render/safe.py), never written.
"""

import re
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional, Tuple

from mps_doctor.checking.model import CheckResult, Status
from mps_doctor.checking.registry import REGISTRY, all_checks
from mps_doctor.fleet.summarize import versions_of
from mps_doctor.render.commands import remedy_commands
from mps_doctor.render.safe import escape_char, visible
from mps_doctor.render.triage import SCRIPT_DIRECTIVE
from mps_doctor.report import Report

# Beyond the controls that visible() escapes, the two characters XML 1.0's Char production leaves out (section 2.2).
NOT_XML = re.compile("[\ufffe\uffff]")
# The outcome element and its type for each status; a warning is a failure only when warnings count (--strict).
OUTCOMES = {Status.FAIL: ("failure", "fail"), Status.TIMEOUT: ("error", "timeout"), Status.ERROR: ("error", "error"),
            Status.SKIP: ("skipped", None)}
VERDICT_OUTCOMES = {"not-ready": "failure", "timed-out": "error", "doctor-failed": "error"}


def xml_text(value) -> str:
    """VALUE as text that XML 1.0 can hold, every control character shown as an escape."""
    return NOT_XML.sub(lambda m: escape_char(m.group()), visible(str(value)))


def kind_of(result: CheckResult) -> str:
    """layer, advisory or policy: the check's kind in the registry."""
    all_checks()
    spec = REGISTRY.get(result.id)
    return spec.kind if spec is not None else "layer" if result.layer is not None else "advisory"


def seconds_of(report: Report, result: CheckResult) -> float:
    """The seconds the report knows RESULT's check took: the import's, for the layer that judges torch's import (its
    facts name `torch.installed`) when it ran; 0 for the others."""
    all_checks()
    spec = REGISTRY.get(result.id)
    torch = report.facts.target.torch
    judges_import = spec is not None and any("torch.installed" in fact.split("|") for fact in spec.facts)
    if judges_import and result.status != Status.SKIP and torch is not None and torch.import_seconds:
        return max(0.0, float(torch.import_seconds))
    return 0.0


def readable(commands: Tuple[str, ...]) -> List[str]:
    """COMMANDS without the lines meant for the tools that check a saved script (`# shellcheck ...`)."""
    return [command for command in commands if not command.startswith(SCRIPT_DIRECTIVE)]


def remedy_text(result: CheckResult, commands: Tuple[str, ...]) -> str:
    """What a failure's body says: the problem, why it matters, the commands that fix it (bash) and the link."""
    remedy = result.remedy
    lines = [result.summary]
    if remedy is not None:
        lines += ["", remedy.problem, remedy.why]
        shown = readable(commands)
        if shown:
            lines += ["", "Commands that fix it (bash; `mps-doctor fix` prints them for your shell):"] + shown
        if remedy.link:
            lines += ["", "See %s" % remedy.link]
    lines += list(result.details)
    return "\n".join(lines)


def testcase(report: Report, result: CheckResult, commands: Tuple[str, ...]) -> Tuple[ET.Element, Optional[str], float]:
    """(the testcase of RESULT, its outcome element's name or None for a pass, its seconds)."""
    time = seconds_of(report, result)
    case = ET.Element("testcase", name=xml_text(result.id), time="%.3f" % time,
                      classname="mps-doctor.%s.%s" % (xml_text(report.options.device), kind_of(result)))
    outcome = OUTCOMES.get(result.status)
    if result.status == Status.WARN and not result.accepted and report.options.strict_warnings:
        outcome = ("failure", "warning")
    if outcome is None:
        note = "warning%s: " % (" (accepted: %s)" % result.accepted if result.accepted else "") \
            if result.status == Status.WARN else ""
        body = remedy_text(result, commands) if result.status == Status.WARN else result.summary
        ET.SubElement(case, "system-out").text = xml_text(note + body)
        return case, None, time
    element, kind = outcome
    child = ET.SubElement(case, element, message=xml_text(result.summary))
    if kind is not None:
        child.set("type", kind)
        child.text = xml_text(remedy_text(result, commands))
    return case, element, time


def verdict_case(report: Report) -> Tuple[ET.Element, Optional[str]]:
    """The `verdict` testcase: it fails (or errs) exactly when check's exit code is not 0."""
    verdict = report.verdict
    case = ET.Element("testcase", name="verdict", time="0.000",
                      classname="mps-doctor.%s.verdict" % xml_text(report.options.device))
    element = VERDICT_OUTCOMES.get(verdict.state) if not verdict.ready else None
    if element is None:
        ET.SubElement(case, "system-out").text = xml_text(verdict.summary)
    else:
        ET.SubElement(case, element, message=xml_text(verdict.summary), type=verdict.state).text = xml_text(
            "root cause: %s" % (verdict.root_cause or "none"))
    return case, element


def properties(report: Report) -> List[Tuple[str, str]]:
    """The suite's properties: the tool, the device, the verdict and the versions the report saw."""
    rows = [("mps-doctor", report.tool_version), ("device", report.options.device),
            ("requested_device", report.options.requested_device), ("verdict", report.verdict.state),
            ("root_cause", report.verdict.root_cause or "")]
    return rows + [(label, value or "unknown") for label, value in versions_of(report.facts)]


def indented(element: ET.Element, level: int = 0) -> None:
    """Indent ELEMENT's children by two spaces a level (ElementTree.indent is Python 3.9+)."""
    children = list(element)
    if not children:
        return
    if not (element.text or "").strip():
        element.text = "\n" + "  " * (level + 1)
    for child in children:
        indented(child, level + 1)
        child.tail = "\n" + "  " * (level + 1)
    children[-1].tail = "\n" + "  " * level


def render_junit(report: Report) -> str:
    """The report as a JUnit XML document: counts and time of the suite agree with its cases."""
    commands: Dict[str, Tuple[str, ...]] = remedy_commands(report, "bash")
    suite = ET.Element("testsuite", name="mps-doctor check (%s)" % xml_text(report.options.device))
    props = ET.SubElement(suite, "properties")
    for name, value in properties(report):
        ET.SubElement(props, "property", name=name, value=xml_text(value))
    outcomes, total = [], 0.0
    for result in report.results:
        case, outcome, time = testcase(report, result, commands.get(result.id, ()))
        suite.append(case)
        outcomes.append(outcome)
        total += round(time, 3)
    case, outcome = verdict_case(report)
    suite.append(case)
    outcomes.append(outcome)
    counts = {name: str(outcomes.count(element)) for name, element in
              (("failures", "failure"), ("errors", "error"), ("skipped", "skipped"))}
    suite.attrib.update(dict(tests=str(len(outcomes)), time="%.3f" % total, **counts))
    if report.created:
        suite.set("timestamp", xml_text(report.created))
    suites = ET.Element("testsuites", name="mps-doctor", tests=str(len(outcomes)), failures=counts["failures"],
                        errors=counts["errors"], time="%.3f" % total)
    suites.append(suite)
    indented(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
