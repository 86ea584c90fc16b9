"""`mps-doctor model` for real: the child under the test's torch (the CPU build), traced built-ins and test models,
the containment of a TARGET that crashes, hangs or raises, and a doctor process that never imports torch."""

import json
import os
import subprocess
import sys

import jsonschema
import pytest

from mps_doctor.model.predict import default_table
from tests.helpers import TARGET_PYTHON, doctor, make_venv
from tests.paths import TESTS_DIR

# The work here is torch in the target interpreter; the Python 3.8 pass of .ci/run leaves it out (pyproject.toml).
pytestmark = [pytest.mark.slow, pytest.mark.target_work]

HERE = TESTS_DIR
MODELS = os.path.join(HERE, "data", "models", "tiny.py")
SCHEMA = os.path.join(os.path.dirname(HERE), "mps_doctor", "data", "model.schema.json")


def model_json(*args, env=None, timeout=300):
    code, out, err = doctor("model", "--python", TARGET_PYTHON, "--format", "json", "--no-progress", *args, env=env,
                            timeout=timeout)
    assert out, err
    document = json.loads(out)
    with open(SCHEMA) as handle:
        jsonschema.validate(document, json.load(handle))
    return code, document, err


def by_id(document):
    return {r["id"]: r for r in document["results"]}


def test_the_mnist_builtin_trains_on_this_cpu_and_is_measured():
    code, doc, _ = model_json("mps-doctor:mnist", "--device", "cpu", "--batch", "16", "--timeout", "120")
    assert code == 0 and doc["verdict"]["state"] == "ready" and doc["verdict"]["basis"] == "observed"
    results = by_id(doc)
    assert [results[i]["status"] for i in ("model.load", "model.operators", "model.speed", "model.parity")] == \
        ["pass"] * 4
    assert results["model.memory"]["status"] == "skip"
    assert "against the CPU (cpu-float64)" in results["model.parity"]["summary"]
    trace = doc["facts"]["model"]["trace"]
    names = {op["name"] for op in trace["ops"]}
    # Forward, backward and AdamW's step of pytorch/examples' network, as the dispatcher sees them.
    assert {"aten::convolution.default", "aten::convolution_backward.default", "aten::lerp_.Scalar"} <= names
    phases = {phase for op in trace["ops"] for phase in op["phases"]}
    assert phases == {"forward", "backward", "optimizer"}
    assert doc["facts"]["model"]["loaded"]["batch"] == 16


def test_mps_on_linux_is_a_prediction_per_release_from_the_shipped_table():
    code, doc, _ = model_json("mps-doctor:transformer-block", "--device", "mps", "--timeout", "120")
    prediction = doc["prediction"]
    table = default_table()
    assert [row["release"] for row in prediction["releases"]] == list(table.releases)
    installed = prediction["release"]
    assert prediction["in_table"] and prediction["missing"] == []
    assert code == 0 and doc["verdict"] == dict(doc["verdict"], state="ready", basis="predicted")
    # The first release that runs every operator, as the table says, and none of them missing from there on.
    native = prediction["native_from"]
    later = [row for row in prediction["releases"] if table.releases.index(row["release"]) >= table.releases.index(native)]
    assert native is not None and all(row["missing"] == [] for row in later)
    assert table.releases.index(native) <= table.releases.index(installed)
    assert {r["id"]: r["status"] for r in doc["results"]}["model.speed"] == "skip"
    assert "not measured: mps is not available" in by_id(doc)["model.memory"]["summary"]


def test_a_file_target_with_its_own_batch_and_loss_and_a_module_target(tmp_path):
    code, doc, _ = model_json(MODELS + ":make", "--device", "cpu", "--batch", "4", "--timeout", "120")
    assert code == 0 and doc["facts"]["model"]["loaded"]["loss"] == "given"
    assert doc["facts"]["model"]["loaded"]["inputs"] == [{"shape": [4, 8], "dtype": "float32"}]
    package = tmp_path / "mymodels"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "nets.py").write_text(open(MODELS).read())
    done = subprocess.run([sys.executable, "-m", "mps_doctor", "model", "mymodels.nets:make", "--python", TARGET_PYTHON,
                           "--device", "mps", "--format", "json", "--timeout", "120"], cwd=str(tmp_path),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.path.dirname(HERE)))
    assert json.loads(done.stdout)["facts"]["model"]["loaded"]["class_name"] == "Sequential", done.stderr


# Only the hanging factory meets its limit; the others have one far above a loaded machine's torch import.
@pytest.mark.parametrize("factory, timeout, state, words", [
    ("crash", "120", "target-error", "crashed with SIGSEGV"),
    ("broken", "120", "target-error", "the factory of this test is broken on purpose"),
    ("not_a_model", "120", "target-error", "not a torch.nn.Module"),
    ("hang", "15", "timed-out", "took longer than the --timeout of 15 s"),
])
def test_a_target_that_crashes_raises_or_hangs_is_a_result(factory, timeout, state, words):
    code, doc, err = model_json(MODELS + ":" + factory, "--device", "cpu", "--timeout", timeout)
    assert code == 1 and doc["verdict"]["state"] == state, doc["verdict"]
    assert words in by_id(doc)["model.load"]["summary"]
    assert "Traceback" not in err


def test_usage_errors_and_a_python_without_torch(tmp_path):
    code, out, err = doctor("model", "torchvision:resnet50")
    assert code == 2 and out == "" and "not a built-in" in err and len(err.splitlines()) == 1
    code, out, err = doctor("model", "mps-doctor:mnist", "--torch", "latest")
    assert code == 2 and "--torch latest" in err
    bare = make_venv(tmp_path / "bare")
    code, out, err = doctor("model", "mps-doctor:mnist", "--python", bare, "--device", "cpu")
    assert code == 1 and out == "" and "torch" in err and "Traceback" not in err


def test_the_doctor_process_never_imports_torch():
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "mps_doctor", "model", "mps-doctor:mnist",
                           "--python", TARGET_PYTHON, "--device", "mps", "--format", "json", "--timeout", "120"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert json.loads(done.stdout)["format"] == "mps-doctor-model"
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line]
    assert "mps_doctor.model.run" in imported  # the import log is real
    assert not [m for m in imported if m == "torch" or m.startswith("torch.")]


def test_resnet18_without_torchvision_is_traced_on_a_copy_of_its_architecture_and_predicted():
    """The done-when of `model torchvision:resnet18 --device mps` on Linux: where torchvision does not import (here:
    not installed), the built-in is torchvision's ResNet-18 architecture built by the child, and the prediction
    names the releases that run every operator natively."""
    code, doc, _ = model_json("torchvision:resnet18", "--device", "mps", "--batch", "2", "--timeout", "300")
    loaded = doc["facts"]["model"]["loaded"]
    assert loaded["class_name"] == "ResNet" and "copy of torchvision.models.resnet" in loaded["module"]
    # torchvision's resnet18 has 11,689,512 parameters (torchvision/models/resnet.py, weights=None).
    assert loaded["parameters"] == 11689512
    names = {op["name"] for op in doc["facts"]["model"]["trace"]["ops"]}
    assert {"aten::convolution.default", "aten::max_pool2d_with_indices.default"} <= names
    prediction = doc["prediction"]
    assert prediction["in_table"] and prediction["native_from"] is not None
    assert code == 0 and doc["verdict"]["basis"] == "predicted"
