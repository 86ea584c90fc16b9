"""The diagnosis library: one DiagnosisRequest in, one Report out, as `check`, `fix` and `policy init` use it."""

import dataclasses
import json
import os

import pytest

from mps_doctor.diagnosis import DiagnosisRequest, diagnose
from mps_doctor.errors import ReportFormatError, UsageError
from tests.paths import ROOT_DIR

EXAMPLES = os.path.join(ROOT_DIR, "docs", "examples")
ROSETTA = os.path.join(EXAMPLES, "mac-rosetta.json")


def saved_copy(tmp_path, **options):
    """mac-rosetta.json with OPTIONS replaced in its saved options: the path of the copy."""
    with open(ROSETTA, encoding="utf-8") as handle:
        doc = json.load(handle)
    doc["options"].update(options)
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_the_request_is_frozen():
    request = DiagnosisRequest(device="cpu")
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.device = "mps"


def test_a_replay_without_device_or_quick_takes_the_saved_reports(tmp_path):
    path = saved_copy(tmp_path, requested_device="mps", quick=True)
    report = diagnose(DiagnosisRequest(from_report=path))
    assert report.options.requested_device == "mps"
    assert report.options.quick is True
    assert report.options.replayed_from == path


def test_a_replay_with_quick_given_keeps_it_over_the_saved_one(tmp_path):
    path = saved_copy(tmp_path, quick=False)
    assert diagnose(DiagnosisRequest(from_report=path, quick=True)).options.quick is True
    assert diagnose(DiagnosisRequest(from_report=path)).options.quick is False


def test_a_replay_for_a_device_the_report_never_probed_is_a_usage_error():
    with pytest.raises(UsageError, match="this report's device work was probed for mps"):
        diagnose(DiagnosisRequest(from_report=ROSETTA, device="cuda"))


def test_a_replay_with_a_python_is_a_usage_error():
    with pytest.raises(UsageError, match="--from and --python cannot be combined"):
        diagnose(DiagnosisRequest(from_report=ROSETTA, python="/usr/bin/python3"))


@pytest.mark.parametrize("field", ["select_ids", "skip_ids"])
def test_an_unknown_check_id_is_a_usage_error(field):
    with pytest.raises(UsageError, match="no.such: not a check id"):
        diagnose(DiagnosisRequest(from_report=ROSETTA, **{field: ("no.such",)}))


def test_a_missing_saved_report_is_a_report_format_error(tmp_path):
    with pytest.raises(ReportFormatError, match="--from %s: no such file" % (tmp_path / "gone.json")):
        diagnose(DiagnosisRequest(from_report=str(tmp_path / "gone.json")))


def test_skips_from_the_request_join_the_policy():
    report = diagnose(DiagnosisRequest(from_report=ROSETTA, skip_ids=("torch.companions",)))
    assert ("torch.companions", "--skip on the command line") in report.options.policy.skip


def test_check_builds_the_same_request(cli, tmp_path):
    path = saved_copy(tmp_path, requested_device="mps", quick=True)
    library = diagnose(DiagnosisRequest(from_report=path))
    done = cli("check", "--from", path, "--format", "json")
    doc = json.loads(done.output)
    assert done.exit_code == library.exit_code()
    assert doc["verdict"]["root_cause"] == library.verdict.root_cause
    assert (doc["options"]["requested_device"], doc["options"]["quick"]) == ("mps", True)
