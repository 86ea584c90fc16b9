"""A fact the paste states is never contradicted by the verdict or the reply (issue 20, item 5): a property over the
corpus and over small synthetic pastes."""

import re

import pytest

from mps_doctor.checking.model import Status
from mps_doctor.errors import UsageError
from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import triage
from mps_doctor.triage.paste import read_paste
from tests.unit.triage.test_engine import CORPUS


def stated(paste, path):
    """The value the paste states for PATH (a parser read it from the text; derived facts are not statements)."""
    known = paste.known.get(path)
    return None if known is None or known.parser == "derived" else known.value


def failed(report, check_id):
    result = report.result(check_id)
    return result is not None and result.status == Status.FAIL


def passed(report, check_id):
    result = report.result(check_id)
    return result is not None and result.status == Status.PASS


def contradictions(text, title=None):
    """What the verdict or the reply of TEXT (under the issue's TITLE) says against a fact TEXT states."""
    paste = read_paste(text)
    report = triage(text, title=title)
    reply = render_triage(report, "markdown")
    summaries = " | ".join(r.summary for r in report.results) + " | " + report.verdict.summary
    found = []
    for flag, check_id in (("torch.cuda_available", "cuda.available"), ("torch.mps_available", "torch.mps-available")):
        value = stated(paste, flag)
        if value is True and (failed(report, check_id) or re.search(flag.split(".")[1].split("_")[0] +
                                                                   r"\S*is_available\(\) is False", summaries)):
            found.append("%s is True in the paste, the report says False" % flag)
        if value is False and passed(report, check_id):
            found.append("%s is False in the paste, %s passes" % (flag, check_id))
    if stated(paste, "torch.version") and paste.known["torch.version"].parser in ("collect_env", "session") \
            and failed(report, "torch.import"):
        found.append("the paste shows torch %s imported, torch.import fails" % stated(paste, "torch.version"))
    if (stated(paste, "nvidia_smi.gpu") or stated(paste, "nvidia_smi.driver_version")) and \
            re.search(r"no NVIDIA (?:GPU|driver)", summaries):
        found.append("the paste shows an NVIDIA driver or GPU, the report says there is none")
    cuda = stated(paste, "torch.cuda_version")
    for built in re.findall(r"built for CUDA (\d+\.\d+)", summaries):
        if cuda and not str(cuda).startswith(built):
            found.append("torch's CUDA is %s in the paste, the report says %s" % (cuda, built))
    driver = stated(paste, "nvidia_smi.driver_version")
    for said in re.findall(r"\bdriver (\d{3}\.\d+(?:\.\d+)?)\b", summaries):
        if driver and said != driver:
            found.append("the driver is %s in the paste, the report says %s" % (driver, said))
    version = stated(paste, "interpreter.version")
    if version:
        minor = "%d.%d" % tuple(version[:2])
        if re.search(r"(?:python install|--python|install Python) %s\b" % re.escape(minor), reply):
            found.append("the paste runs Python %s, the reply installs it" % ".".join(map(str, version)))
    return found


DEV = [(name, text, meta["title"]) for name, text, meta in CORPUS if meta["split"] == "dev"]


@pytest.mark.per_case
@pytest.mark.parametrize("name,text,title", DEV, ids=[name for name, _, _ in DEV])
def test_no_dev_reply_contradicts_its_paste(name, text, title):
    for heading in (None, title):
        try:
            assert contradictions(text, heading) == []
        except UsageError:
            pass


def test_no_held_out_reply_contradicts_its_paste():
    """Held-out cases are only counted (never named), so that nobody tunes triage on them."""
    count = 0
    for _, text, meta in CORPUS:
        if meta["split"] != "held-out":
            continue
        for heading in (None, meta["title"]):
            try:
                count += bool(contradictions(text, heading))
            except UsageError:
                pass
    assert count == 0, "%d held-out replies contradict their paste" % count


@pytest.mark.parametrize("text,contradiction", [
    # collect_env's 'Is CUDA available: True' with no GPU line: before, cuda.available failed 'is_available() is False'.
    ("PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
     "Is CUDA available: True\nNvidia driver version: 535.104.05\n", None),
    ("PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
     "Is CUDA available: False\nNvidia driver version: 535.104.05\nGPU models and configuration: GPU 0: NVIDIA A100-SXM4-80GB\n",
     None),
])
def test_synthetic_pastes_are_not_contradicted(text, contradiction):
    assert contradictions(text) == ([] if contradiction is None else [contradiction])


def test_the_checker_catches_a_contradiction(monkeypatch):
    """The property is not vacuous: a report that says False where the paste says True is caught."""
    from mps_doctor.checking import pasted

    monkeypatch.setattr(pasted, "cuda_available_as_pasted", lambda outcome, ctx, paste: outcome)
    from mps_doctor.checking.registry import REGISTRY

    spec = REGISTRY["cuda.available"]
    monkeypatch.setitem(REGISTRY, "cuda.available", type(spec)(**dict(spec.__dict__, pasted=None)))
    text = "PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.4 LTS (x86_64)\n" \
           "Is CUDA available: True\nNvidia driver version: 535.104.05\n"
    assert contradictions(text) == ["torch.cuda_available is True in the paste, the report says False"]
