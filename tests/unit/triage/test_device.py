"""issue 20 items 1, 2, 4 and 8: the device from all the evidence, the platform from install logs, facts as people
write them, and Windows pastes; each from real dev pastes of tests/pasted/ (named) and small synthetic ones."""

import json
import os

import pytest

from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import NOT_IN_PASTE, triage
from mps_doctor.triage.paste import read_paste
from mps_doctor.triage.text import clean
from tests.paths import TESTS_DIR

PASTED = os.path.join(TESTS_DIR, "pasted")


def dev_paste(name):
    """The text of a dev case (held-out cases are never read here)."""
    with open(os.path.join(PASTED, name + ".json"), encoding="utf-8") as handle:
        assert json.load(handle)["split"] == "dev"
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def known(text, path):
    paste = read_paste(text)
    return paste.known[path].value if path in paste.known else None


# --- item 1: the device from all the evidence, with the reason -----------------------------------------------------

@pytest.mark.parametrize(("name", "device", "root", "reason"), [
    # Windows issue form ("### GPU" / "cuda") and xFormers' "(you have 2.1.0+cpu)": a CPU build where CUDA is wanted.
    ("invokeai-5130-upgrade-installs-cpu-torch-windows", "cuda", "torch.cuda-built", "issue form says cuda"),
    # torch.__version__ '2.6.0+cpu' and a question about the GPU build.
    ("llamafactory-7666-windows-default-install-cpu-torch", "cuda", "torch.cuda-built", "GPU"),
    # A Mac ("is mac actually supported?") running CUDA code: the message as it reads on macOS, never a CUDA reinstall.
    ("comfyui-3d-pack-177-mac-torch-not-compiled-cuda", "mps", "cuda.not-compiled", "macOS"),
    # A PyTorch template's "- OS (e.g., Linux): Windows 10 2004" and "CUDA/cuDNN version: No (CPU version)".
    ("pytorch-39734-c10-dll-missing-msvcp140", "cpu", "torch.import", "issue form says cpu"),
    # pip from PyTorch's CPU index, then its cu121 index.
    ("ultralytics-8869-cpu-index-url-wheel", "cuda", "torch.cuda-built", "cuda"),
])
def test_the_device_of_a_real_paste_and_why(name, device, root, reason):
    report = triage(dev_paste(name))
    assert (report.options.device, report.verdict.root_cause) == (device, root)
    assert reason in report.source["device_from"]
    assert "Why `%s`:" % device in render_triage(report, "markdown")


def test_a_mac_user_asking_for_cuda_stays_on_the_mac_but_a_cuda_install_there_is_about_cuda():
    code = "On my Mac M2:\nmodel.to('cuda')\nAssertionError: Torch not compiled with CUDA enabled\n"
    assert triage(code).options.device == "mps"
    install = "On my Mac M2:\nERROR: Could not find a version that satisfies the requirement torch==2.1.0+cu118 " \
              "(from versions: 2.0.0, 2.1.0, 2.2.0)\n"
    report = triage(install)
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux")


def test_linux_running_mac_only_code_is_about_mps():
    paste = "Linux-5.15.0-91-generic-x86_64-with-glibc2.35\n>>> torch.backends.mps.is_available()\nFalse\n"
    report = triage(paste)
    assert (report.options.device, report.verdict.root_cause) == ("mps", "os.macos")


def test_an_nvidia_driver_line_outweighs_a_word():
    paste = "OS: Ubuntu 20.04.6 LTS (x86_64)\nNvidia driver version: 535.104.05\nIs CUDA available: False\n"
    report = triage(paste)
    assert report.options.device == "cuda" and "NVIDIA driver" in report.source["device_from"]
    # collect_env prints "CUDA" on every machine: its lines are facts, not words of the user's.
    cpu = "PyTorch version: 2.3.0+cpu\nCUDA used to build PyTorch: None\nOS: Ubuntu 22.04.4 LTS (x86_64)\n" \
          "Is CUDA available: False\n"
    assert triage(cpu).options.device == "cpu"


@pytest.mark.parametrize("paste", [
    "CUDA used to build PyTorch:\n### Anything else\n",
    "- CUDA/cuDNN version:\n### Anything else\n",
    "CUDA used to build PyTorch: Could not collect the version\nOS: Ubuntu 22.04\n",
])
def test_no_cuda_version_from_an_unparsed_field(paste):
    version = known(paste, "torch.cuda_version")
    assert version is None or version[0].isdigit()


def test_a_device_given_on_the_command_line_is_the_reason():
    report = triage("PyTorch version: 2.3.0\nOS: macOS 14.5 (arm64)\n", device="cpu")
    assert report.options.device == "cpu" and report.source["device_from"] == "--device cpu"


# --- item 2: the platform from install logs ------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["transcribe-anything-77-uv-x86-python-rosetta", "vllm-metal-379-uv-x86-python-rosetta-m5"])
def test_uv_platform_tags_of_an_x86_64_python_on_macos(name):
    report = triage(dev_paste(name))
    assert report.verdict.root_cause == "python.rosetta"
    assert report.result("hardware.apple-silicon").summary.startswith(NOT_IN_PASTE)
    remedy = report.result("python.rosetta").remedy
    assert "Intel Mac" in remedy.why and "hw.optional.arm64" in remedy.why


WHEEL_LOG = "Collecting torch\n  Downloading torch-2.2.2-cp310-none-macosx_10_9_x86_64.whl (150.8 MB)\n"


@pytest.mark.parametrize(("prose", "root"), [
    ("", "python.rosetta"),                        # the chip unknown: both possibilities, the Rosetta layer fails
    ("My MacBook Pro M2\n", "python.rosetta"),    # Apple Silicon: Rosetta, from the facts
    ("my mac is intel\n", "hardware.apple-silicon"),
])
def test_a_macos_x86_64_wheel_in_a_pip_log(prose, root):
    report = triage(prose + WHEEL_LOG)
    assert (known(prose + WHEEL_LOG, "interpreter.machine"), report.verdict.root_cause) == ("x86_64", root)
    assert report.verdict.root_cause != "python.version"


def test_a_windows_platform_tag_in_uv_says_windows():
    text = "  ╰─▶ Because torch==2.11.0 has no wheels with a matching platform tag (e.g., `win_amd64`) and you require torch"
    assert known(text, "host.system") == "Windows"


# --- item 4: facts as people write them ----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "version"), [
    ("Just tried on macOS 14.6.1 and torch 2.4.0", "14.6.1"),
    ("OS: Mac OS Sonoma 14.5", "14.5"),
    ("Macosx M1 14.6.1 (23G93)", "14.6.1"),
    ("- MacOS 12.5 M1 Pro chip", "12.5"),
])
def test_a_macos_version_written_by_a_person(text, version):
    assert (known(text, "host.system"), known(text, "host.macos_version")) == ("Darwin", version)


def test_a_version_a_message_requires_is_not_the_users():
    text = "RuntimeError: The MPS backend is supported on MacOS 14.0+. Current OS version can be queried"
    assert known(text, "host.macos_version") is None


@pytest.mark.parametrize(("text", "version"), [
    ("Python 3.10.11", (3, 10, 11)),
    ("Python版本：3.10.11", (3, 10, 11)),
    ("if you have Python 3.11 as the default Python interpreter", (3, 11)),
    ("### Python version\n\n3.12.4\n", (3, 12, 4)),
])
def test_a_python_version_written_by_a_person(text, version):
    assert known(text, "interpreter.version") == version


def test_a_bare_two_number_python_in_a_sentence_is_not_read():
    assert known("Wheels exist for Python 3.12 and 3.13.", "interpreter.version") is None


def test_issue_form_and_template_fields():
    form = "### OS\n\nWindows\n\n### GPU\n\ncuda\n\n### PyTorch version\n\n2.1.0+cpu\n"
    assert (known(form, "host.system"), known(form, "packages.torch")) == ("Windows", "2.1.0+cpu")
    assert known(form, "torch.cuda_version") is None and "torch.cuda_version" in read_paste(form).known
    bullets = "- OS (e.g., Linux): Windows 10 2004\n- Python version: Python 3.8.3\n- GPU models and configuration: 0,1,2,3\n"
    assert (known(bullets, "host.system"), known(bullets, "interpreter.version")) == ("Windows", (3, 8, 3))
    assert known(bullets, "nvidia_smi.gpu") is None


def test_text_on_a_fence_line_and_full_width_colons_are_read():
    lines = clean("```NVIDIA GeForce RTX 5090 with CUDA capability sm_120\n```python\nx```")
    assert [line.text for line in lines] == ["NVIDIA GeForce RTX 5090 with CUDA capability sm_120", "", "x"]
    old_collect_env = "PyTorch version：1.5.0\nGPU models and configuration：\nGPU 0：NVIDIA A100\n"
    assert (known(old_collect_env, "torch.version"), known(old_collect_env, "nvidia_smi.gpu")) == ("1.5.0", ("NVIDIA A100",))


def test_an_old_collect_env_label_in_another_case():
    text = "PyTorch version: 1.5.0\nIs debug build: No\nCUDA used to build PyTorch: 10.2\n\nOs: Ubuntu 18.04.4 LTS\n"
    assert (known(text, "host.system"), known(text, "torch.cuda_version")) == ("Linux", "10.2")
    assert triage(text).options.device == "cuda"


# --- item 8: Windows pastes ----------------------------------------------------------------------------------------

def test_windows_paths_and_python_in_prose_decide_the_python_layer():
    report = triage(dev_paste("whisper-auto-transcribe-56-python311-no-cu113-wheel"))
    assert report.facts.host.system == "Windows" and report.options.device == "cuda"
    assert report.verdict.root_cause == "python.version"


def test_a_torch_dll_that_windows_cannot_load_fails_torch_import():
    report = triage(dev_paste("pytorch-39734-c10-dll-missing-msvcp140"))
    assert report.facts.host.system == "Windows"
    fix = render_triage(report, "markdown")
    assert "Visual C++" in fix and "**Fix:**" not in fix


@pytest.mark.parametrize(("text", "driver"), [
    ("NVIDIA GeForce RTX 3060  Driver Version: 31.0.15.3623", "536.23"),
    ("Driver version 32.0.15.6094 (NVIDIA)", "560.94"),
])
def test_windows_numbering_of_the_nvidia_driver(text, driver):
    assert (known(text, "nvidia_smi.driver_version"), known(text, "host.system")) == (driver, "Windows")


@pytest.mark.parametrize(("path", "system"), [
    ('  File "C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\__init__.py", line 1', "Windows"),
    ('  File "/Users/me/miniconda3/lib/python3.10/site-packages/torch/cuda/__init__.py", line 239', "Darwin"),
    ('  File "/home/me/.venv/lib/python3.10/site-packages/torch/__init__.py", line 1', "Linux"),
])
def test_a_path_names_its_system(path, system):
    assert known(path, "host.system") == system


def test_the_reason_for_the_device_says_one_vote_once():
    # torch's version and its package name the same +cu113 on one line: one reason, then the next ones.
    report = triage("PyTorch version: 1.10.1+cu113\nCUDA used to build PyTorch: 11.3\nOS: Ubuntu 20.04.3 LTS (x86_64)\n"
                    "Is CUDA available: True\n")
    reasons = report.source["device_from"].split("; ")
    assert len(reasons) == len(set(reasons)) and reasons[0] == "a CUDA build of torch (+cu113) (line 1)"
