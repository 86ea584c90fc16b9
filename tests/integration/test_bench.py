"""The bench: timing discipline shown with test doubles, and a real short run on this CPU."""

import json
import os
import subprocess
import sys
import types

import pytest

from mps_doctor.bench import BenchOptions, BenchReport, DeviceRun, find_peak, resolved_accelerator
from mps_doctor.child.mpsd_frame import FRAME_MARK
from mps_doctor.probe.target import CHILD_DIR, parse_frames
from tests.helpers import TARGET_PYTHON, doctor, fake_torch, make_venv, script
from tests.paths import ROOT_DIR

sys.path.insert(0, str(CHILD_DIR))  # the child's modules; those that import torch are imported inside tests
SCHEMA = os.path.join(str(CHILD_DIR.parent), "data", "bench.schema.json")


@pytest.fixture
def mpsd_bench():
    """The child's bench module (stdlib + torch, so imported only by tests that run torch in this process)."""
    import mpsd_bench

    return mpsd_bench


@pytest.mark.torch_in_process
def test_every_clock_read_follows_a_device_sync(mpsd_bench):
    calls = []
    fake_clock = iter(range(1000))

    def clock():
        calls.append("clock")
        return next(fake_clock)

    results = mpsd_bench.time_windows(lambda: calls.append("step"), lambda: calls.append("sync"), windows=3, steps=4, clock=clock)
    assert len(results) == 3
    for index, call in enumerate(calls):
        if call == "clock":
            assert calls[index - 1] == "sync"
    assert calls.count("step") == 12 and calls.count("sync") == 6


@pytest.mark.torch_in_process
@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_make_sync_calls_the_device_module(mpsd_bench, device):
    recorded = []
    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(synchronize=lambda: recorded.append("cuda")),
                                       mps=types.SimpleNamespace(synchronize=lambda: recorded.append("mps")))
    mpsd_bench.make_sync(fake_torch, device)()
    assert recorded == [device]


@pytest.mark.torch_in_process
def test_the_timed_loop_never_reads_a_value_back(mpsd_bench, monkeypatch):
    """`.item()` or `float()` on a tensor inside the window would be a hidden host sync."""
    import mpsd_idx
    import torch

    images, labels = mpsd_idx.load_split(str(CHILD_DIR.parent / "data" / "mnist"))
    options = {"batch": 16, "warmup": 1, "windows": 2, "steps": 2, "pipeline": "resident", "epochs": 0}
    real_windows = mpsd_bench.time_windows

    def guarded_windows(step, sync, windows, steps, clock=None, on_window=lambda number: None):
        def forbidden(*args, **kwargs):
            raise AssertionError("host read inside the timed loop")

        monkeypatch.setattr(torch.Tensor, "item", forbidden)
        monkeypatch.setattr(torch.Tensor, "__float__", forbidden)
        try:
            return real_windows(step, sync, windows, steps, on_window=on_window)
        finally:
            monkeypatch.undo()

    monkeypatch.setattr(mpsd_bench, "time_windows", guarded_windows)
    result = mpsd_bench.bench_device(torch, "cpu", images, labels, options, lambda *a: None)
    assert len(result["window_ms"]) == 2 and result["final_loss"] > 0


@pytest.mark.torch_in_process
def test_loader_pipeline_normalizes_like_the_seed(mpsd_bench):
    import mpsd_idx
    import mpsd_net
    import torch

    images, labels = mpsd_idx.load_split(str(CHILD_DIR.parent / "data" / "mnist"))
    dataset = mpsd_bench.MnistDataset(torch, images, labels, length=5000)
    x, y = dataset[2001]  # cycles past the 2,000 shipped digits
    resident, targets = mpsd_net.to_tensors(images, labels, count=2)
    assert len(dataset) == 5000 and y == int(targets[1])
    assert torch.allclose(x, resident[1])


def test_peak_lookup_matches_name_and_cores():
    assert find_peak("Apple M2 Pro", 19)[0] == 6.80
    assert find_peak("Apple M1", 7)[0] == 2.29 and find_peak("Apple M1", 8)[0] == 2.62
    assert find_peak("NVIDIA H200")[0] == 66.9
    assert find_peak("Apple M9 Hyper", 99) == (None, None)


def test_slower_accelerator_is_a_warning_with_an_explanation():
    runs = (DeviceRun("cpu", window_ms=(10.0, 10.0)), DeviceRun("mps", window_ms=(25.0, 25.0)))
    report = BenchReport(BenchOptions(device="mps"), "python", "2.13.0", runs, "data")
    status, message = report.status
    assert report.speedup == pytest.approx(0.4)
    assert status == "warn" and "launch overhead" in message


def test_auto_device():
    darwin = {"interpreter": {"sys_platform": "darwin"}, "torch": {}}
    assert resolved_accelerator("auto", darwin) == "mps"
    # Like check --device auto: cuda only where torch sees a GPU, not merely where nvidia-smi exists.
    assert resolved_accelerator("auto", {"interpreter": {"sys_platform": "linux"}, "torch": {"cuda": {"available": True}}}) == "cuda"
    assert resolved_accelerator("auto", {"interpreter": {"sys_platform": "linux"}, "torch": {"cuda": {"available": False}}}) == "cpu"
    assert resolved_accelerator("cuda", darwin) == "cuda"


@pytest.mark.slow
def test_bench_for_real_on_this_cpu_validates_against_the_schema(tmp_path):
    path = tmp_path / "bench.json"
    code, out, err = doctor("bench", "--device", "cpu", "--steps", "3", "--windows", "3", "--warmup", "2",
                            "--format", "json", "--output", str(path))
    assert code == 0, err
    doc = json.loads(path.read_text())
    with open(SCHEMA) as handle:
        import jsonschema

        jsonschema.validate(doc, json.load(handle))
    cpu = doc["runs"][0]
    assert cpu["device"] == "cpu" and len(cpu["window_ms_per_step"]) == 3 and cpu["median_ms_per_step"] > 0
    assert cpu["achieved_tflops"] == pytest.approx(4.580179968e9 / (cpu["median_ms_per_step"] / 1e3) / 1e12)


@pytest.mark.slow
def test_bench_epochs_on_a_torchvision_layout_with_the_loader(tmp_path):
    import gzip
    import struct

    from mps_doctor.child.mpsd_idx import load_split

    images, labels = load_split(str(CHILD_DIR.parent / "data" / "mnist"))
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(struct.pack(">HBBIII", 0, 8, 3, 128, 28, 28) + images.data[:128 * 784]))
    (raw / "train-labels-idx1-ubyte").write_bytes(struct.pack(">HBBI", 0, 8, 1, 128) + labels.data[:128])
    code, out, err = doctor("bench", "--device", "cpu", "--epochs", "1", "--warmup", "0", "--data-dir", str(tmp_path))
    assert code == 0, err
    assert "DataLoader" in out and "MNIST from" in out and "epoch:" in out and "128 images" in out


def test_bad_data_dir_is_a_usage_error(tmp_path):
    code, out, err = doctor("bench", "--data-dir", str(tmp_path))
    assert code == 2 and "no train-images-idx3-ubyte" in err


@pytest.mark.torch_in_process
def test_the_smoke_steps_light_adadelta_is_torch_adadelta():
    """The smoke step avoids importing torch.optim (0.9 s) with the same update; the bench uses torch.optim."""
    import mpsd_net
    import torch

    torch.manual_seed(0)
    x, y = torch.randn(16, 1, 28, 28), torch.randint(0, 10, (16,))
    light, reference = mpsd_net.make_model("cpu"), mpsd_net.make_model("cpu")
    light.eval()
    reference.eval()  # dropout off, so both see the same forward pass
    light_opt, reference_opt = mpsd_net.make_optimizer(light, light=True), mpsd_net.make_optimizer(reference)
    assert isinstance(reference_opt, torch.optim.Adadelta)
    for _ in range(3):
        mpsd_net.train_step(light, light_opt, x, y)
        mpsd_net.train_step(reference, reference_opt, x, y)
    for a, b in zip(light.parameters(), reference.parameters()):
        assert torch.equal(a.detach(), b.detach())


# A target without a working torch: bench reaches check's result for it (issue 24 item 3).

BENCH_OPTIONS = json.dumps({"devices": ["cpu"], "batch": 8, "warmup": 0, "windows": 1, "steps": 1, "epochs": 0,
                            "pipeline": "resident", "data_dir": str(CHILD_DIR.parent / "data" / "mnist")})


def test_the_bench_child_answers_its_interpreter_and_torch_stages_without_torch():
    """`-S` leaves site-packages, and so torch, out: the child must still describe the interpreter and the missing
    torch, as the check child does, instead of dying on an import of torch at module level."""
    done = subprocess.run([sys.executable, "-S", str(CHILD_DIR), "bench", BENCH_OPTIONS], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)
    results, begun = parse_frames(done.stdout)
    assert done.returncode == 0, done.stderr
    assert begun == ["interpreter", "torch"]
    assert results["interpreter"]["version"][:2] == list(sys.version_info[:2])
    assert results["torch"]["installed"] is False


def root_cause_block(text):
    """The lines of a text report from `Root cause:` to the line before the next blank one."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Root cause:" in line)
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    return lines[start:end]


def fake_python(folder, stdout, code=0):
    """An executable `python` that prints STDOUT (framed lines as a child would) and exits with CODE."""
    (folder / "python.out").write_text(stdout)
    return script(folder / "python", 'cat "$0.out"\nexit %d' % code)


def frame(stage, data):
    return FRAME_MARK + json.dumps({"event": "result", "stage": stage, "data": data}) + "\n"


def interpreter_frame():
    """The interpreter frame of the target interpreter (a Python that torch 2.13 supports, whichever Python runs
    pytest), as the child writes it."""
    done = subprocess.run([TARGET_PYTHON, "-S", str(CHILD_DIR), "bench", BENCH_OPTIONS], stdout=subprocess.PIPE,
                          text=True, timeout=60)
    return parse_frames(done.stdout)[0]["interpreter"]


def test_a_torch_that_does_not_import_gets_checks_root_cause_and_remedy(cli, tmp_path):
    python = fake_python(tmp_path, frame("interpreter", interpreter_frame()) + frame("torch", {
        "installed": True, "packages": {"torch": "2.13.0"},
        "import_error": {"type": "ImportError", "message": "libtorch_cpu.so: cannot open shared object file: No such "
                         "file or directory", "traceback": ""}}))
    checked = cli("check", "--python", python, "--device", "cpu")
    benched = cli("bench", "--python", python, "--device", "cpu", "--no-progress")
    assert benched.exit_code == checked.exit_code == 1, benched.output
    assert benched.stdout == ""
    assert "`import torch` fails: a shared library of torch is missing or broken" in benched.stderr
    assert root_cause_block(benched.stderr) == root_cause_block(checked.stdout)
    assert benched.stderr.rstrip().splitlines()[-1] == (
        "mps-doctor: error: nothing was measured: `import torch` fails: a shared library of torch is missing or broken")


def test_a_default_target_that_never_answers_is_not_called_a_python_option(cli, tmp_path, monkeypatch):
    """Without --python, the message names the interpreter and why it was chosen, not an option never given."""
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    fake_python(tmp_path / ".venv" / "bin", "", code=1)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.chdir(tmp_path)
    result = cli("bench", "--device", "cpu", "--no-progress")
    assert result.exit_code == 2
    assert result.stderr == ("mps-doctor: error: %s (Python chosen: the .venv in %s (no environment is active)): not a "
                             "Python interpreter (it exited with code 1 without answering the probe)\n"
                             % (tmp_path / ".venv" / "bin" / "python", tmp_path))


@pytest.mark.slow
def test_bench_in_a_real_venv_without_torch_says_what_check_says(tmp_path):
    python = make_venv(tmp_path / "bare", TARGET_PYTHON)
    code, out, err = doctor("bench", "--python", python, "--device", "cpu")
    check_code, check_out, _ = doctor("check", "--python", python, "--device", "cpu")
    assert code == check_code == 1, err
    assert out == ""
    assert "Root cause: torch is not installed in %s" % python in err
    assert ("$ %s -m pip install 'torch==2.15.*' 'torchvision==0.29.*' --index-url https://download.pytorch.org/whl/cpu"
            % python) in err
    assert root_cause_block(err) == root_cause_block(check_out)
    assert "not a Python interpreter" not in err


@pytest.mark.slow
def test_bench_without_python_option_finds_the_venv_here_and_its_missing_torch(tmp_path):
    python = make_venv(tmp_path / ".venv", TARGET_PYTHON)
    env = dict(os.environ, VIRTUAL_ENV="", CONDA_PREFIX="", NO_COLOR="1",
               PYTHONPATH=ROOT_DIR)
    done = subprocess.run([sys.executable, "-m", "mps_doctor", "bench", "--device", "cpu"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300, cwd=str(tmp_path), env=env)
    assert done.returncode == 1, done.stderr
    assert "Python chosen: the .venv in %s" % tmp_path in done.stderr
    assert "Root cause: torch is not installed in %s" % python in done.stderr
    assert "--python %s: not a Python" % python not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(("body", "expected"), [
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", "Root cause: `import torch` crashed with SIGSEGV"),
    ("raise ImportError('libtorch_cpu.so: cannot open shared object file: No such file or directory')\n",
     "Root cause: `import torch` fails: a shared library of torch is missing or broken"),
])
def test_bench_with_a_broken_torch_says_what_check_says(tmp_path, body, expected):
    python = make_venv(tmp_path / "broken")
    fake_torch(python, body)
    code, out, err = doctor("bench", "--python", python, "--device", "cpu")
    check_code, check_out, _ = doctor("check", "--python", python, "--device", "cpu")
    assert code == check_code == 1, err
    assert expected in err and expected in check_out
    assert root_cause_block(err) == root_cause_block(check_out)
