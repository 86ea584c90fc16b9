"""Ten public threads where a user reported an operator without an MPS kernel on a given torch release (tests/data/
model_cases/): traced for real on the CPU, the prediction for that release names the operator, and where the thread
says which release fixed it, the kernel table agrees (docs/measurements.md lists them)."""

import ast
import json
import os
import subprocess

import pytest

from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.model.facts import Op, base_name
from mps_doctor.model.predict import default_table, predict
from mps_doctor.probe.target import CHILD_DIR
from tests.helpers import TARGET_PYTHON
from tests.paths import TESTS_DIR

# The work here is torch in the target interpreter; the Python 3.8 pass of .ci/run leaves it out (pyproject.toml).
pytestmark = [pytest.mark.slow, pytest.mark.target_work]

CASES_DIR = os.path.join(TESTS_DIR, "data", "model_cases")
CASES = sorted(name for name in os.listdir(CASES_DIR) if name.endswith(".py"))


def case_facts(path):
    """THREAD, RELEASE, OPERATOR and FIXED_IN of a case file, read without running it."""
    tree = ast.parse(open(path).read())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)] or [
                e.id for t in node.targets if isinstance(t, ast.Tuple) for e in t.elts]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found.update(zip(names, [ast.literal_eval(v) for v in values]))
    return found


def traced_ops(path):
    """The operators of one training step of the case, traced by the real child on this CPU torch."""
    options = {"target": {"kind": "file", "path": path, "factory": "make"}, "device": "cpu",
               "stages": ["model-load", "model-trace"]}
    done = subprocess.run([TARGET_PYTHON, str(CHILD_DIR), "model", json.dumps(options)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    frames = [json.loads(line[len(FRAME_MARK):]) for line in done.stdout.splitlines() if line.startswith(FRAME_MARK)]
    trace = next(f["data"] for f in frames if f["event"] == "result" and f["stage"] == "model-trace")
    assert "error" not in trace, trace
    return tuple(Op(name=op["name"], count=op["count"], phases=tuple(op["phases"])) for op in trace["ops"])


def test_there_are_ten_cases_each_with_its_thread():
    assert len(CASES) >= 10
    for name in CASES:
        facts = case_facts(os.path.join(CASES_DIR, name))
        assert facts["THREAD"].startswith("https://github.com/") and facts["OPERATOR"].startswith("aten::"), name


@pytest.mark.parametrize("name", CASES)
def test_the_prediction_names_the_threads_operator_and_release(name):
    path = os.path.join(CASES_DIR, name)
    case = case_facts(path)
    table = default_table()
    prediction = predict(traced_ops(path), case["RELEASE"], table)
    operator = base_name(case["OPERATOR"])
    assert prediction.in_table, case["RELEASE"]
    assert operator in prediction.missing, (name, prediction.missing)
    first = prediction.first_native[operator]
    if case["FIXED_IN"] is not None:
        assert first == case["FIXED_IN"], (name, first)
    else:
        # Whatever release the table names must be a later one than the thread's.
        releases = list(table.releases)
        assert first is None or releases.index(first) > releases.index(prediction.release), (name, first)
