"""The recorded machines' reports, as `check` makes them, for the tests of the team outputs (summarize, JUnit,
Prometheus, GitHub Actions)."""

import json

from mps_doctor.checking.model import Options, Policy
from mps_doctor.render.commands import report_document
from mps_doctor.report import Report, check_results, created_now, make_verdict, run_checks
from tests.machines import load_machine, machine_names, replay_facts


def machine_report(name, policy=None, strict=False, evaluate=None):
    """The Report of `check` on the recorded machine NAME, with POLICY and STRICT (EVALUATE replaces how a check
    runs, as report.run_checks allows)."""
    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    options = Options(device=device, requested_device=device, policy=policy or Policy(), strict=strict)
    facts = replay_facts(machine)
    if evaluate is None:
        return run_checks(facts, options)
    options, results, root = check_results(facts, options, evaluate)
    return Report(facts, options, results, make_verdict(results, options.device, root, options), created=created_now())


def machine_document(name, **options):
    """The JSON report (`check --format json`) of the recorded machine NAME, as parsed JSON."""
    return json.loads(json.dumps(report_document(machine_report(name, **options))))


def write_reports(folder, names=None):
    """The JSON report of each recorded machine (or of NAMES) as FOLDER/NAME.json; the expectations by file name."""
    folder.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name in names or machine_names():
        (folder / (name + ".json")).write_text(json.dumps(machine_document(name), indent=1))
        expected[name + ".json"] = load_machine(name)["expect"]
    return expected
