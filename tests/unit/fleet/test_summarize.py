"""`mps-doctor summarize`: every recorded machine's report in one view, its counts from the machines' expectations;
files that are not usable reports listed with the reason, never fatal."""

import json
import os
import shutil
from collections import Counter

import pytest

from mps_doctor.checking.model import Policy
from mps_doctor.fleet.collect import read_report
from mps_doctor.fleet.summarize import ReportFile, summarize
from mps_doctor.inputs import MAX_INPUT
from mps_doctor.render.markdown import render_markdown
from mps_doctor.render.summary_markdown import render_summary_markdown
from mps_doctor.render.summary_text import STATE_WORDS
from mps_doctor.triage.engine import triage
from tests.fleet import machine_document, machine_report, write_reports
from tests.machines import MACHINES_DIR
from tests.rendered import RENDERER, live_problems

PASTED = os.path.join(os.path.dirname(MACHINES_DIR), "pasted")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """(a folder of every recorded machine's JSON report, the expectations by file name)."""
    folder = tmp_path_factory.mktemp("fleet")
    return folder, write_reports(folder)


def summary_json(cli, *args):
    result = cli("summarize", "--format", "json", *map(str, args))
    return result.exit_code, json.loads(result.stdout)


def test_counts_over_every_recorded_machine_come_from_their_expectations(cli, fleet):
    folder, expected = fleet
    code, doc = summary_json(cli, folder)
    assert code == (0 if all(e["state"] == "ready" for e in expected.values()) else 1)
    assert doc["format"] == "mps-doctor-summary" and doc["left_out"] == []
    assert [m["name"] for m in doc["machines"]] == sorted(expected)
    assert doc["states"] == dict(Counter(e["state"] for e in expected.values()))
    root_causes = Counter(e["root_cause"] for e in expected.values() if e["root_cause"])
    assert {r["id"]: r["machines"] for r in doc["root_causes"]} == dict(root_causes)
    # A layer after the first failing one is skipped and an advisory only warns: the root cause is the one failure.
    assert {c["id"]: c["failed"] for c in doc["checks"] if c["failed"]} == dict(root_causes)
    assert {c["id"]: c["warned"] for c in doc["checks"] if c["warned"]} == dict(
        Counter(w for e in expected.values() for w in e["warnings"]))
    for machine in doc["machines"]:
        expect = expected[machine["name"]]
        assert (machine["state"], machine["root_cause"], machine["device"]) == (
            expect["state"], expect["root_cause"], expect["device"])
        assert machine["ready"] == (expect["exit_code"] == 0)
    assert doc["without_policy"] == len(expected) and doc["outside_policy"] == []


def test_every_machine_that_is_not_ready_is_in_one_group_of_its_root_cause(cli, fleet):
    folder, expected = fleet
    _, doc = summary_json(cli, folder)
    grouped = [name for group in doc["groups"] for name in group["machines"]]
    assert sorted(grouped) == sorted(n for n, e in expected.items() if e["state"] != "ready")
    for group in doc["groups"]:
        assert {expected[name]["root_cause"] for name in group["machines"]} == {group["root_cause"]}
    by_name = {m["name"]: m for m in doc["machines"]}
    for name, expect in expected.items():
        command = by_name[name]["fix_command"]
        assert (command is None) == (expect["state"] == "ready")
        if command:
            assert command == "mps-doctor fix --from %s" % (folder / name)


def test_versions_seen_are_counted_from_the_reports_facts(cli, fleet):
    folder, expected = fleet
    _, doc = summary_json(cli, folder)
    facts = [json.loads((folder / name).read_text())["facts"] for name in expected]
    pythons = Counter(".".join(map(str, f["target"]["interpreter"]["version"][:3])) for f in facts)
    assert {v["version"]: v["machines"] for v in doc["versions"]["python"]} == dict(pythons)
    macs = Counter(f["host"]["macos_version"] for f in facts if f["host"]["system"] == "Darwin")
    assert {v["version"]: v["machines"] for v in doc["versions"]["macos"]} == dict(macs)
    drivers = Counter(f["host"]["nvidia_smi"]["driver_version"] for f in facts
                      if (f["host"]["nvidia_smi"] or {}).get("found"))
    assert {v["version"]: v["machines"] for v in doc["versions"]["driver"]} == dict(drivers)
    assert sum(v["machines"] for v in doc["versions"]["torch"]) == len(expected)


def test_the_text_names_every_machine_and_the_counts(cli, fleet):
    folder, expected = fleet
    result = cli("summarize", str(folder))
    states = Counter(e["state"] for e in expected.values())
    first = result.stdout.splitlines()[0]
    assert first.startswith("mps-doctor summary of %d machines: " % len(expected))
    for state, count in states.items():
        assert "%d %s" % (count, STATE_WORDS[state]) in first
    for name in expected:
        assert name in result.stdout


def test_the_markdown_is_tables_and_lists_with_nothing_live(cli, fleet):
    folder, expected = fleet
    text = cli("summarize", "--format", "markdown", str(folder)).stdout
    assert live_problems(text) == []
    html = RENDERER.render(text)
    assert html.count("<table>") == 3  # the verdicts, the checks, the machines
    for name in expected:
        assert "<code>%s</code>" % name in html
    # Each machine's home folder is redacted from what its report says.
    assert "/Users/alex" not in text and "~/proj/.venv/bin/python" in text


def test_only_ready_machines_and_a_duplicate_are_exit_0(cli, fleet, tmp_path):
    folder, expected = fleet
    ready = [name for name, e in expected.items() if e["state"] == "ready"]
    for name in ready:
        shutil.copy(str(folder / name), str(tmp_path / name))
    shutil.copy(str(folder / ready[0]), str(tmp_path / "zz-copy.json"))
    code, doc = summary_json(cli, tmp_path)
    assert code == 0 and doc["states"] == {"ready": len(ready)}
    assert [(i["name"], i["kind"]) for i in doc["left_out"]] == [("zz-copy.json", "duplicate")]


def test_files_that_are_not_usable_reports_are_listed_with_the_reason(cli, fleet, tmp_path):
    folder, expected = fleet
    name = sorted(expected)[0]
    shutil.copy(str(folder / name), str(tmp_path / "a-machine.json"))
    (tmp_path / "b-not-json.json").write_text("this is not json")
    (tmp_path / "c-list.json").write_text("[1, 2]")
    (tmp_path / "d-package.json").write_text('{"name": "left-pad"}')
    (tmp_path / "e-bench.json").write_text('{"format": "mps-doctor-bench", "schema_version": 1}')
    paste = open(os.path.join(PASTED, sorted(n for n in os.listdir(PASTED) if n.endswith(".txt"))[0])).read()
    from mps_doctor.render.commands import report_document

    (tmp_path / "f-triage.json").write_text(json.dumps(report_document(triage(paste))))
    future = dict(json.loads((folder / name).read_text()), schema_version=99)
    (tmp_path / "g-future.json").write_text(json.dumps(future))
    broken = json.loads((folder / name).read_text())
    broken["verdict"]["state"] = "fine"
    (tmp_path / "h-bad-verdict.json").write_text(json.dumps(broken))
    (tmp_path / "i-huge.json").write_bytes(b" " * (MAX_INPUT + 1))
    (tmp_path / "j-latin1.json").write_bytes(b'{"x": "\xe9"}')
    (tmp_path / "k-deep.json").write_text("[" * 100000 + "]" * 100000)
    shutil.copy(str(folder / name), str(tmp_path / "z-copy.json"))
    (tmp_path / "notes.txt").write_text("not read: a folder is searched for *.json files only")
    code, doc = summary_json(cli, tmp_path)
    assert code == 1 and [m["name"] for m in doc["machines"]] == ["a-machine.json"]
    kinds = {i["name"]: (i["kind"], i["reason"]) for i in doc["left_out"]}
    assert {n: k for n, (k, _) in kinds.items()} == {
        "b-not-json.json": "bad", "c-list.json": "foreign", "d-package.json": "foreign", "e-bench.json": "foreign",
        "f-triage.json": "triage", "g-future.json": "bad", "h-bad-verdict.json": "bad", "i-huge.json": "bad",
        "j-latin1.json": "bad", "k-deep.json": "bad", "z-copy.json": "duplicate"}
    assert kinds["g-future.json"][1].startswith("report schema_version 99 is newer")
    assert kinds["h-bad-verdict.json"][1] == 'verdict.state: "fine" is not one of ready, not-ready, timed-out, doctor-failed'
    assert kinds["z-copy.json"][1].startswith("the same report as a-machine.json")
    text = cli("summarize", str(tmp_path)).stdout
    assert "Left out:" in text and "i-huge.json" in text


def test_a_markdown_report_counts_and_a_missing_path_is_a_usage_error(cli, fleet, tmp_path):
    folder, expected = fleet
    name = sorted(expected)[0][:-len(".json")]
    pasted = tmp_path / "from-an-issue.md"
    pasted.write_text("Here is my report:\n\n" + render_markdown(machine_report(name)))
    code, doc = summary_json(cli, pasted)
    assert [m["name"] for m in doc["machines"]] == [str(pasted)] and code == expected[name + ".json"]["exit_code"]
    result = cli("summarize", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "no such file or folder" in result.stderr
    (tmp_path / "empty").mkdir()
    result = cli("summarize", str(tmp_path / "empty"))
    assert result.exit_code == 2 and "no .json file to summarize" in result.stderr


def test_ci_artifact_folders_name_the_machine_and_identical_reports_are_duplicates(cli, fleet):
    folder, expected = fleet
    doc = machine_document("m2-native-torch213")
    root = folder.parent / "artifacts"
    for job, created in (("macos-14", "2026-12-01T10:00:00+00:00"), ("macos-15", "2026-12-01T10:00:07+00:00"),
                         ("macos-15-rerun", "2026-12-01T10:00:07+00:00")):
        (root / job).mkdir(parents=True)
        (root / job / "mps-doctor-report.json").write_text(json.dumps(dict(doc, created=created)))
    code, summary = summary_json(cli, root)
    assert [m["name"] for m in summary["machines"]] == ["macos-14/mps-doctor-report.json",
                                                        "macos-15/mps-doctor-report.json"]
    assert [(i["name"], i["kind"]) for i in summary["left_out"]] == [("macos-15-rerun/mps-doctor-report.json",
                                                                     "duplicate")]
    assert code == 0


def test_machines_outside_the_team_policy_are_named_with_the_checks_they_fail():
    policy = Policy(torch=">=2.15", source="/Users/alex/proj/pyproject.toml")
    files = [ReportFile("pinned.json", "pinned.json", machine_document("m2-native-torch213", policy=policy)),
             ReportFile("free.json", "free.json", machine_document("linux-x86-cpu-torch"))]
    summary = summarize(files)
    assert [m.name for m in summary.outside_policy] == ["pinned.json"]
    assert [i for i, _ in summary.outside_policy[0].outside_policy] == ["policy.torch"]
    assert summary.without_policy == 1
    assert dict(summary.root_causes) == {"policy.torch": 1}
    text = render_summary_markdown(summary)
    assert "`pinned.json`: `policy.torch`" in text and "1 machine checked without a team policy." in text


def test_read_report_never_raises_for_what_a_file_holds(tmp_path):
    (tmp_path / "x.json").write_bytes(b"\xff\xfe{")
    assert read_report("x.json", str(tmp_path / "x.json")).problem == "not a UTF-8 text file"
    (tmp_path / "dir.json").mkdir()
    assert read_report("dir.json", str(tmp_path / "dir.json")).problem == "is a directory"
