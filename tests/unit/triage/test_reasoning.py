"""issue 20, round 2: kinds of reasoning the dev misses lacked, each from a real dev paste of tests/pasted/ (named)
and a small synthetic variant."""

import json
import os
import re

import pytest

from mps_doctor import known_errors
from mps_doctor.checking.model import Status
from mps_doctor.errors import UsageError
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


def layer(report, check_id):
    return next(r for r in report.results if r.id == check_id)


# --- a paste that shows no torch has not said that none is installed ------------------------------------------------

def test_a_message_from_a_program_that_ran_is_not_judged_against_the_newest_torch():
    # sd-webui-docker-35: macOS 12.5 and Docker's NVIDIA error; the torch runs in the container, its version unshown.
    report = triage(dev_paste("sd-webui-docker-35-compose-nvidia-on-m1-pro"))
    assert report.verdict.known_error == "docker.nvidia-gpu-unavailable"
    assert not [r for r in report.results if r.id == "macos.version" and r.status == Status.FAIL]


def test_the_machine_alone_is_still_judged_against_the_release_it_would_install():
    machine = "ProductName:\t\tmacOS\nProductVersion:\t\t12.5\nBuildVersion:\t\t21G72\n"
    report = triage(machine)
    assert layer(report, "macos.version").status == Status.FAIL and "not installed yet" in layer(report, "macos.version").summary
    # The same macOS with a pasted message and no torch version: the version decides, so it is asked for.
    report = triage(machine + "RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    assert layer(report, "macos.version").summary.startswith(NOT_IN_PASTE)
    # And a torch version decides as before.
    report = triage(machine + "PyTorch version: 2.5.1\n")
    assert layer(report, "macos.version").status == Status.FAIL and "torch 2.5.1" in layer(report, "macos.version").summary


# --- a message cut before its details still names its layer ---------------------------------------------------------

def test_driver_too_old_without_its_found_version():
    # vllm-1772: "RuntimeError: The NVIDIA driver on your system is too old", the rest in a screenshot.
    assert triage(dev_paste("vllm-1772-driver-too-old-build-from-source")).verdict.root_cause == "cuda.driver-version"
    # With the number, the number is still read as the driver's CUDA (11040 = 11.4) and shown as the user's.
    report = triage("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\n")
    assert report.verdict.root_cause == "cuda.driver-version"


# --- the build a conda list names -----------------------------------------------------------------------------------

def test_anaconda_pytorch_select_names_the_cpu_variant_without_a_torch_version():
    # lightning-899: `_pytorch_select 0.1 cpu_0` under a Lightning "You requested GPUs: [0]" traceback.
    report = triage(dev_paste("lightning-899-conda-pytorch-select-cpu"))
    assert report.verdict.root_cause == "torch.cuda-built"
    built = layer(report, "torch.cuda-built")
    assert built.summary == "torch is a CPU-only build" and "?" not in built.summary
    shown = [getattr(a, "value", "") or " ".join(getattr(a, "argv", ())) for a in built.remedy.actions]
    # The torch version is unknown: the fix reads it first and installs no release the paste never named.
    assert "torch.__version__" in shown[0] and not any("2.15" in s for s in shown)
    # 0.1 is _pytorch_select's own version, never torch's.
    synthetic = "python train.py --gpus 1\n_pytorch_select          0.1                       cpu_0\n"
    paste = read_paste(synthetic)
    assert paste.known["torch.cuda_version"].value is None and "packages.torch" not in paste.known
    gpu = read_paste("_pytorch_select          0.2                       gpu_0\n")
    assert "torch.cuda_version" not in gpu.known


# --- a CPU build's fix on Windows, with an unknown driver -----------------------------------------------------------

def test_a_cpu_build_on_windows_gets_no_linux_driver_guide_and_no_unknown_cuda():
    # invokeai-5130: torch 2.1.0+cpu on Windows; the driver is not in the paste and the release table lists no CUDA
    # builds for 2.1, so nothing says that the driver is too old.
    report = triage(dev_paste("invokeai-5130-upgrade-installs-cpu-torch-windows"))
    built = layer(report, "torch.cuda-built")
    text = " ".join(getattr(a, "value", "") or " ".join(getattr(a, "argv", ())) for a in built.remedy.actions)
    assert "CUDA ?" not in text and "Linux" not in text and "mps-doctor check" not in text
    assert "nvidia-smi" in text and "torch 2.1" in text


def test_a_driver_too_old_for_every_build_on_windows_is_updated_the_windows_way():
    # Synthetic: torch 2.9.0+cpu on Windows with driver 452.39 (CUDA 11.0; 2.9's builds start at CUDA 12.6).
    report = triage("PyTorch version: 2.9.0+cpu\nOS: Microsoft Windows 11 Pro\nPython version: 3.12.4\n"
                    "Nvidia driver version: 452.39\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3060\n")
    built = layer(report, "torch.cuda-built")
    assert built.remedy.title == "Update the NVIDIA driver"
    text = " ".join(getattr(a, "value", "") or " ".join(getattr(a, "argv", ())) for a in built.remedy.actions)
    assert "CUDA 11.0" in text and "for Windows" in text and "Linux" not in text
    assert built.remedy.actions[-1].argv == ("nvidia-smi",)


# --- a signal the shell names, read on the paste's system -----------------------------------------------------------

def test_illegal_hardware_instruction_on_apple_silicon_is_a_python_under_rosetta():
    # lamacleaner-268: "zsh: illegal hardware instruction" on an M1 Pro.
    report = triage(dev_paste("lamacleaner-268-m1-illegal-instruction-rosetta"))
    assert report.verdict.root_cause == "python.rosetta"
    rosetta = layer(report, "python.rosetta")
    assert rosetta.status == Status.FAIL and rosetta.remedy.link.startswith("https://developer.apple.com/")
    # The same signal on Linux is a CPU without the instructions: the message itself, no Mac layer.
    linux = triage("$ python app.py\nIllegal instruction (core dumped)\nUbuntu 22.04, Python 3.10\n")
    assert linux.verdict.root_cause == "process.illegal-instruction"
    assert "Rosetta" not in next(r for r in linux.results if r.id == "process.illegal-instruction").remedy.why


# --- round 3: formats and retellings that unseen pastes used (issue 20) --------------------------------------------

ULTRALYTICS_BANNER = "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu CPU (Intel Core(TM) i7-9700K 3.60GHz)\n"


def test_ultralytics_banner_names_the_python_and_the_installed_torch_build():
    # comic-translate-17: the banner's torch-2.1.0+cpu and Ultralytics' invalid CUDA device on an RTX 3060 Ti.
    report = triage(dev_paste("comic-translate-17-ultralytics-torch-cpu-wheel"))
    assert report.verdict.root_cause == "torch.cuda-built"
    assert "ultralytics.invalid-cuda-device" in {r.id for r in report.results}
    paste = read_paste(ULTRALYTICS_BANNER)
    assert paste.known["interpreter.version"].value == (3, 10, 11)
    assert paste.known["torch.version"].value == "2.1.0+cpu" and paste.known["torch.cuda_version"].value is None


def test_ultralytics_banner_with_a_gpu_or_mps_says_what_torch_sees():
    gpu = read_paste("Ultralytics 8.3.40 🚀 Python-3.12.7 torch-2.5.1+cu124 CUDA:0 (NVIDIA GeForce RTX 4090, 24564MiB)\n")
    assert gpu.known["nvidia_smi.gpu"].value == ("NVIDIA GeForce RTX 4090",) and gpu.known["torch.cuda_available"].value is True
    mps = read_paste("Ultralytics 8.3.40 🚀 Python-3.12.7 torch-2.5.1 MPS (Apple M2 Pro)\n")
    assert mps.known["host.system"].value == "Darwin" and mps.known["torch.mps_available"].value is True
    # A banner-like line that is not one (no Python-X torch-Y pair) is no fact.
    assert "torch.version" not in read_paste("Ultralytics YOLOv8 🚀 is great, torch 2.1 too\n").known


def test_a_call_printed_with_its_answer_on_one_line_is_a_fact():
    paste = read_paste("torch.cuda.is_available(): False\ntorch.__version__ = 2.3.1\nplatform.machine(): x86_64\n")
    assert paste.known["torch.cuda_available"].value is False
    assert paste.known["torch.version"].value == "2.3.1"
    assert paste.known["interpreter.machine"].value == "x86_64"
    # Prose about a call is not its answer.
    assert "torch.cuda_available" not in read_paste("torch.cuda.is_available(): I get False sometimes\n").known


def test_an_issue_form_gpu_model_nvidia_knows_is_a_fact_with_its_capability():
    # invokeai-7945: InvokeAI's form, "### GPU model" then "RTX 5080".
    paste = read_paste(dev_paste("invokeai-7945-rtx5080-outdated-torch-no-sm120-windows"))
    assert paste.known["nvidia_smi.gpu"].value == ("RTX 5080",)
    assert "12.0" in paste.known["nvidia_smi.capability"].value
    assert "nvidia_smi.gpu" not in read_paste("### GPU model\n\nsomething fast\n").known


def test_an_apps_python_version_message_fails_the_python_layer():
    # sdwebui-7964 (stable-diffusion-webui's launcher) and invokeai-7334 (InvokeAI's installer).
    for name, message in (("sdwebui-7964-python311-incompatible-torch", "webui.python-version-untested"),
                          ("invokeai-7334-python-3127-installer-refuses", "invokeai.installer-python-version")):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.known_error) == ("python.version", message), name


def test_an_image_of_noise_on_a_mac_is_a_silent_wrong_result():
    # comfyui-4263: "the final image is just color noise" on macOS 14.6.1, no device named.
    assert triage(dev_paste("comfyui-4263-flux-color-noise-mps-batchnorm-regression")).verdict.root_cause == "device.parity"
    assert triage(dev_paste("comfyui-3346-wrong-sigma-mps-torch-222")).verdict.root_cause == "device.parity"
    # Noise that is not the output ("noise schedule") or a Mac not named: no claim.
    assert not read_paste("I changed the noise schedule on macOS 14.5 and torch 2.3.1\n").evidence
    assert not [e for e in read_paste("the final image is just noise\n").evidence if e.kind == "wrong-results"]


def test_a_retold_compute_capability_limit_fails_the_capability_layer():
    # vllm-774: "nothing under CUDA Compute 7.0 can be used".
    report = triage(dev_paste("vllm-774-pascal-compute-capability-below-70"))
    assert report.verdict.root_cause == "cuda.capability" and "7.0" in report.verdict.summary
    assert triage("vLLM requires compute capability 8.0 or higher on this GPU\n").verdict.root_cause == "cuda.capability"
    assert not read_paste("compute the capability 7.0 of numbers\n").evidence


# --- the issue's title, read as a maintainer reads it ---------------------------------------------------------------

def test_the_title_is_read_only_when_the_body_names_no_cause():
    # mobileagent-60: the body shows nvidia-smi's header and Python; "Torch not compiled with CUDA enabled" is the title.
    body = dev_paste("mobileagent-60-cpu-torch-with-nvidia-driver")
    assert triage(body).verdict.root_cause is None
    report = triage(body, title="Torch not compiled with CUDA enabled")
    assert report.verdict.root_cause == "torch.cuda-built" and report.source["title"]["line"] == 1
    # A body that names a cause keeps it: comfyui-264's title speaks of results, its body of float64.
    body = dev_paste("comfyui-264-ddim-float64-mps")
    report = triage(body, title="Wrong results with DDIM on MPS")
    assert report.verdict.root_cause == triage(body).verdict.root_cause and "title" not in report.source


def test_a_title_alone_can_be_read_and_nothing_in_either_is_refused():
    report = triage("please help, see the screenshot", title="RuntimeError: Torch not compiled with CUDA enabled")
    assert report.verdict.root_cause and report.source["title"]["line"] == 1
    with pytest.raises(UsageError):
        triage("please help", title="it does not work")


def test_a_title_with_a_secret_or_controls_is_cleaned_before_anything_reads_it():
    token = "ghp_" + "a" * 36
    report = triage("please help", title="Torch not compiled with CUDA enabled \x1b[31m%s" % token)
    assert token not in json.dumps(report.source) and "\x1b" not in json.dumps(report.source)


def test_the_cli_reads_the_title_and_repeats_it_in_the_fix_command(cli, tmp_path):
    paste = tmp_path / "issue.md"
    paste.write_text(dev_paste("mobileagent-60-cpu-torch-with-nvidia-driver"), encoding="utf-8")
    result = cli("triage", str(paste), "--title=Torch not compiled with CUDA enabled")
    assert result.exit_code == 1 and "Line 1 is the issue's title" in result.output
    assert "fix --from %s --title 'Torch not compiled with CUDA enabled'" % paste in result.output
    fixed = cli("fix", "--from", str(paste), "--title", "Torch not compiled with CUDA enabled", "--print-commands")
    assert fixed.exit_code == 0 and "download.pytorch.org/whl/cu" in fixed.output


# --- installs a driver can run -------------------------------------------------------------------------------------

OLD_DRIVER = ("| NVIDIA-SMI 475.14       Driver Version: 475.14       CUDA Version: 11.4     |\n"
              "AssertionError: Torch not compiled with CUDA enabled\n")


def test_an_install_the_pasted_driver_cannot_run_says_to_update_the_driver_first():
    from mps_doctor.render.triage import render_triage

    reply = render_triage(triage(OLD_DRIVER), "markdown")
    fix = reply.split("**Fix:**", 1)[1].split("```", 2)[1]
    lines = [line for line in fix.splitlines() if line.strip()]
    assert lines[1].startswith("# update the NVIDIA driver first: it runs CUDA up to 11.4")
    assert "/whl/cu" in lines[2]


# --- a launcher's assertion that CUDA is available ------------------------------------------------------------------

WEBUI_LOG = ("Installing torch and torchvision\n"
             "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu121\n"
             "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to "
             "disable this check\n")


def test_the_webui_launchers_assertion_is_a_false_is_available_and_suspects_the_driver():
    paste = read_paste(WEBUI_LOG)
    assert paste.known["torch.cuda_available"].value is False and paste.known["torch.cuda_version"].value == "12.1"
    report = triage(WEBUI_LOG)
    assert report.verdict.root_cause == "cuda.driver-version" and report.verdict.suspected
    assert "530.30.02" in layer(report, "cuda.driver-version").summary  # CUDA 12.1 GA, Linux numbering
    # Without the index the build is unknown: is_available() False is the finding, nothing is suspected.
    report = triage(WEBUI_LOG.split("\n", 2)[2])
    assert report.verdict.root_cause == "cuda.available" and not report.verdict.suspected


# --- a program that says CUDA is unavailable, and the likeliest reason on Windows -----------------------------------

def test_an_apps_cpu_fallback_message_is_a_false_is_available():
    for text in ("No GPU being used. Careful, inference might be very slow!",
                 "没有发现支持的N卡, 使用CPU进行推理",
                 "UserWarning: The unoptimized RealESRGAN is slow on CPU. We do not use it."):
        assert read_paste(text).known["torch.cuda_available"].value is False, text


def test_on_windows_a_false_is_available_without_the_build_suspects_the_cpu_wheel():
    # rvc-350: a Windows venv, an RTX 3090, and RVC's "no supported N card, using the CPU".
    report = triage(dev_paste("rvc-350-rtx3090-windows-cpu-torch"))
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    # bitsandbytes-1254: "### System Info" names Windows 11 and an RTX 4090; the session prints False.
    report = triage(dev_paste("bitsandbytes-1254-rtx4090-cpu-torch-windows"))
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    assert "RTX 4090" in report.facts.host.nvidia_smi.gpus
    # The build shown decides instead; and off Windows the CPU wheel is not the likeliest reason.
    shown = triage("I'm on Windows 11\n>>> torch.__version__\n'2.5.1+cu124'\n>>> torch.cuda.is_available()\nFalse\n")
    assert layer(shown, "torch.cuda-built").status == Status.PASS
    linux = triage("I'm on Ubuntu 22.04\n>>> torch.cuda.is_available()\nFalse\n")
    assert linux.verdict.root_cause != "torch.cuda-built" and not linux.verdict.suspected


def test_a_false_is_available_alone_on_an_unshown_system_suspects_the_cpu_build():
    # nougat-1: "WARNING:root:No GPU found" beside "a modern nvidia GPU with an up-to-date driver", nothing else.
    # satflow-18: conda resolving PyTorch beside geospatial packages, then is_available() False.
    for case, title in (("nougat-1-no-gpu-found-cpu-torch", "No GPU found"),
                        ("satflow-18-conda-forge-pytorch-cpu-only", "Installing all dependencies result in Pytorch not seeing GPU")):
        report = triage(dev_paste(case), title=title)
        assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected, case
    # A CUDA build asked for (pytorch-serve-640's cu102 wheel) or a message beside the symptom (comosvc-6's "No CUDA
    # GPUs are available" under CUDA_VISIBLE_DEVICES) leaves the CPU build unsuspected.
    assert triage(dev_paste("pytorch-serve-640-cu102-torch-in-cuda101-image")).verdict.root_cause != "torch.cuda-built"
    report = triage(dev_paste("comosvc-6-visible-devices-1-single-gpu"))
    assert report.verdict.root_cause == "cuda.visible-devices" and not report.verdict.suspected


# review9: a second reader's pastes where a CPU build suspected without the system would be wrong advice.
SESSION = ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n"


@pytest.mark.parametrize("text", [
    "I installed the requirements with pip install -r requirements.txt\nexport CUDA_VISIBLE_DEVICES=\n" + SESSION,
    "pip install -r requirements.txt\n>>> torch.__version__\n'2.3.0+rocm6.0'\n" + SESSION,
    "pip install -r requirements.txt\n>>> torch.__version__\n'2.1.0a0+41361538.nv23.06'\n" + SESSION,
    "pip install -r requirements.txt\nI installed pytorch with cu118 but CUDA is not available",
    "conda install pytorch pytorch-cuda=12.1 -c pytorch -c nvidia\n" + SESSION,
    "pip install torch\nI started the container without --gpus all and CUDA is not available",
    "pip install torch\nMy laptop has no GPU.\n" + SESSION,
    "pip install torch\nFailed to initialize NVML: Driver/library version mismatch\n" + SESSION,
    "pip install torch\nHow can I run on the CPU when CUDA is not available?",
    "pip install torch\nif not torch.cuda.is_available(): raise RuntimeError('No GPU found')",
    "pip install -r requirements.txt on my Jetson Nano with JetPack 4.6\n" + SESSION,
    "conda env on a CentOS 7 cluster\n" + SESSION,
    "pip install torch on my Mac mini\n" + SESSION,
])
def test_no_cpu_build_is_suspected_where_the_paste_says_more_than_the_symptom(text):
    report = triage(text)
    assert not (report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected), report.verdict


def test_a_cpu_build_suspected_on_an_unnamed_system_says_so():
    report = triage("I installed everything with pip install -r requirements.txt\n" + SESSION)
    evidence = layer(report, "torch.cuda-built").details[0]
    assert "on a system the paste does not name" in evidence and "GPU named" not in evidence


def test_a_catalogue_message_decides_a_layer_that_the_pasted_facts_leave_open():
    # compvis-161: "Found no NVIDIA driver on your system" beside an RTX 3090 named in words: the GPU alone leaves the
    # driver open (checking/pasted.driver_as_pasted), the message decides it.
    report = triage(dev_paste("compvis-stable-diffusion-161-wsl1-no-nvidia-driver"),
                    title="RuntimeError: Found no NVIDIA driver on your system")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("cuda.driver", "cuda.no-driver")
    assert "RTX 3090" in report.facts.host.nvidia_smi.gpus
    # A parser's reading is not a message: os.linux on Windows stays open beside pip's variant listing (pytorch-54172).
    report = triage(dev_paste("pytorch-54172-windows-cu102-variant-not-published"))
    assert report.verdict.known_error == "pip.torch-variant-not-published" and report.verdict.root_cause != "os.linux"


def test_a_false_is_available_rules_out_missing_kernels_for_a_new_gpu():
    # torch.cuda.is_available() counts devices (cudaGetDeviceCount); a torch without sm_120 kernels still sees an
    # RTX 5080 and only warns, so False points elsewhere (the build, the driver).
    seen = triage("Windows 11, my GPU is an RTX 5080\n>>> import torch\n>>> torch.cuda.is_available()\nTrue\n")
    assert seen.verdict.root_cause == "cuda.capability" and seen.verdict.suspected
    unseen = triage("Windows 11, my GPU is an RTX 5080\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n")
    assert unseen.verdict.root_cause != "cuda.capability"


def test_people_name_their_nvidia_gpu_and_only_known_names_count():
    assert read_paste("my GPU is an RTX 3080 Ti on this box").known["nvidia_smi.gpu"].value == ("RTX 3080 Ti",)
    assert "nvidia_smi.gpu" not in read_paste("the RTX 9999 of my dreams").known
    assert read_paste("i cant use my RTX3080 GPU").known["nvidia_smi.capability"].value == ("8.6",)
    assert read_paste("服务器上有8张A100显卡").known["nvidia_smi.gpu"].value == ("A100",)
    assert "nvidia_smi.gpu" not in read_paste("model XA100B and RTX30800").known


# --- messages people write their own way, and apps' own messages ----------------------------------------------------

def test_torch_not_compiled_with_cuda_is_read_however_it_is_cased():
    # espnet-4513: "Assertion error: torch not compiled with cuda".
    assert triage(dev_paste("espnet-4513-torch-not-compiled-with-cuda")).verdict.root_cause == "torch.cuda-built"


def test_an_installers_python_refusal_and_python_311s_dataclass_check_fail_the_python_layer():
    # kohya-ss-1361 (SD.Next's installer, which kohya_ss shares) and rvc-1767 (fairseq on Python 3.11).
    for name, message in (("kohya-ss-1361-python-3113-incompatible", "launcher.python-version-incompatible"),
                          ("rvc-1767-mac-m2-fairseq-python311-dataclass", "python.dataclass-mutable-default")):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.known_error) == ("python.version", message), name


def test_a_torch_dll_windows_cannot_load_is_read_when_the_message_breaks_its_line():
    # quality-classifier-deberta-2: "Error loading" ends one line, the quoted fbgemm.dll path starts another.
    report = triage(dev_paste("quality-classifier-deberta-2-fbgemm-dll-windows-store-python"))
    assert report.verdict.root_cause == "torch.import" and "fbgemm.dll" in report.verdict.summary


def test_a_torch_dll_windows_cannot_load_is_read_when_the_paste_cuts_the_message_after_the_path():
    # ai-toolkit-133: `Error loading "D:\\...\\torch\\lib\\fbgemm.dll` ends the line, without its closing quote.
    report = triage(dev_paste("ai-toolkit-133-fbgemm-dll-libomp"))
    assert report.verdict.root_cause == "torch.import" and "fbgemm.dll" in report.verdict.summary
    assert not known_errors.search(known_errors.TORCH_DLL_NOT_FOUND, 'copy "C:\\torch\\lib\\c10.dll" here')


def test_a_setup_script_that_finds_no_nvcc_asks_for_a_cuda_toolkit_and_on_a_mac_for_linux():
    # replitlm-8: flash-attn's setup.py ("flash_attn was requested, but nvcc was not found") on an M1 Mac.
    report = triage(dev_paste("replitlm-8-m1-mac-flash-attn-needs-nvcc"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "torch.extension-build-no-cuda-home")
    linux = triage("Ubuntu 22.04, torch 2.3.1+cu121\n$ pip install flash-attn --no-build-isolation\n"
                   "RuntimeError: flash_attn was requested, but nvcc was not found.  Are you sure your environment has "
                   "nvcc available?\n")
    assert linux.verdict.known_error == "torch.extension-build-no-cuda-home" and linux.verdict.root_cause != "os.linux"


def test_a_layer_failed_by_a_parsers_reading_still_names_its_catalogue_message():
    # biomedia-2: pip's version listing fails python.version; pip.torch-no-version is the message that says so.
    verdict = triage(dev_paste("biomedia-2-torch-1102-no-wheel-for-space-python")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("python.version", "pip.torch-no-version")


def test_a_line_that_tells_the_fix_gives_no_fact_of_the_broken_state():
    # bark-173: "Update: Fixed it by running `pip install torch ... --index-url .../cu117 --force-reinstall`" is the fix;
    # the paste's state is Bark's "No GPU being used" on Windows 10.
    report = triage(dev_paste("bark-173-windows-no-gpu-cpu-torch"))
    assert "torch.cuda_version" not in {fact["fact"] for fact in report.source["facts"]}
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    stated = read_paste("I ran pip install torch --index-url https://download.pytorch.org/whl/cu121 and it fails\n")
    assert stated.known["torch.cuda_version"].value == "12.1"
    fixed = read_paste("Solved by pip install torch --index-url https://download.pytorch.org/whl/cu121\n")
    assert "torch.cuda_version" not in fixed.known


# --- installs and containers as their tools print them --------------------------------------------------------------

def test_a_conda_transaction_names_the_build_it_installs():
    # pytorch-23778 (the NEW packages list) and pytorch-91009 (the download table): conda resolved a CPU nightly.
    for name in ("pytorch-23778-conda-nightly-cpu-only-during-upload", "pytorch-91009-conda-nightly-cu116-py38-resolves-cpu"):
        report = triage(dev_paste(name))
        assert report.verdict.root_cause == "torch.cuda-built", name
    planned = read_paste("  pytorch   pytorch/linux-64::pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0\n")
    assert planned.known["torch.cuda_version"].value == "12.1" and planned.known["packages.torch"].value == "2.1.0"
    assert read_paste("  cpuonly   pytorch/noarch::cpuonly-2.0-0\n").known["torch.cuda_version"].value is None


def test_pip_falling_back_to_torchs_source_placeholder_means_no_wheel_for_this_python():
    # pytorch-29090: Python 3.8 on Windows in 2019; pip took torch-0.1.2.post2.tar.gz.
    verdict = triage(dev_paste("pytorch-29090-python38-windows-no-torch-wheels-2019")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("python.version", "pip.torch-source-placeholder")


def test_winerror_126_fails_the_import_only_under_torchs_own_import():
    # pytorch-39980: the traceback's torch/__init__.py frame, then "[WinError 126] ...".
    assert triage(dev_paste("pytorch-39980-torch150-cu92-winerror126-import")).verdict.root_cause == "torch.import"
    other = ('  File "C:\\\\Python37\\\\lib\\\\site-packages\\\\cv2\\\\__init__.py", line 5, in <module>\n'
             "OSError: [WinError 126] The specified module could not be found\n")
    assert not [e for e in read_paste(other).evidence if e.kind == "torch-dll-not-loaded"]


def test_a_container_without_gpu_access_fails_the_driver_layer():
    # floydhub-dockerfiles-3 (`docker run` without --gpus, is_available() False) and cnstark-pytorch-docker-19
    # ("nvidia-smi ... command not found" in the container).
    assert triage(dev_paste("floydhub-dockerfiles-3-docker-run-without-nvidia-docker")).verdict.root_cause == "cuda.driver"
    verdict = triage(dev_paste("cnstark-pytorch-docker-19-forgot-gpus-all")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("cuda.driver", "nvidia.smi-not-found")
    with_gpus = read_paste("$ docker run --gpus all -it pytorch/pytorch python\n>>> torch.cuda.is_available()\nFalse\n")
    assert not [e for e in with_gpus.evidence if e.kind == "container-without-gpus"]
    # A container on a Mac for the CPU: the docker line votes for no device.
    assert triage("$ docker run -it python:3.12 python -c 'import torch'\nOS: macOS 14.5 (arm64)\n").options.device == "mps"


def test_a_process_killed_by_a_signal_at_the_first_step_fails_the_smoke_layer():
    # ultralytics-3591: "zsh: bus error  yolo task=detect mode=train ..." on MPS with a torch nightly.
    verdict = triage(dev_paste("ultralytics-3591-bus-error-mps-training-torch-nightly")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("device.smoke", "process.crashed-by-signal")


def test_an_invalid_device_ordinal_fails_the_visible_devices_layer():
    verdict = triage("RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously "
                     "reported at some other API call\n").verdict
    assert (verdict.root_cause, verdict.known_error) == ("cuda.visible-devices", "cuda.invalid-device-ordinal")


def test_cuda_missing_in_a_hosted_notebook_is_its_runtime_without_a_gpu():
    # dedloc-3: transformers' fp16 message on Colab Pro; the runtime had no GPU.
    assert triage(dev_paste("dedloc-3-fp16-colab-without-gpu-runtime")).verdict.root_cause == "cuda.driver"
    kaggle = triage("Running in a Kaggle notebook\n>>> torch.cuda.is_available()\nFalse\n")
    assert kaggle.verdict.root_cause == "cuda.driver" and "Kaggle" in kaggle.verdict.summary
    # A machine compared with a notebook where it works is not the notebook.
    local = read_paste("It works fine on Colab, but locally:\n>>> torch.cuda.is_available()\nFalse\n")
    assert not [e for e in local.evidence if e.kind == "hosted-runtime-without-gpu"]
    # A GPU runtime that runs out of memory is no runtime without a GPU.
    oom = read_paste("On Colab: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    assert not [e for e in oom.evidence if e.kind == "hosted-runtime-without-gpu"]


def test_an_ngc_containers_driver_refusal_fails_the_driver_version_layer():
    # yolov5-1232: the YOLOv5 image (NGC's pytorch:20.10) needs driver 455.23; the host has 450.66.
    verdict = triage(dev_paste("yolov5-1232-docker-needs-driver-455-has-450")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("cuda.driver-version", "ngc.container-driver-too-old")


def test_bad_results_on_the_mac_are_a_silent_wrong_result():
    # lerobot-496: "Eval with mps gives bad results" is the title; the body's system info says macOS.
    report = triage(dev_paste("lerobot-496-mps-nonblocking-copy-garbage-eval"), title="Eval with mps gives bad results")
    assert report.verdict.root_cause == "device.parity"


def test_no_module_named_torch_fails_the_import_layer():
    # gpt-sovits-307: the Mac's conda env had no torch left after a nightly reinstall.
    verdict = triage(dev_paste("gpt-sovits-307-mac-nightly-torch-not-installed")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("torch.import", "torch.not-installed")
    # A part of torch, or another package, is another message.
    assert "torch.not-installed" not in {m.error.id for m in read_paste("No module named 'torch._C'\n").matches}
    assert "torch.not-installed" not in {m.error.id for m in read_paste("No module named 'torchvision'\n").matches}


def test_chinese_issue_form_fields_are_facts():
    # so-vits-svc-143: "### 系统平台版本号" MacOS 12.6, "### Python版本" 3.10.8, "### PyTorch版本" 1.13.1.
    paste = read_paste(dev_paste("so-vits-svc-143-mac-m1-training-needs-cuda"))
    assert paste.known["host.macos_version"].value == "12.6"
    assert paste.known["interpreter.version"].value == (3, 10, 8)
    assert paste.known["packages.torch"].value == "1.13.1"


def test_a_program_that_asserts_cuda_reads_as_no_cuda_on_a_mac_and_as_cuda_unavailable_elsewhere():
    # On a Mac the catalogue's macOS reading fails os.linux (CUDA asked for where it cannot run), and the reply leads
    # with the message's reading, not the system's alone.
    report = triage(dev_paste("so-vits-svc-143-mac-m1-training-needs-cuda"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "code.asserts-cuda-available")
    assert "no Mac has CUDA" in report.verdict.summary
    linux = triage("I'm on Ubuntu 22.04\n    assert torch.cuda.is_available()\nAssertionError\n")
    assert (linux.verdict.root_cause, linux.verdict.known_error) == ("cuda.available", "code.asserts-cuda-available")


@pytest.mark.parametrize("package", ["lmdeploy==0.5.3", "fbgemm-gpu==0.8.0", "onnxruntime-gpu", "cupy-cuda12x"])
def test_a_gpu_package_without_macos_wheels_fails_os_linux_on_a_mac_only(package):
    # lmdeploy#2253, llama-stack's fbgemm-gpu (round 15): PyPI has no macOS wheel and no sdist of these in any release.
    missing = "ERROR: Could not find a version that satisfies the requirement %s (from versions: none)\n" % package
    report = triage(missing + "mac:14.6 (23G80) Apple M1\n")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "pip.gpu-package-no-macos-wheel")
    # On Linux the same message leaves the system open (another CPU architecture, a Python its wheels lack).
    linux = triage(missing + "Ubuntu 22.04, aarch64\n")
    assert linux.verdict.root_cause != "os.linux" and linux.verdict.known_error == "pip.gpu-package-no-macos-wheel"


def test_a_package_that_knows_only_linux_and_windows_fails_os_linux_on_a_mac():
    # ChatGLM-6B#40: cpm_kernels 1.0.11's library loader raises this on any system but Linux and Windows.
    report = triage('    raise RuntimeError("Unknown platform: %s" % sys.platform)\nRuntimeError: Unknown platform: darwin\n'
                    "I'm on an M1 MacBook\n")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "package.linux-windows-only-on-macos")
    assert not read_paste("RuntimeError: Unknown platform: linux\n").matches
    assert not read_paste("RuntimeError: Unknown platform: darwinx\n").matches


def test_macos_temporary_folder_names_the_mac_and_a_cuda_only_setup_there_fails_os_linux():
    # openvino.genai#163: pip built auto-gptq in /private/var/folders/../T/ (macOS's per-user temporary folder).
    build = ('        File "/private/var/folders/gx/znq60x355475d1njb709q0jh0000gn/T/pip-install-2tmqwfxi/auto-gptq_3c9/setup.py", '
             'line 58, in <module>\n'
             '          CUDA_VERSION = "".join(os.environ.get("CUDA_VERSION", default_cuda_version).split("."))\n'
             "      AttributeError: 'NoneType' object has no attribute 'split'\n")
    assert read_paste(build).known["host.system"].value == "Darwin"
    assert (triage(build).verdict.root_cause, triage(build).verdict.known_error) == (
        "os.linux", "autogptq.setup-torch-without-cuda")
    linux = build.replace("/private/var/folders/gx/znq60x355475d1njb709q0jh0000gn/T/", "/tmp/")
    assert triage(linux).verdict.root_cause != "os.linux"
    # A folder of that name elsewhere is no Mac's (the 2-character and long components, then T/).
    assert "host.system" not in read_paste('File "/data/var/folders/x/train.py", line 1\nRuntimeError: boom\n').known


@pytest.mark.parametrize(("wheel", "system", "cause"), [
    # fastai-v3#4 (pip before 19.0 printed no "ERROR: "): a Linux wheel asked for on a Mac.
    ("torch-1.0.0-cp37-cp37m-linux_x86_64.whl", "on a mac", "os.linux"),
    ("torch-2.0.1+cpu-cp311-cp311-manylinux_2_17_x86_64.whl", "macOS 14.5", "os.linux"),
    # Off a Mac the system is left open; a macOS wheel refused on a Mac is another Python or architecture.
    ("torch-2.0.1+cpu-cp311-cp311-linux_arm64.whl", "Ubuntu 22.04", "pip.linux-wheel-not-supported"),
    ("torch-2.2.0-cp312-none-macosx_11_0_arm64.whl", "macOS 14.5", "pip.wheel-not-supported"),
])
def test_a_linux_wheel_refused_on_a_mac_fails_os_linux(wheel, system, cause):
    text = "%s is not a supported wheel on this platform.\n%s\n" % (wheel, system)
    assert triage(text).verdict.root_cause == cause
    # The refused wheel is not this machine's: neither its system nor its Python nor an installed torch.
    known = read_paste(text).known
    assert "packages.torch" not in known and "interpreter.version" not in known
    assert known.get("host.system") is None or known["host.system"].parser != "wheel"


def test_a_failed_assertion_of_cuda_on_windows_is_a_suspected_cpu_build():
    # deep-daze-72: `assert torch.cuda.is_available()` failed under C:\Python39, the torch's build unshown: the
    # assertion is the fact that is_available() returned False, and on Windows PyPI's torch is a CPU build.
    paste = read_paste(dev_paste("deep-daze-72-cuda-unavailable-cpu-torch-windows"))
    assert paste.known["torch.cuda_available"].value is False and paste.known["torch.cuda_available"].lines == (11,)
    report = triage(dev_paste("deep-daze-72-cuda-unavailable-cpu-torch-windows"))
    assert (report.verdict.root_cause, report.verdict.suspected) == ("torch.cuda-built", True)
    # An assertion that has not failed, or one inside a `docker build` log (no GPU there unless configured), is no fact.
    assert "torch.cuda_available" not in read_paste("  assert torch.cuda.is_available()\nx = torch.zeros(1)\n").known
    assert "torch.cuda_available" not in read_paste(
        "Step 5/9 : RUN python check.py\n    assert torch.cuda.is_available()\nAssertionError\n").known


# --- review findings ------------------------------------------------------------------------------------------------

def test_a_retold_capability_limit_that_the_named_gpu_meets_is_no_evidence():
    paste = read_paste("I use an RTX 4090. vLLM requires compute capability 7.0 or higher, which my card has\n")
    assert not [e for e in paste.evidence if e.kind == "capability-limit-retold"]


def test_a_docker_run_continued_on_the_next_lines_is_read_whole():
    paste = read_paste("$ docker run \\\n  --gpus all \\\n  img python x.py\n")
    assert not [e for e in paste.evidence if e.kind == "container-without-gpus"]


def test_a_script_that_asserts_cuda_is_no_finding_until_the_assertion_fails():
    source = "  assert torch.cuda.is_available()\nx = torch.zeros(1).cuda()\n"
    assert "code.asserts-cuda-available" not in {m.error.id for m in read_paste(source).matches}


def test_a_title_that_makes_the_body_an_embedded_report_never_crashes(cli, tmp_path):
    # A bare `check --format json` report as the body; the title "```json" would fence it into an embedded report.
    with open(os.path.join(TESTS_DIR, "golden", "check", "intel-mac-torch222.md"), encoding="utf-8") as handle:
        bare = handle.read().split("```json\n", 1)[1].split("\n```", 1)[0]
    body = tmp_path / "issue.md"
    body.write_text(bare, encoding="utf-8")
    result = cli("triage", str(body), "--title", "```json")
    assert result.exit_code in (0, 1, 2) and "internal error" not in result.output + getattr(result, "stderr", "")


def test_the_fix_command_repeats_the_title_as_triage_kept_it(cli, tmp_path):
    paste = tmp_path / "issue.md"
    paste.write_text("please help\n", encoding="utf-8")
    token = "ghp_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"
    result = cli("triage", str(paste), "--title", "Torch not compiled with CUDA enabled %s $(x)" % token)
    assert result.exit_code == 1 and token not in result.output and "$(x)" not in result.output


# --- round 4: a GPU beside CUDA that is not used, told in prose or by a trainer's log --------------------------------

def test_people_telling_torch_runs_on_the_cpu_beside_an_nvidia_gpu_is_a_false_is_available():
    for text in ("有4080显卡，却只使用CPU是怎么回事？GPU使用率一直是0%。",
                 "My RTX 3060 sits idle: it only uses the CPU",
                 "GPU usage is always 0% on my GeForce GTX 1080",
                 "我的模型检测不到cuda",
                 "cuda is not available with my RTX 3090"):
        found = read_paste(text).known["torch.cuda_available"]
        assert (found.value, found.parser) == (False, "prose"), text
    # On a Mac the GPU is no CUDA one; a sentence with no CUDA or NVIDIA word, or a command, tells nothing.
    for text in ("it only uses the CPU on my M1 Mac with cuda code", "I do not use the GPU for this",
                 ">>> print('only uses the CPU')  # cuda"):
        assert "torch.cuda_available" not in read_paste(text).known, text


def test_a_geforce_named_by_its_number_beside_a_word_for_a_gpu_is_that_geforce():
    cases = {"有4080显卡": "RTX 4080", "My gpu in this setup is a 1060 6gb": "GTX 1060", "my 3060 Ti card": "RTX 3060 Ti"}
    for text, name in cases.items():
        assert read_paste(text).known["nvidia_smi.gpu"].value == (name,), text
    for text in ("I bought 1080 shares", "version 1060 is out", "port 4080"):
        assert "nvidia_smi.gpu" not in read_paste(text).known, text


def test_a_named_nvidia_gpu_without_a_driver_line_or_system_suspects_a_cpu_build():
    # cosyvoice-687: the title names the RTX 4080 and the CPU run; no system, no driver, no build.
    report = triage(dev_paste("cosyvoice-687-rtx4080-cpu-torch"), title="有4080显卡，却只使用CPU是怎么回事？GPU使用率一直是0%。")
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    # A driver line shown leaves the build's suspicion to the layers that read it; so does a system that is Linux.
    shown = triage("NVIDIA-SMI 550.54.14    Driver Version: 550.54.14    CUDA Version: 12.4\nGPU 0: NVIDIA GeForce RTX 4080\n"
                   ">>> torch.cuda.is_available()\nFalse\n")
    assert shown.verdict.root_cause != "torch.cuda-built"
    linux = triage("I'm on Ubuntu 22.04 with an RTX 4080\n>>> torch.cuda.is_available()\nFalse\n")
    assert linux.verdict.root_cause != "torch.cuda-built" and not linux.verdict.suspected


def test_a_trainers_summary_line_on_the_cpu_is_a_false_is_available():
    # llamafactory-3228: transformers' "Process rank: 0, device: cpu, n_gpu: 0" beside eight A100s.
    paste = read_paste(dev_paste("llamafactory-3228-linux-a100-cpu-torch-device-cpu"))
    assert paste.known["torch.cuda_available"].value is False
    assert "transformers.training-device-cpu" in {match.error.id for match in paste.matches}
    assert "torch.cuda_available" not in read_paste("Process rank: 0, device: cuda:0, n_gpu: 8").known


def test_a_macos_before_11_is_an_intel_mac_and_people_call_intel_macs_x86():
    # Apple Silicon Macs run macOS 11 or later; invokeai-7176: "not bundled for x86 Macs anymore".
    assert read_paste("macOS 10.15.7 here").known["host.hw_arm64"].value is False
    assert "host.hw_arm64" not in read_paste("macOS 14.5 here").known
    assert read_paste("my mac is x86_64").known["host.hw_arm64"].value is False
    verdict = triage(dev_paste("invokeai-7176-intel-mac-torch-241-ceiling-222")).verdict
    assert verdict.root_cause == "hardware.apple-silicon"


def test_python_versions_people_write_without_a_colon_or_after_installing():
    assert read_paste("python version 3.12").known["interpreter.version"].value == (3, 12)
    assert read_paste("I guess this is because I have installed python 3.11.").known["interpreter.version"].value == (3, 11)


def test_poetrys_refusal_of_every_torch_wheel_is_a_missing_wheel():
    # second-me-32: Poetry skipped all 17 wheels of torch 2.5.1 for their ABI tags.
    verdict = triage(dev_paste("second-me-32-poetry-torch251-intel-mac")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("python.version", "poetry.torch-no-installation-candidates")


def test_pips_message_quoted_whole_by_a_person_is_pips_message():
    # pytorch-95628: pip returns 'no matching distribution found". ... I have installed python 3.11 (Windows, cu116).
    verdict = triage(dev_paste("pytorch-95628-python311-windows-cu116-no-matching")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("python.version", "pip.torch-no-matching-distribution")
    assert read_paste('pip says "No matching distribution found" for me').matches
    assert not read_paste("No matching distribution found for torchaudio-nightly").matches


def test_people_telling_the_cpu_build_got_installed_name_torchs_build():
    # pytorch-65338: "observe cpuonly version being installed" after a conda command that names no CUDA package.
    for text in ("installs CPU version even from a clean environment", "observe cpuonly version being installed",
                 "pip installed the cpu-only build of torch"):
        found = read_paste(text).known["torch.cuda_version"]
        assert (found.value, found.parser) == (None, "prose"), text
    assert "torch.cuda_version" not in read_paste("the CPU version is faster").known
    assert triage(dev_paste("pytorch-65338-conda-nightly-conda-forge-cpuonly")).verdict.root_cause == "torch.cuda-built"
    # The sentence still speaks of the machine's GPU: pytorch-23778 stays a CUDA paste.
    report = triage(dev_paste("pytorch-23778-conda-nightly-cpu-only-during-upload"))
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "torch.cuda-built")


def test_setup_scripts_python_refusals_and_their_python_lines():
    # kohya-ss-2617 (its setup_common.py) and sdnext-3561 (SD.Next's newer wording of its installer's refusal).
    for name in ("kohya-ss-2617-debian-python-3112-not-appropriate", "sdnext-3561-python-3127-required-3123-or-lower"):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.known_error) == ("python.version", "launcher.python-version-incompatible"), name
    assert read_paste("INFO     Python: version=3.12.7 platform=Windows").known["interpreter.version"].value == (3, 12, 7)
    assert read_paste("INFO     Python version is 3.11.2 (main, Mar 13 2023)").known["interpreter.version"].value == (3, 11, 2)


def test_an_assertion_inside_apples_mps_framework_is_a_kernel_bug():
    # pytorch-136132 (MPSNDArray's buffer check) and pytorch-148194 (MPSGraph's runtime on a nightly).
    for name in ("pytorch-136132-mps-sum-5d-negative-dim-crash", "pytorch-148194-mps-sdpa-nightly-placeholder-abort"):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.known_error) == ("device.parity", "mps.framework-assertion"), name


def test_a_title_that_tells_the_cpu_build_was_installed():
    # sdnext-3476: the log's tail names nothing; the title does.
    report = triage(dev_paste("sdnext-3476-torch-cpu-installed-on-nvidia-system"),
                    title="[Issue]: Torch cpu installed on nvidia system")
    assert report.verdict.root_cause == "torch.cuda-built"


def test_torchs_incompatible_gpu_warning_retold_fails_the_capability_layer():
    # nerfstudio-1307: pip swapped in torch 1.12.1 for CUDA 10.2, which "gives warnings such as device incompatible".
    report = triage(dev_paste("nerfstudio-1307-pip-replaced-torch-with-cu102-build"))
    assert report.verdict.root_cause == "cuda.capability"
    assert not read_paste("my GPU is not compatible with macOS, on my M1 Mac with cuda code").evidence
    assert not read_paste("the device is incompatible").evidence  # no CUDA in the paste


def test_a_32_bit_windows_or_python_told_in_prose_gets_no_wheel():
    # pytorch-149823: "Windows10 32bit" and Python 3.13, which torch supported on 64-bit platforms only.
    for text in ("（Windows10 32bit）", "I use 32-bit Python 3.7", "python 3.8 (32 bit) on windows"):
        assert read_paste(text).known["interpreter.pointer_bits"].value == 32, text
    for text in ("a 32 bit float tensor", "Windows 11 64-bit"):
        assert "interpreter.pointer_bits" not in read_paste(text).known, text
    report = triage(dev_paste("pytorch-149823-python313-windows-32bit"), title="Please support python 3.13!")
    assert report.verdict.root_cause == "python.version" and "32-bit" in layer(report, "python.version").summary


def test_yolov5s_older_banner_names_torchs_build():
    # yolov5-7639: "YOLOv5  2022-4-22 torch 1.11.0+cpu CPU" (YOLOv5 before 6.2 printed no Python).
    assert triage(dev_paste("yolov5-7639-gtx1080-torch-1110-cpu-wheel")).verdict.root_cause == "torch.cuda-built"
    known = read_paste("YOLOv5 🚀 v6.1-1 torch 1.11.0+cu113 CUDA:0 (NVIDIA GeForce GTX 1080, 8192MiB)").known
    assert known["torch.version"].value == "1.11.0+cu113" and "interpreter.version" not in known


def test_torchs_old_driver_message_retold_without_its_article():
    # pytorch-920: "NVIDIA driver on your system is too old (found version 6000)".
    verdict = triage(dev_paste("pytorch-920-driver-cuda6-too-old")).verdict
    assert (verdict.root_cause, verdict.known_error) == ("cuda.driver-version", "cuda.driver-too-old")


def test_on_windows_a_torch_version_without_its_cuda_label_beside_an_nvidia_gpu_suspects_a_cpu_build():
    # f5-tts-140 ("My setup: Windows 10, NVidia RTX 2070, CUDA 11.8, torch==2.3.0.") and f5-tts-404 (a list of lines).
    for name in ("f5-tts-140-windows-rtx2070-cpu-torch", "f5-tts-404-windows-rtx3070-cpu-torch"):
        verdict = triage(dev_paste(name)).verdict
        assert verdict.root_cause == "torch.cuda-built" and verdict.suspected, name
    labelled = triage("Windows 11\nRTX 3070\ntorch Version: 2.5.1+cu124\n")
    assert not labelled.verdict.suspected and layer(labelled, "torch.cuda-built").status == Status.PASS


def test_systems_and_torch_versions_people_list():
    cases = {"Windows 11": "Windows", "- Ubuntu 22.04": "Linux", "My setup: Windows 10, NVidia RTX 2070": "Windows"}
    for text, system in cases.items():
        assert read_paste(text).known["host.system"].value == system, text
    for text in ("wheels exist for Windows 10 and Linux", "Windows 11 is great, they say"):
        assert "host.system" not in read_paste(text).known, text
    assert read_paste("torch Version: 2.5.1").known["packages.torch"].value == "2.5.1"
    assert read_paste("my torch==2.3.0.").known["packages.torch"].value == "2.3.0"
    # What an install command or pip's error names is asked for, not installed.
    for text in ("pip install torch==2.3.0", "ERROR: No matching distribution found for torch==2.1.0"):
        found = read_paste(text).known.get("packages.torch")
        assert found is None or found.parser != "prose", text
    assert read_paste("So I have a 3060 and a core i9").known["nvidia_smi.gpu"].value == ("RTX 3060",)
    assert "nvidia_smi.gpu" not in read_paste("I have a 1080p monitor").known


def test_a_companion_message_names_the_companions_advisory_as_the_cause():
    # pyannote-855 (torchvision's undefined symbol) and pytorch-vision-1018 (its _C's "DLL load failed" on Windows).
    for name in ("pyannote-855-speechbrain-downgraded-torch-torchvision-abi",
                 "pytorch-vision-1018-windows-conda-torchvision-dll-load-failed"):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.known_error) == ("torch.companions", "torch.companion-abi-mismatch"), name
    # An advisory no pasted message decides still needs the machine.
    report = triage("Python 3.11.4 (main) on linux\n>>> import torch\n>>> torch.cuda.is_available()\nFalse\n")
    assert layer(report, "torch.companions").status == Status.SKIP


def test_a_linux_undefined_symbol_belongs_to_the_library_that_its_line_names_not_to_a_package_listed_after_it():
    # detectron2#3710: detectron2's _C needs a symbol of another torch; torchvision is only in the package list below.
    verdict = triage(dev_paste("detectron2-3710-undefined-symbol-prebuilt-mismatch")).verdict
    assert verdict.known_error == "torch.extension-abi-mismatch"
    # review12 M5: nor a package list above it, as issue templates put the environment first.
    error = ("ImportError: /home/u/detectron2/detectron2/_C.cpython-38-x86_64-linux-gnu.so: undefined symbol: "
             "_ZN2at4_ops5zeros4callEN3c108ArrayRefIlEE\n")
    assert triage("torch 1.10.0\ntorchvision 0.11.1\n\n" + error).verdict.known_error == "torch.extension-abi-mismatch"
    # A symbol that names torchvision is still torchvision's, and macOS's dyld names the library after the symbol.
    assert triage("ImportError: undefined symbol: _ZN11torchvision3ops4nms\n").verdict.known_error == \
        "torch.companion-abi-mismatch"
    dyld = "Symbol not found: __ZN3c105ErrorC1E\n  Referenced from: /opt/venv/lib/python3.11/site-packages/torchvision/_C.so\n"
    assert triage(dyld).verdict.known_error == "torch.companion-abi-mismatch"


def test_rvcs_line_that_it_uses_mps_is_no_cuda_problem():
    # tts-webui-89: "没有发现支持的N卡, 使用MPS进行推理" on an M2, then a dtype mismatch between MPS input and CPU weights.
    report = triage(dev_paste("tts-webui-89-rvc-mps-input-cpu-weight-half"))
    assert (report.options.device, report.verdict.root_cause) == ("mps", "torch.input-weight-type-mismatch")
    assert read_paste("没有发现支持的N卡, 使用CPU进行推理").known["torch.cuda_available"].value is False


def test_cuda_asked_for_on_a_mac_is_the_os_layer_of_cuda():
    # unsloth-685 ("no CUDA device found" on a MacBook M3) and sglang-508 (vLLM's Linux-only assertion on a Mac).
    for name in ("unsloth-685-macbook-m3-no-cuda-device", "sglang-508-vllm-only-supports-linux-on-mac"):
        report = triage(dev_paste(name))
        assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux"), name
    assert not read_paste("no CUDA device found on this Linux box").evidence


def test_an_amd_gpu_named_in_a_cuda_paste_fails_the_driver_layer():
    # sdwebui-16861: an RX 6800 on Windows 10 behind the webui's "Torch is not able to use GPU".
    report = triage(dev_paste("sdwebui-16861-amd-rx6800-windows-cuda-torch"), title="[Bug]: Torch is not able to use GPU; "
                    "add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check")
    assert report.verdict.root_cause == "cuda.driver"
    assert not read_paste("my Radeon RX 6800 with CUDA and an RTX 3090").evidence  # an NVIDIA GPU is named too
    assert not read_paste("Radeon Pro 5500M on my MacBook, cuda").evidence  # a Mac's AMD GPU
    # comic-translate-210's title names the GPU by its series alone; a Ryzen's integrated "Radeon Graphics" is a CPU's name.
    assert [e.kind for e in read_paste("Radeon GPU and Cuda incompatibility\ntorch.cuda.is_available(): False\n").evidence] \
        == ["amd-gpu-for-cuda"]
    assert not read_paste("CPU: AMD Ryzen 7 5800H with Radeon Graphics\ntorch.cuda.is_available(): False\n").evidence
    # review13 M1: an NVIDIA GPU named without its model, beside the Radeon, is no AMD GPU asking for CUDA.
    for hybrid in ("Ryzen 9 6900HS with an integrated Radeon GPU and an Nvidia GPU.\n",
                   "I replaced my old Radeon card with an Nvidia card last week.\n",
                   "Radeon GPU is disabled in BIOS, only the NVIDIA GPU is used.\n"):
        assert not read_paste(hybrid + "torch.cuda.is_available(): False\n").evidence, hybrid


def test_people_write_a_geforce_in_lower_case_and_debians_pip_folder_is_linux():
    # RVC-WebUI#618: "I have mobile rtx 3060 (6gb)"; xinference#328: /usr/local/lib/python3.8/dist-packages/ in a container.
    assert read_paste("I have mobile rtx 3060 (6gb) with ryzen 5600h cpu\n").known["nvidia_smi.gpu"].value == ("RTX 3060",)
    assert read_paste("my gtx1080 is slow\n").known["nvidia_smi.gpu"].value == ("GTX 1080",)
    assert "nvidia_smi.gpu" not in read_paste("the artx 3060 project\n").known
    linux = read_paste('  File "/usr/local/lib/python3.8/dist-packages/torch/__init__.py", line 1\n').known["host.system"]
    assert (linux.value, linux.parser) == ("Linux", "path")
    assert "host.system" not in read_paste('  File "/usr/local/lib/python3.8/site-packages/torch/__init__.py"\n').known


def test_a_gpu_a_person_names_does_not_show_that_the_driver_loads():
    named = triage("I have an RTX 3060 on Windows 11\n>>> torch.cuda.is_available()\nFalse\n")
    assert layer(named, "cuda.driver").status == Status.SKIP and "RTX 3060" in layer(named, "cuda.driver").summary
    listed = triage("GPU 0: NVIDIA GeForce RTX 3060 (UUID: GPU-1)\n>>> torch.cuda.is_available()\nFalse\n")
    assert layer(listed, "cuda.driver").status == Status.PASS  # nvidia-smi -L lists it: the driver answered


# --- the second review of round 4: sentences the new readings must not misread ----------------------------------------

def test_nvidia_mps_an_aws_m5_or_a_passing_mac_is_no_mac_asking_for_cuda():
    for text in ("Kubernetes node with 4x A100, driver 535.129.03, NVIDIA MPS (nvidia-cuda-mps-control) enabled.\n"
                 "RuntimeError: No CUDA GPUs are available\n",
                 "We moved the job to an m5.xlarge instance, Ubuntu 22.04.\nNow it fails: no CUDA GPUs are available\n",
                 "I'm on Ubuntu 22.04 with an RTX 4090 and driver 550.54.14.\nThe script says no CUDA device found.\n"
                 "Is it related to the M2 MacBook tutorial I followed?\n"):
        assert triage(text).verdict.root_cause != "os.linux", text


def test_a_gpu_that_works_is_told_and_no_cpu_build_is_read_against_it():
    for text in ("I double-checked that no CPU build got installed: torch.__version__ prints 2.3.1+cu121 and my RTX 3090 "
                 "trains fine.\n",
                 "I'm on Windows 11 with an RTX 4090 and PyTorch 2.5.1.\nTraining runs on the GPU at 100% utilization, but "
                 "the loss becomes NaN with AMP.\n",
                 "Training on my RTX 3090 works and is fast. The dataloader only uses the CPU for augmentation.\n"):
        report = triage(text)
        assert report.verdict.root_cause != "torch.cuda-built" and not report.verdict.suspected, text
        assert read_paste(text).known.get("torch.cuda_version") is None or \
            read_paste(text).known["torch.cuda_version"].parser != "prose", text


def test_people_who_name_two_systems_or_two_torches_decide_neither():
    paste = read_paste("Works on:\n- Windows 11, same GPU, same code\nFails on Ubuntu 22.04: CUDA is not available.\n")
    assert "host.system" not in paste.known
    paste = read_paste("It worked with torch==2.1.0 last year; with the current torch==2.5.1 training crashes.\n")
    assert "packages.torch" not in paste.known
    assert read_paste("I have torch 2.5.1 installed").known["packages.torch"].value == "2.5.1"


def test_32_bit_precision_on_a_mac_is_no_32_bit_python():
    text = "MacBook Pro M2, macOS 14.5\nI'm using Python 3.11, 32 bit precision (float32) is what I train with.\n"
    assert "interpreter.pointer_bits" not in read_paste(text).known
    assert triage(text).verdict.root_cause != "python.version"
    fix = triage("I am on Windows 10 32 bit with Python 3.8.10.\n").results
    command = next(r for r in fix if r.id == "python.version").remedy.actions
    assert not any('"' in " ".join(getattr(a, "argv", ()) or ()) for a in command)  # PowerShell 5.1 drops inner quotes


def test_an_amd_cpu_beside_an_nvidia_gpu_or_a_rocm_build_is_no_amd_gpu_for_cuda():
    for text in ("Laptop: AMD Ryzen 7 5800H with Radeon Graphics, plus an NVIDIA GeForce MX450.\n"
                 "Driver 551.23 installed. CUDA is not available in torch.\n",
                 "Ubuntu 22.04, Radeon RX 7900 XTX, ROCm 6.0, torch 2.3.0+rocm6.0.\n"
                 "torch.cuda.is_available() returns False after the kernel update.\n"):
        assert not [e for e in read_paste(text).evidence if e.kind == "amd-gpu-for-cuda"], text


def test_another_librarys_gpu_refusal_is_not_torchs_arch_list():
    text = ("Ubuntu 22.04, RTX 2080 Ti, torch 2.4.0+cu121, CUDA works.\n"
            "Loading with flash_attention_2 fails: FlashAttention says my GPU is not compatible.\n")
    assert triage(text).verdict.root_cause != "cuda.capability"


def test_the_trainers_cpu_line_on_a_mac_speaks_of_mps():
    text = ("MacBook Pro M2 Max, macOS 14.4, torch 2.2.1\nTraining runs on the CPU and is very slow:\n"
            "Process rank: 0, device: cpu, n_gpu: 0, distributed training: False\n")
    report = triage(text)
    assert report.options.device == "mps" and "nvidia-smi" not in render_triage(report, "markdown")


def test_torchs_own_dll_failure_comes_before_a_librarys_after_it():
    text = ("Windows 10, Python 3.10.11\n>>> import torch\nTraceback (most recent call last):\n"
            "  File \"C:\\venv\\lib\\site-packages\\torch\\__init__.py\", line 139, in <module>\n"
            "ImportError: DLL load failed while importing _C: The specified module could not be found.\n\n"
            "  File \"C:\\venv\\lib\\site-packages\\mmcv\\utils\\ext_loader.py\", line 13, in load_ext\n"
            "ImportError: DLL load failed while importing _ext: The specified module could not be found.\n")
    verdict = triage(text).verdict
    assert (verdict.root_cause, verdict.known_error) == ("torch.import", "windows.torch-c-dll-load-failed")


def test_a_memory_size_is_no_geforce():
    assert "nvidia_smi.gpu" not in read_paste("the GPU memory is 4080 MB in asitop").known


def test_companions_that_a_paste_lists_are_judged_on_their_versions():
    # pytorch-vision-5374: `conda list` rows of pytorch 1.10.1 and torchvision 0.2.2 on osx-arm64 (fixed by
    # installing torchvision 0.11.2); torch 1.10 is older than the release table, torchvision 0.11's METADATA pins it.
    report = triage(dev_paste("pytorch-vision-5374-osx-arm64-conda-torchvision-022-with-torch-110"))
    assert report.verdict.root_cause == "torch.companions"
    assert "torchvision 0.2.2 (torch 1.10.1 needs 0.11.x)" in layer(report, "torch.companions").summary
    known = read_paste("torchvision               0.2.2                      py_3    pytorch\n").known
    assert known["packages.torchvision"].value == "0.2.2" and "packages.torch" not in known
    # A mismatch beside a known message is not the cause: the message is.
    text = ("pytorch 2.5.1 py3.11_0 pytorch\ntorchvision 0.17.0 py311_cpu pytorch\n"
            "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64. "
            "Please use float32 instead.\n")
    report = triage(text)
    assert layer(report, "torch.companions").status == Status.WARN
    assert report.verdict.root_cause == "mps.float64-unsupported"
    # Matching companions pass, and a paste without them leaves the advisory to the machine.
    report = triage("pytorch 2.5.1 py3.11_0 pytorch\ntorchvision 0.20.1 py311_cpu pytorch\nRuntimeError: boom\n")
    assert layer(report, "torch.companions").status == Status.PASS and report.verdict.root_cause is None


def test_a_cpu_build_told_beside_the_cuda_install_that_fixed_it_is_still_the_cause():
    # kyutai-dsm-131: "It defaults to the [cpu] version even when having cuda installed", then the quick-fix
    # `uvx --with torch==2.5.1+cu124 --index-url .../cu124`: the CUDA build is asked for, not what the paste has.
    report = triage(dev_paste("kyutai-dsm-131-uvx-windows-cpu-torch"))
    assert report.verdict.root_cause == "torch.cuda-built"
    assert "packages.torch" not in read_paste("uvx --with moshi --with torch==2.5.1+cu124 --index-url "
                                              "https://download.pytorch.org/whl/cu124 python x.py").known
    for told in ("pip defaults to the cpu version", "The package installed Torch without the CUDA version"):
        assert read_paste(told).known["torch.cuda_version"].value is None, told
    # A CUDA build the paste shows installed (not in an install command) still outweighs the words.
    known = read_paste("pip installed the cpu version\ntorch 2.5.1+cu124\n").known
    assert known.get("torch.cuda_version") is None or known["torch.cuda_version"].parser != "prose"


def test_a_hand_made_environment_list_is_read_with_its_values_in_inline_code():
    # lerobot-4093: "- PyTorch: `2.11.0+cpu`", "- PyTorch CUDA build: `None`", "- NVIDIA driver: `580.88`" on Windows.
    report = triage(dev_paste("lerobot-4093-uv-sync-cpu-torch-windows-rtx5080"))
    assert report.verdict.root_cause == "torch.cuda-built"
    known = read_paste("- Python: `3.12.13`\n- PyTorch CUDA build: `12.8`\n- NVIDIA driver: \"580.88\"\n").known
    assert (known["interpreter.version"].value, known["torch.cuda_version"].value,
            known["nvidia_smi.driver_version"].value) == ((3, 12, 13), "12.8", "580.88")
    # Only a driver's version or a CUDA version is one; other answers are not facts.
    known = read_paste("- Driver: the latest one\n- PyTorch CUDA version: whatever pip gives\n").known
    assert "nvidia_smi.driver_version" not in known and "torch.cuda_version" not in known


def test_a_geforce_named_by_its_number_after_gpu_makes_a_cpu_run_a_cuda_question():
    # diamond-9: "it only runs on the CPU. Where can I activate GPU 0? (4090)"; the fix was torch from the cu118 index.
    report = triage(dev_paste("diamond-9-rtx4090-runs-on-cpu-torch-without-cuda"))
    assert (report.options.device, report.verdict.root_cause, report.verdict.suspected) == ("cuda", "torch.cuda-built", True)
    assert read_paste("my graphics card (3060) is idle").known["nvidia_smi.gpu"].value == ("RTX 3060",)
    for text in ("GPU 0? (2024)", "the GPU (4090 MB free)"):
        assert "nvidia_smi.gpu" not in read_paste(text).known, text


def test_an_install_the_paste_tells_as_its_fix_is_not_the_torch_that_failed():
    # monkeyplug-4 ("And reinstall with this command:" then the cu121 install) and pyTranscriber-56 (the cu126 install,
    # then "and it worked."): the CUDA build is the fix, and the torch that ran on the CPU had none.
    for name in ("monkeyplug-4-whisper-fp16-on-cpu-cpu-torch-rtx3070",
                 "pytranscriber-56-openai-whisper-installed-cpu-torch-windows"):
        assert triage(dev_paste(name)).verdict.root_cause == "torch.cuda-built", name
    index = "pip3 install torch --index-url https://download.pytorch.org/whl/cu121"
    for text in ("And reinstall with this command:\n\n%s\n" % index, "%s\nand it worked." % index,
                 "The quick-fix is:\n%s\n" % index):
        assert "torch.cuda_version" not in read_paste(text).known, text
    # An install that is not told as a fix is the one the paste has; the line after a fix's is the paste's own.
    assert read_paste(index + "\n").known["torch.cuda_version"].value == "12.1"
    assert read_paste("Reinstall with this command:\n%s\n\n%s\n" % (index, index)).known["torch.cuda_version"].lines == (4,)
    # kokoro-fastapi-320: "Change project-optional.dependencies to:" then a code block that pins the fixed torch.
    report = triage(dev_paste("kokoro-fastapi-320-rtx50-docker-torch-cu124-no-sm120"))
    assert (report.verdict.root_cause, report.verdict.suspected) == ("cuda.capability", True)
    snippet = "Change the dependencies to:\n```\n[project]\ngpu = [\n  \"torch==2.7.0+cu128\",\n]\n```\n"
    assert "packages.torch" not in read_paste(snippet).known
    # What a fix does not change stays read: the machine's system from a path in the fix's command.
    known = read_paste("How I fixed my install:\nRecreate the venv:\n`PS F:\\app> python -m venv venv`\n").known
    assert known["host.system"].value == "Windows"


def test_pip_seeing_only_older_releases_of_a_companion_is_the_python_layer():
    # benchmarl-29: torchrl>=0.2.0 asked for, pip lists up to 0.1.1 (0.2.0's wheels are cp38 to cp311; Python 3.7).
    report = triage(dev_paste("benchmarl-29-torchrl-020-python37"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("python.version", "pip.companion-no-version")
    listed = ("ERROR: Could not find a version that satisfies the requirement torchvision==0.15.2 "
              "(from versions: 0.17.0, 0.17.1, 0.18.0)")
    assert [m.error.id for m in read_paste(listed).matches] == ["pip.companion-no-version"]
    none = "ERROR: Could not find a version that satisfies the requirement torchrl (from versions: none)"
    assert [m.error.id for m in read_paste(none).matches] == ["torchrl.no-wheel-for-platform"]


def test_a_library_that_runs_only_on_nvidia_gpus_installed_on_a_mac_is_cuda_asked_on_a_mac():
    # deepspeed-mii-441: `pip install deepspeed-mii` on an M3 Pro MacBook ("We do not have support for the M3 hardware");
    # torch's own "not supported in Windows or MacOs" warning names no Windows machine.
    report = triage(dev_paste("deepspeed-mii-441-m3-mac-unsupported"))
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux")
    on_linux = "Ubuntu 22.04, RTX 4090\npip install flash-attn\nRuntimeError: boom\n"
    assert not read_paste(on_linux).evidence
    on_a_mac = "My MacBook Pro M2\npip install flash-attn --no-build-isolation\nerror: subprocess-exited-with-error\n"
    assert [e.kind for e in read_paste(on_a_mac).evidence] == ["cuda-asked-on-mac"]


def test_an_os_answer_that_names_no_linux_is_no_linux():
    # surya-216: "OS: Max os, chip: M1" before an MPSGraph assertion was read as a Linux distribution named "Max os".
    report = triage(dev_paste("surya-216-mpsgraph-placeholder-shape-assertion"))
    assert (report.options.device, report.verdict.known_error) == ("mps", "mps.framework-assertion")
    assert read_paste("OS: Max os, chip: M1\n").known["host.system"].value == "Darwin"
    assert read_paste("OS: Ubuntu 22.04.3 LTS (x86_64)\n").known["host.system"].value == "Linux"
    assert read_paste("OS: Could be anything\n").known.get("host.system") is None


def test_the_extension_builders_no_cuda_runtime_warning_is_cuda_unavailable():
    # stable-dreamfusion-236: "No CUDA runtime is found, using CUDA_HOME=..." on Windows (torch/utils/cpp_extension.py
    # warns it when a toolkit is there but torch.cuda.is_available() is False); the torch was a CPU build.
    report = triage(dev_paste("stable-dreamfusion-236-windows-no-cuda-runtime-cpu-torch"))
    assert report.verdict.root_cause == "torch.cuda-built"
    known = read_paste("No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n").known
    assert known["torch.cuda_available"].value is False


def test_cuda_said_to_be_missing_on_a_mac_and_a_program_finding_no_gpu():
    # nvdiffrast-186: "CUDA does not anymore support macOS, particularly M2" (nvdiffrast is CUDA-only).
    report = triage(dev_paste("nvdiffrast-186-m2-max-no-cuda-on-macos"))
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux")
    # nougat-1: the program's "No GPU found" beside an NVIDIA GPU is torch.cuda.is_available() False.
    assert read_paste("WARNING:root:No GPU found\nMy machine has an nvidia GPU\n").known["torch.cuda_available"].value is False
    assert "torch.cuda_available" not in read_paste("WARNING:root:No GPU found\nMy MacBook M2\n").known


def test_a_gpu_newer_than_most_torch_releases_suspects_torch_without_its_kernels():
    # uvr-1752 ("I upgraded from a RTX 3090 ... all RTX 50 Series card have same issues") and uvr-2045 ("I can only use
    # CPU because it wont load with rtx 5060 ti"): UVR's bundled torch has no sm_120 kernels.
    for name in ("uvr-1752-rtx-5080-gpu-conversion-stuck", "uvr-2045-rtx-5060-ti-gpu-conversion-wont-load"):
        verdict = triage(dev_paste(name)).verdict
        assert (verdict.root_cause, verdict.suspected) == ("cuda.capability", True), name
    known = read_paste("I upgraded from a RTX 3090\n").known
    assert "nvidia_smi.gpu" not in known
    assert read_paste("I upgraded from a RTX 3090 to a RTX 5080\n").known["nvidia_smi.gpu"].value == ("RTX 5080",)
    # A CPU run told beside such a GPU is the program's fallback, not torch.cuda.is_available() False.
    assert "torch.cuda_available" not in read_paste("My RTX 5090 is not used, it only uses the CPU\n").known
    # Not for a GPU most releases serve, nor where the paste shows a torch that has the kernels.
    report = triage("My RTX 4090 is not used, it only uses the CPU\n")
    assert layer(report, "cuda.capability").status != Status.FAIL
    report = triage("RTX 5090\ntorch 2.9.0+cu128\nRuntimeError: boom\n")
    assert layer(report, "cuda.capability").status != Status.FAIL or not report.verdict.suspected


def test_a_program_saying_torch_has_no_cuda_on_a_mac_is_cuda_asked_on_a_mac():
    # cellpose-809: "TORCH CUDA version not installed/working" on a Mac laptop (cellpose/core.py logs it wherever
    # torch.cuda is unavailable; on a Mac, CUDA does not exist).
    report = triage(dev_paste("cellpose-809-torch-cuda-message-on-mac"))
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux")
    assert not read_paste("Ubuntu 22.04, RTX 3060\nTORCH CUDA version not installed/working.\n").evidence


def test_an_issue_forms_unfilled_example_is_no_answer():
    # chainner-794: "- OS: [e.g. Windows 10]" is the template's example, left as it was.
    assert "host.system" not in read_paste("**Information:**\n- OS: [e.g. Windows 10]\n").known
    assert read_paste("- OS: Windows 10\n").known["host.system"].value == "Windows"


@pytest.mark.parametrize(("message", "entry"), [
    # pip names the package that asked for the requirement before the versions: "(from sentence-transformers)".
    ("ERROR: Could not find a version that satisfies the requirement torch (from sentence-transformers) "
     "(from versions: none)", "pip.torch-from-versions-none"),
    ("ERROR: Could not find a version that satisfies the requirement triton (from nemo-toolkit) (from versions: none)",
     "pip.triton-no-wheel"),
    ("ERROR: Could not find a version that satisfies the requirement torch>=2.4 (from docling) "
     "(from versions: 2.0.0, 2.1.0, 2.2.2)", "pip.torch-macos-x86-ceiling"),
])
def test_pips_messages_are_read_with_the_package_that_asked(message, entry):
    assert entry in [m.error.id for m in read_paste(message).matches]


def test_typographic_quotes_read_as_ascii():
    # GCC quotes names in ‘ ’ under a UTF-8 locale; chat apps and editors curl a pasted message's quotes.
    assert [m.error.id for m in read_paste("deform_conv_cuda.cpp:579:73: error: ‘TORCH_CHECK’ was not declared in "
                                           "this scope").matches] == ["torch.extension-torch-too-old"]
    assert "'aten::" in clean("NotImplementedError: The operator ‘aten::roll’ is not implemented")[0].text


def test_the_second_review_of_round_5_companions():
    # A CUDA build's companion comes from torch's index; a mismatch is the cause only of an error in loading code.
    env = ("PyTorch version: 1.10.1+cu113\nOS: Ubuntu 20.04.3 LTS (x86_64)\nIs CUDA available: True\n"
           "[pip3] torch==1.10.1+cu113\n[pip3] torchvision==0.11.1+cu113\n")
    report = triage(env)
    assert report.verdict.root_cause is None and layer(report, "torch.companions").status == Status.WARN
    assert "--index-url https://download.pytorch.org/whl/cu113" in render_triage(report, "text")
    report = triage(env + "ValueError: Expected input batch_size (16) to match target batch_size (32).\n")
    assert report.verdict.root_cause is None
    report = triage(env + "ImportError: /x/torchvision/_C.so: undefined symbol: _ZN3c10\n")
    assert report.verdict.root_cause == "torch.companions"
    # torchvision 0.2.x is pure Python and pins no torch: it serves the releases before the first exact pin (1.2.0).
    old = "pytorch 1.1.0 py3.7_cuda10.0 pytorch\ntorchvision 0.2.2.post3 py_3 pytorch\n"
    assert layer(triage(old), "torch.companions").status == Status.PASS
    # A sentence that begins with a companion's name is no conda row.
    assert "packages.torchvision" not in read_paste("torchvision 0.15.2 came from requirements.txt\n").known


def test_the_second_review_of_round_5_gpus():
    # The GPU someone else has, or had, is not the paste's; a series asked about is not one named.
    for text in ("On my friend's RTX 5090 it works. On my laptop (RTX 3060) GPU usage is 0%\n",
                 "I sold my RTX 5090 and went back to an RTX 3060\n", "我之前用的是 RTX 5090，现在换成了 RTX 3060\n"):
        assert read_paste(text).known["nvidia_smi.gpu"].value == ("RTX 3060",), text
    report = triage("Will this work with the RTX 50 series?\nOn my GTX 1080 Ti the app says 'No GPU found'\n")
    assert layer(report, "cuda.capability").status != Status.FAIL
    # torch's own arch list decides; a statement that CUDA is not available is kept beside a new GPU.
    report = triage(">>> torch.cuda.get_arch_list()\n['sm_80', 'sm_90', 'sm_120', 'compute_120']\nRTX 5090\n")
    assert report.verdict.root_cause is None
    assert read_paste("RTX 5090, torch 2.7.1+cu128\nCUDA is not available\n").known["torch.cuda_available"].value is False
    assert "torch.cuda_available" not in read_paste("My RTX 5090 is idle, it only uses the CPU\n").known


def test_the_second_review_of_round_5_fixes_and_words():
    session = ">>> import torch\n>>> torch.__version__\n'2.1.0+cpu'\n>>> torch.cuda.is_available()\nFalse\n"
    # An attempt that failed is not a fix; the torch that a session prints outweighs the index an install asked for.
    for intro in ("I have an RTX 3060 on Ubuntu 22.04. I reinstalled torch with the command from pytorch.org, nothing "
                  "changed:\n", "RTX 3060, Ubuntu 22.04. I tried the solution from #512:\npip install torch --index-url "
                  "https://download.pytorch.org/whl/cu121\nbut it still prints:\n"):
        assert triage(intro + session).verdict.root_cause == "torch.cuda-built"
    # "and it works" that goes on is no fix.
    known = read_paste("Ubuntu 24.04, RTX 5090. I use torch 2.8.0+cu128 and it works for a few epochs, then dies\n").known
    assert known["packages.torch"].value == "2.8.0+cu128"
    assert "torch.version" in read_paste(session.replace("False\n", "") + "and it works on the CPU, but not on the GPU\n").known
    # A fix told in words changes the machine too.
    assert "nvidia_smi.gpu" not in read_paste("Update: solved it by replacing the card with an RTX 5070\n").known
    # A CPU build chosen on purpose is no failure; a ROCm build is no CPU build.
    assert "torch.cuda_version" not in read_paste("Ubuntu VPS without a GPU, so I installed torch without CUDA on purpose\n").known
    rocm = "- PyTorch: `2.5.1+rocm6.2`\n- PyTorch CUDA build: None\n- GPU: AMD Radeon RX 7900 XTX\n"
    assert "torch.cuda_version" not in read_paste(rocm).known
    assert triage(rocm).verdict.root_cause != "torch.cuda-built"
    # Linux on a Mac's chip is Linux.
    assert read_paste("OS: Asahi Linux (Fedora Remix 39) on Apple M2\n").known["host.system"].value == "Linux"


def test_the_second_review_of_round_5_cuda_on_a_mac():
    placeholder = "RuntimeError: Placeholder storage has not been allocated on MPS device!\n"
    for text in ("I'm on a MacBook Pro M3, so I did not run `pip install flash-attn` from the README.\n",
                 "I know CUDA doesn't support macOS, that's why I set device=\"mps\" on my M1 Pro.\n"):
        assert triage(text + placeholder).verdict.root_cause == "mps.placeholder-storage", text
    both = "Same on Windows and macOS (MacBook Air M1 and my desktop PC): the log says \"CUDA is not available\"\n"
    assert not read_paste(both).evidence
    used = ("It prints \"WARNING:root:No GPU found\" but nvidia-smi shows python.exe using 10 GB on my RTX 3080, so "
            "the GPU is clearly used.\n")
    assert read_paste(used).known["torch.cuda_available"].value is True
    # A docker build sees no GPU: the extension builder's warning there is expected.
    build = ("Step 9/12 : RUN pip install ./submodules/simple-knn\n"
             "  No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n")
    paste = read_paste(build)
    assert "torch.cuda_available" not in paste.known and not paste.matches
    # pip listing torchvision up to 0.17.2 is an x86_64 Python on macOS; a local label on another index is no Python.
    intel = ("ERROR: Could not find a version that satisfies the requirement torchvision==0.19.0 (from versions: 0.15.2, "
             "0.16.0, 0.17.0, 0.17.1, 0.17.2)\n")
    assert [m.error.id for m in read_paste(intel).matches] == ["pip.torch-macos-x86-ceiling"]
    label = ("ERROR: Could not find a version that satisfies the requirement torchvision==0.16.0+cu118 (from versions: "
             "0.16.0+cu121, 0.17.0+cu121)\n")
    assert not read_paste(label).matches


def test_a_missing_wheel_for_a_python_the_release_supports_is_the_platforms():
    # pytorch-156215: uv reports Python 3.11.13 (torch 2.7 has cp311 wheels) and a manylinux_2_27 tag: the glibc, not
    # the Python, is why pip lists only up to 2.6.0; the reply never tells that Python 3.11 needs a newer one.
    report = triage(dev_paste("pytorch-156215-ubuntu1804-glibc-manylinux-2-28"))
    assert report.verdict.root_cause == "linux.glibc-too-old-for-torch-wheels"
    assert read_paste("Using Python 3.11.13 environment at: /home/x/envs/vllm\n").known["interpreter.version"].parser == "uv"
    # A Python a person names is not enough to clear it (transcribe-anything-16: they named 3.10, pip ran 3.12).
    assert triage(dev_paste("transcribe-anything-16-torch212-only-220-python312")).verdict.root_cause == "python.version"


def test_an_amd_gpu_beside_a_system_rocm_and_a_cuda_torch_asks_for_cuda():
    # stableswarmui-260: "Radeon RX6800XT" with ROCm 5.7 installed, and a CUDA torch that looks for Nvidia drivers.
    assert triage(dev_paste("stableswarmui-260-amd-rx6800xt-installer-cuda-torch")).verdict.root_cause == "cuda.driver"
    # A ROCm build of torch is AMD's own: no CUDA asked for.
    assert not read_paste("Radeon RX 7900 XTX, torch 2.5.1+rocm6.2, CUDA not available\n").evidence


def test_a_companion_message_beside_the_versions_pins_the_pasted_release():
    # The custom-ops message decides torch.companions; the pasted versions say what to pin, from torch's own index.
    text = ("PyTorch version: 1.10.1+cu113\nOS: Ubuntu 20.04.3 LTS (x86_64)\nIs CUDA available: True\n"
            "[pip3] torch==1.10.1+cu113\n[pip3] torchvision==0.11.1+cu113\n\nRuntimeError: Couldn't load custom C++ ops. "
            "This can happen if your PyTorch and torchvision versions are incompatible\n")
    report = triage(text)
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.companions", "torchvision.custom-ops-incompatible")
    assert "pip install torchvision==0.11.2 --index-url https://download.pytorch.org/whl/cu113" in render_triage(report, "markdown")


def test_an_advisory_the_pasted_facts_fail_is_said_in_the_reply_when_nothing_fails():
    env = ("PyTorch version: 1.10.1+cu113\nOS: Ubuntu 20.04.3 LTS (x86_64)\nIs CUDA available: True\n"
           "[pip3] torch==1.10.1+cu113\n[pip3] torchvision==0.11.1+cu113\n")
    reply = render_triage(triage(env), "markdown")
    assert "Nothing in the paste shows a failing layer" in reply and "Nothing in the paste shows a problem" not in reply
    assert "**Also worth a look** (`torch.companions`)" in reply
    assert "pip install torchvision==0.11.2 --index-url https://download.pytorch.org/whl/cu113" in reply
    # collect_env's package list asks for no install.
    assert "request.cuda_build" not in read_paste("[pip3] torch==1.10.1+cu113\n").known


def test_a_geforce_named_without_its_prefix_and_a_cpu_kept_in_use():
    # sdnext-4002: "device: nVidia GeForce 4070TI", "it keeps on using my CPU" on Windows 11 (an Intel GPU's torch).
    report = triage(dev_paste("sdnext-4002-intel-torch-after-switch-to-rtx4070ti"))
    assert (report.verdict.root_cause, report.verdict.suspected) == ("torch.cuda-built", True)
    assert read_paste("device: nVidia GeForce 4070TI\n").known["nvidia_smi.gpu"].value == ("RTX 4070 Ti",)
    assert read_paste("GeForce 1060 6GB\n").known["nvidia_smi.gpu"].value == ("GTX 1060",)
    assert read_paste("GeForce 940M\n").known["nvidia_smi.capability"].value == ("5.0",)


def test_a_bad_result_of_running_on_the_cpu_alone_is_no_wrong_result_on_the_gpu():
    # pytorch#14681: "I can use pytorch just with CPU features but is a bad result" under "old CUDA" and a GT 740M.
    cpu_alone = "The pytorch cannot detect the old CUDA.\nI can use pytorch just with CPU features but is a bad result.\n"
    assert not any(e.kind == "wrong-results" for e in read_paste(cpu_alone).evidence)
    assert not any(e.kind == "wrong-results" for e in read_paste("CUDA 11.8 here\nCPU-only gives bad results\n").evidence)
    wrong = "On CUDA the model gives bad results, and the same script on the CPU is right.\n"
    assert any(e.kind == "wrong-results" for e in read_paste(wrong).evidence)
    # The CPU alone right, the accelerator's result wrong on the same line, is a wrong result (review14 H8).
    for line in ("Using device mps. Only on CPU the output is correct, on MPS I get wrong results.\n",
                 "With CUDA the model gives bad results; just on the CPU it is right.\n"):
        assert triage(line).verdict.root_cause == "device.parity", line


def test_wrong_keypoints_on_mps_are_wrong_results():
    # ultralytics-2184: "The model is returning incorrect key points" on MPS, right on the CPU (pytorch#99794).
    assert triage(dev_paste("ultralytics-2184-mps-pose-keypoints-wrong")).verdict.root_cause == "device.parity"
    assert read_paste("MPS gives incorrect detections, the CPU is fine\n").evidence


def test_the_cpu_run_guard_beside_a_new_gpu_reads_the_cuda_build_the_paste_names():
    # cu128 builds code for sm_120 (nvidia.json's capability_ceiling): beside it a CPU run told is torch's again.
    assert read_paste("RTX 5090, torch 2.7.1+cu128, it only uses the CPU\n").known["torch.cuda_available"].value is False
    assert "torch.cuda_available" not in read_paste("RTX 5090, torch 2.6.0+cu126, it only uses the CPU\n").known


def test_advice_to_install_is_no_fact_of_the_setup_and_a_cpu_run_blamed_on_the_torch_is_a_cpu_build():
    # whisper-local-transcribe-8: "running the program on my CPU, since I had the wrong version of torch installed",
    # then advice for others: "You can install a version of PyTorch using" a cu121 index command.
    report = triage(dev_paste("whisper-local-transcribe-8-ran-on-cpu-wrong-torch"))
    assert report.verdict.root_cause == "torch.cuda-built"
    advice = read_paste("You can install a version of PyTorch using\npip install torch --index-url "
                        "https://download.pytorch.org/whl/cu121\n").known
    assert "torch.cuda_version" not in advice
    assert read_paste("pip install torch --index-url https://download.pytorch.org/whl/cu121\n").known[
        "torch.cuda_version"].value == "12.1"
    # A CPU run for another reason, or a wrong torch with no CPU run, tells no build.
    assert "torch.cuda_version" not in read_paste("It ran on my CPU because I had the wrong model selected\n").known
    assert "torch.cuda_version" not in read_paste("I had the wrong version of torch installed for CUDA 12\n").known
    assert read_paste("I ended up running it on my CPU with an RTX 3060\n").known["torch.cuda_available"].value is False


@pytest.mark.parametrize("message", [
    "Link requires a different Python (3.13.2 not in: '<3.13,>=3.9'): https://files.pythonhosted.org/x.tar.gz\n"
    "ERROR: Could not find a version that satisfies the requirement coqui-tts (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement coqui-tts (from versions: none)\n\n"
    "Link requires a different Python (3.13.2 not in: '<3.13,>=3.9'): https://files.pythonhosted.org/x.tar.gz",
    "ERROR: Package 'coqui-tts' requires a different Python: 3.13.2 not in '<3.13,>=3.9'",
    "ERROR: Packages require a different Python. 3.13.2 not in:",
])
def test_pip_refusing_a_package_for_its_requires_python_fails_the_python_layer_with_the_pasted_python(message):
    # pip 23.2's three wordings (index/package_finder.py, resolution/resolvelib/factory.py, legacy/resolver.py).
    report = triage(message + "\n")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("python.version", "pip.requires-different-python")
    assert read_paste(message + "\n").known["interpreter.version"].value == (3, 13, 2)


def test_pip_skipping_files_for_their_python_is_no_failure_when_it_installs():
    # pip -v prints "Link requires a different Python" for each old file it skips, then installs a newer one.
    verbose = ("Link requires a different Python (3.12.4 not in: '<3.10,>=3.7'): https://files.pythonhosted.org/x-0.1.tar.gz\n"
               "Successfully installed x-0.5 torch-2.4.1\n")
    assert "pip.requires-different-python" not in {m.error.id for m in read_paste(verbose).matches}


def test_a_comparison_in_a_quoted_message_keeps_its_meaning_without_markup():
    reply = render_triage(triage("ERROR: Package 'coqui-tts' requires a different Python: 3.13.2 not in '<3.13,>=3.9'\n"),
                          "markdown")
    assert "'＜3.13,＞=3.9'" in reply and "<3.13" not in reply


def test_a_github_hosted_macos_runner_fails_mps_availability():
    # pytorch-125197: "macos-14.xlarge says it is [available], but it's apparently not" in a CI job.
    report = triage(dev_paste("pytorch-125197-macos14-hosted-runner-mps-reported-available"))
    assert report.verdict.root_cause == "torch.mps-available"
    assert triage("CI on runs-on: macos-14 fails: MPS backend out of memory?\n").verdict.root_cause == "torch.mps-available"
    # Not without CI, nor without MPS: a runner label alone is no MPS problem.
    assert "hosted-macos-runner" not in {e.kind for e in read_paste("I use macos-14 on my laptop with MPS\n").evidence}
    assert not read_paste("runs-on: macos-14\nthe build fails on the CPU\n").evidence


def test_torch_dlls_from_different_builds_fail_the_import_on_windows():
    # comfyui-2345: "[WinError 182] The operating system cannot run %1. Error loading ...torch\lib\nvfuser_codegen.dll".
    report = triage(dev_paste("comfyui-2345-winerror182-nvfuser-dll-after-update"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.import", "windows.torch-dll-mismatched")


def test_a_32_bit_conda_named_by_its_channels_fails_the_python_layer():
    # pytorch-49330: PackagesNotFoundError with "https://conda.anaconda.org/pytorch/win-32" among the channels.
    report = triage(dev_paste("pytorch-49330-conda-win-32-channels"))
    assert report.verdict.root_cause == "python.version" and "32-bit" in layer(report, "python.version").summary
    known = read_paste("platform : linux-32\n").known
    assert (known["interpreter.pointer_bits"].value, known["host.system"].value) == (32, "Linux")
    assert "interpreter.pointer_bits" not in read_paste("  - https://conda.anaconda.org/pytorch/win-64\n").known


def test_an_amd_gpu_named_by_its_brand_asks_for_no_cuda_but_an_amd_cpu_does():
    # ruinedfooocus-121: "a fooocus user on amd", "missing nvidia driver".
    report = triage(dev_paste("ruinedfooocus-121-amd-gpu-no-nvidia-driver"))
    assert report.verdict.root_cause == "cuda.driver"
    assert "(AMD)" in render_triage(report, "text")
    assert not read_paste("I have an AMD Ryzen 9 and CUDA is not available with my nvidia card\n").evidence


def test_shapes_instead_of_a_picture_on_mps_are_wrong_results():
    # comfyui-3076: "now I can only render strange shapes", "odd, blob-like images" on an M1 Max after a macOS update.
    assert triage(dev_paste("comfyui-3076-samplers-blobs-after-macos-update-mps")).verdict.root_cause == "device.parity"
    assert not read_paste("The strange thing is that MPS works\n").evidence


def test_a_title_settles_the_chip_that_an_x86_64_install_log_leaves_open():
    # docling-1351: uv's "You're on macOS (`macosx_15_0_x86_64`)" under "Unable to install Intel MacOS using uv".
    case = dev_paste("docling-1351-uv-intel-mac-torch-no-wheel")
    assert triage(case).verdict.root_cause == "python.rosetta"
    titled = triage(case, title="Unable to install Intel MacOS using uv")
    assert titled.verdict.root_cause == "hardware.apple-silicon" and titled.source["title"]["line"] == 1
    # A title that names no chip leaves the text's verdict as it was.
    assert triage(case, title="uv sync fails").verdict.root_cause == "python.rosetta"


def test_intel_beside_a_macos_release_is_an_intel_mac_but_not_intel_software_or_an_apple_chip():
    assert read_paste("BFloat16 Unsupported on MPS (macOS Sequoia 15.1.1, Intel, AMD)\n").known["host.hw_arm64"].value is False
    assert "host.hw_arm64" not in read_paste("macOS 14.5 with Intel MKL installed\n").known
    assert read_paste("macOS 14.5 on an M1, it worked on Intel\n").known["host.hw_arm64"].value is True


@pytest.mark.parametrize("line", [
    "I use Krita on MacBook Pro 2014 with NVIDIA GeForce GT 750M (2 Go dedicaded).",
    "my MacBook Pro (16-inch, 2019) fails",
    "It crashes on my iMac (Late 2013)",
    "MPS support on MacOS Ventura with an AMD Radeon Pro 5700 XT GPU",
    "macOS 13.4 with a Radeon RX 580 eGPU",
])
def test_a_mac_of_an_intel_year_or_with_a_gpu_only_intel_macs_have_is_an_intel_mac(line):
    known = read_paste(line + "\n").known
    assert (known["host.hw_arm64"].value, known["host.system"].value) == (False, "Darwin")


@pytest.mark.parametrize("line", [
    "MacBook Air 2020",  # sold with an Intel CPU and with an M1
    "my Mac Studio 2022 fails",
    "MacBook Pro M1 2021",
    "It worked on my 2019 MacBook Pro but not on my M2",  # an Apple chip on the line
    "Does it run on a MacBook Pro 2015?",  # a question
    "my colleague's MacBook Pro 2017 runs it",  # somebody else's
    "macOS works, but Ubuntu with the Radeon RX 580 does not",  # the GPU is another system's
    "Works on macOS and on my RTX 3090",  # a GPU no Mac has
    "AMD Radeon Pro 5700 XT",  # a GPU with no Mac named
])
def test_no_intel_mac_from_a_year_or_gpu_that_is_not_the_users_macs(line):
    known = read_paste(line + "\n").known
    assert "host.hw_arm64" not in known or known["host.hw_arm64"].value is True


@pytest.mark.parametrize("text", [
    # review14: a Mac the user had, another machine or system anywhere in the paste, an Apple chip or arm64 anywhere,
    # MPS shown working, a folder's name.
    "It used to work on my 2019 MacBook Pro, but now I have a new Mac Studio and MPS fails.\n",
    "NVIDIA GeForce RTX 3090, Ubuntu 22.04\nI also tried on my MacBook Pro 2015 and it failed too\n",
    "MacBook Pro 2015 with GT 750M\nNVIDIA-SMI 418.56       Driver Version: 418.56       CUDA Version: 10.1\n",
    "torch.cuda.is_available() is False on my Dell XPS with GeForce GTX 960M (my MacBook works fine)\n",
    "     active environment : base\n       platform : osx-arm64\nIt crashes on my MacBook Pro 2019.\n",
    "Chip: Apple M2 Max\nMy iMac 2017 is in the other room.\n",
    ">>> torch.backends.mps.is_available()\nTrue\nMy machine: MacBook Pro 2019, Radeon Pro 5500M, macOS 13.\n",
    'File "/Users/me/mac2019/train.py", line 3, in <module>\nRuntimeError: MPS backend out of memory\n',
    'File "/Volumes/backup/MacBook Pro 2019/train.py", line 3\nRuntimeError: MPS backend out of memory\n',
    "I sold my MacBook Pro 2017 last year.\n",
    "My MacBook Pro 2015 and my Mac Studio both fail.\n",
])
def test_review14_an_intel_mac_mentioned_is_not_the_pastes_machine_when_the_paste_says_otherwise(text):
    known = read_paste(text).known
    assert "host.hw_arm64" not in known or known["host.hw_arm64"].value is True


def test_review14_an_mps_message_beside_mps_working_on_a_2019_mac_keeps_its_cause():
    text = (">>> import torch\n>>> torch.backends.mps.is_available()\nTrue\n"
            "My machine: MacBook Pro 2019, Radeon Pro 5500M, macOS 13.\n"
            "RuntimeError: MPS backend out of memory (MPS allocated: 3.50 GB, other allocations: 1.20 GB, max allowed: "
            "6.13 GB). Tried to allocate 256.00 MiB on private pool.\n")
    assert triage(text).verdict.known_error == "mps.out-of-memory"


def test_review14_an_apple_silicon_mac_that_died_is_no_mac_of_the_paste():
    # PROSE_LINE reads lines naming macOS, not every "Mac" (L1).
    assert "host.system" not in read_paste("my Apple Silicon Mac died, so now I use a Linux box\n").known


def test_an_intel_mac_named_by_its_year_or_gpu_fails_the_apple_silicon_layer_first():
    # krita-ai-diffusion-1167 (a 2014 MacBook Pro, GT 750M) and lightning-15861 (Radeon Pro 5700 XT on Ventura): the
    # maintainers answered that MPS there needs Apple Silicon, not that an MPS message is to be read.
    for slug in ("krita-ai-diffusion-1167-intel-mac-gt750m-no-mps", "lightning-15861-mps-on-intel-mac-amd-radeon"):
        report = triage(dev_paste(slug))
        assert (report.verdict.root_cause, report.verdict.suspected) == ("hardware.apple-silicon", False), slug


def test_intel_graphics_alone_asked_for_cuda_fail_the_driver_layer():
    # Wav2Lip#502: "Torch not compiled with CUDA enabled" and "My PC is Intel R lris Xe Graphics": no NVIDIA GPU.
    report = triage(dev_paste("wav2lip-502-intel-iris-not-compiled-cuda"))
    assert report.verdict.root_cause == "cuda.driver"
    assert "device to 'cpu'" in render_triage(report, "markdown")
    uhd = "torch.cuda.is_available() is False, CUDA not available\nGPU: Intel(R) UHD Graphics 620\n"
    assert [e.kind for e in read_paste(uhd).evidence] == ["intel-gpu-for-cuda"]
    # lora-scripts#101 (round 15): the CUDA runtime's "CUDA driver version is insufficient" is what it says without any
    # NVIDIA driver, so it is no NVIDIA GPU named; nvidia-smi's and collect_env's "Driver Version:" field is.
    insufficient = ("Error CUDA driver version is insufficient for CUDA runtime version\n"
                    "I'm using a integrated Intel GPU(iris xe graphics). os is win 11, torch==2.0.0+cu118\n")
    assert triage(insufficient).verdict.root_cause == "cuda.driver"
    assert "intel-gpu-for-cuda" not in [e.kind for e in read_paste(
        insufficient + "Nvidia driver version: 531.14\n").evidence]


@pytest.mark.parametrize("text", [
    "CUDA not available\nIntel(R) UHD Graphics 630 and an NVIDIA GeForce RTX 3060\n",  # a hybrid laptop
    "CUDA not available\nIntel Iris Plus Graphics, macOS 13.4\n",  # an Intel Mac: no Mac has CUDA
    "CUDA not available\nIntel(R) Arc(TM) A770 Graphics\n",  # Arc: torch's XPU builds
    "CUDA not available\nIntel(R) UHD Graphics and an AMD Radeon RX 6600\n",  # the AMD reading's
    "Intel(R) UHD Graphics 620\nMPS backend out of memory\n",  # not about CUDA
])
def test_no_intel_graphics_reading_beside_another_gpu_a_mac_arc_or_without_cuda(text):
    assert "intel-gpu-for-cuda" not in [e.kind for e in read_paste(text).evidence]


def test_a_message_only_a_cuda_build_prints_clears_the_cpu_build_suspicion():
    # time-series-library-10: "RuntimeError: No CUDA GPUs are available" on Windows: the build has CUDA, the GPU is hidden.
    report = triage(dev_paste("time-series-library-10-windows-export-visible-devices-2"))
    assert (report.verdict.root_cause, report.verdict.suspected) == ("cuda.visible-devices", False)
    windows = 'File "C:\\Users\\me\\x\\torch\\cuda\\__init__.py", line 1\nI have an RTX 3060 and it only uses the CPU\n'
    assert triage(windows).verdict.suspected
    assert not triage(windows + "    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available\n").verdict.suspected
    # The bare message is no proof: programs raise it themselves, and libtorch's C++ API raises it in a CPU build too
    # (the string is in PyPI's torch 2.13.0+cpu libtorch_cpu.so, beside torch::cuda's "Device index out of range").
    assert triage(windows + "RuntimeError: No CUDA GPUs are available\n").verdict.suspected


def test_a_uv_message_wrapped_at_the_terminal_width_is_read_whole():
    # transformerlab-317: "... a matching platform tag (e.g.," then "`macosx_10_16_x86_64`)" on the next line.
    wrapped = ("  × No solution found when resolving dependencies:\n  ╰─▶ Because torch==2.6.0 has no wheels with a "
               "matching platform tag (e.g.,\n      `macosx_10_16_x86_64`) and you require torch==2.6.0, we can\n")
    known = read_paste(wrapped).known
    assert (known["interpreter.machine"].value, known["interpreter.machine"].lines) == ("x86_64", (3,))
    # A backquote escaped for Markdown (unsloth-5187: "\\`macosx_26_0_x86_64\\`") is a backquote.
    escaped = "has no wheels with a matching\n      platform tag (e.g., \\`macosx_26_0_x86_64\\`)\n"
    assert read_paste(escaped).known["interpreter.machine"].value == "x86_64"
    assert triage(dev_paste("unsloth-5187-uv-x86-64-venv-on-apple-silicon")).verdict.root_cause == "python.rosetta"


def test_a_reports_own_os_and_architecture_fields_name_an_x86_64_python_on_a_mac():
    # qgis-ai-segmentation-166: "OS: darwin (Darwin 25.2.0)" and "Architecture: x86_64" in the plugin's error report.
    report = triage(dev_paste("qgis-ai-segmentation-166-rosetta-qgis-x86-64-report"))
    assert report.verdict.root_cause == "python.rosetta"
    assert read_paste("OS: macOS\nArchitecture: arm64\n").known["interpreter.machine"].value == "arm64"
    # Elsewhere an "Architecture:" row is lscpu's, the CPU's.
    linux = read_paste("OS: Ubuntu 22.04\nArchitecture: x86_64\n")
    assert not linux.evidence and "interpreter.machine" not in linux.known


def test_a_python_that_reports_x86_64_on_macos_without_the_chip_is_an_intel_mac_or_rosetta():
    # instructlab#2296: a universal2 python.org Python run from an i386 shell: platform.machine() prints x86_64.
    report = triage(dev_paste("instructlab-2296-universal2-python-under-i386-shell"))
    assert report.verdict.root_cause == "python.rosetta"
    assert "sysctl -n hw.optional.arm64" in render_triage(report, "markdown")
    told = ("/Library/Frameworks/Python.framework/Versions/3.11/bin/python3\n"
            "$ python3 -c 'import platform; print(platform.machine())'\nx86_64\n")
    assert triage(told).verdict.root_cause == "python.rosetta"
    # The chip shown decides instead (hardware.apple-silicon or python.rosetta by their own facts).
    assert triage("My Mac is an Intel Mac.\n" + told).verdict.root_cause == "hardware.apple-silicon"
    # An arm64 Python, or an x86_64 one off a Mac, is no such evidence.
    assert not any(e.kind == "x86_64-python-on-mac" for e in read_paste(told.replace("x86_64", "arm64")).evidence)
    assert not any(e.kind == "x86_64-python-on-mac" for e in read_paste(
        "/usr/bin/python3\n>>> import platform; platform.machine()\n'x86_64'\nUbuntu 22.04\n").evidence)


def test_a_title_that_names_both_an_intel_mac_and_rosetta_settles_nothing():
    # jev-chat-jarvis-mac-19: "(Intel Mac / Rosetta ...)" in the title of an M3 user's uv log.
    report = triage(dev_paste("jev-chat-jarvis-mac-19-uv-torch-macosx-26-x86-64-on-m3"),
                    title="torch 无 macOS x86_64 wheel（Intel Mac / Rosetta 环境首次启动 FATAL）")
    assert report.verdict.root_cause == "python.rosetta"
    assert "host.hw_arm64" not in read_paste("Intel Mac / Rosetta\n").known


@pytest.mark.parametrize("case,known_error", [
    ("langchain-chatchat-324-libcudnn-so8-after-reinstall", "torch.import-shared-library-missing"),
    ("pytorch-574-local-torch-folder-shadows-package", "torch.import-shadowed-by-source-folder"),
    ("pytorch-31554-libcaffe2-nvrtc-not-found-in-pycharm", "torch.nvrtc-library-not-found"),
])
def test_torch_that_does_not_load_fails_the_import_layer(case, known_error):
    report = triage(dev_paste(case))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.import", known_error)


def test_a_title_that_says_torch_is_not_being_compiled_with_cuda():
    # comfyui-4845: the text stops before the error; the title says it in its own words.
    report = triage(dev_paste("comfyui-4845-portable-restart-torch-not-compiled-cuda"),
                    title="Torch not being compiled with CUDA enabled")
    assert report.verdict.root_cause == "torch.cuda-built"


def test_an_install_that_left_cuda_out_is_a_cpu_build_unless_undone():
    # sleap-nn-307: "This installs just fine, but doesn't pull in the CUDA dependencies correctly." on Windows.
    assert triage(dev_paste("sleap-nn-307-uv-tool-install-windows-cpu-torch")).verdict.root_cause == "torch.cuda-built"
    assert read_paste("On Windows 11 pip didn't install the CUDA version\n").known["torch.cuda_version"].value is None
    # PyPI's Linux torch is a CUDA build: CUDA left out there (`--no-deps`) is no CPU build.
    assert "torch.cuda_version" not in read_paste("On Ubuntu, with --no-deps pip doesn't pull in the CUDA dependencies\n").known
    assert "torch.cuda_version" not in read_paste("At first it didn't install the CUDA build, reinstalling fixed it\n").known


def test_a_slurm_job_that_requested_no_gpu_fails_the_driver_layer():
    # synapse-199: `srun python -c "...is_available()"` prints False on the reserved node; no --gres=gpu anywhere.
    report = triage(dev_paste("synapse-199-slurm-srun-without-gpu-request"))
    assert report.verdict.root_cause == "cuda.driver" and "SLURM" in report.verdict.summary
    asked = "#SBATCH --gres=gpu:1\nsrun python -c 'import torch; print(torch.cuda.is_available())'\nFalse\n"
    assert not read_paste(asked).evidence
    # A job whose GPU works is no job without GPUs.
    assert not read_paste("srun python train.py\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n").evidence


def test_a_message_does_not_fail_a_layer_that_torch_itself_printed_passing():
    # Review of round 6 (r12): torch imported and printed its version, then a run-time NVRTC error.
    paste = (">>> import torch; print(torch.__version__, torch.cuda.is_available())\n1.4.0 True\n\n"
             "RuntimeError: Error in dlopen or dlsym: libcaffe2_nvrtc.so: cannot open shared object file: No such file\n")
    report = triage(paste)
    assert layer(report, "torch.import").status == Status.PASS
    assert report.verdict.known_error == "torch.nvrtc-library-not-found"
    assert read_paste(paste).known["torch.version"].value == "1.4.0"


# The second review of round 6: each reading against a paste that uses its words for something else.
def test_review6_a_platform_string_and_comfyuis_workflow_are_no_hosted_runner():
    paste = ("- Platform: macOS-14.6.1-arm64-arm-64bit\nMy ComfyUI workflow fails:\n"
             "RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.00 GB, max allowed: "
             "18.13 GB). Tried to allocate 1.00 GB on private pool.\n")
    assert triage(paste).verdict.root_cause != "torch.mps-available"
    assert triage("runs-on: macos-14 in CI, and MPS fails\n").verdict.root_cause == "torch.mps-available"


def test_review6_intel_software_or_a_denial_is_no_intel_mac():
    for line in ("macOS Sonoma 14.2, I installed the Intel version of Anaconda\n",
                 "uv sync fails on macOS Sequoia although this MacBook is not Intel\n"):
        assert "host.hw_arm64" not in read_paste(line).known, line


def test_review6_the_drivers_libcuda_is_no_torch_library_to_reinstall():
    paste = ('  File "/usr/local/lib/python3.8/dist-packages/torch/__init__.py", line 196, in <module>\n'
             "    _load_global_deps()\nOSError: libcuda.so.1: cannot open shared object file: No such file or directory\n")
    report = triage(paste)
    assert (report.verdict.root_cause, report.verdict.known_error) == ("cuda.driver", "cuda.driver-library-missing")


def test_review6_an_amd_cpu_by_its_model_number_is_no_amd_gpu():
    assert not read_paste("I have an AMD 5800X3D and CUDA is not available, torch 2.2.0+cu121 on Windows\n").evidence


def test_review6_wrong_results_that_are_gone_are_no_cause():
    paste = "The weird images I got on MPS with torch 2.0 are gone since I upgraded to 2.3.0\n"
    assert "wrong-results" not in {item.kind for item in read_paste(paste).evidence}


def test_review6_a_past_cpu_run_and_is_available_true_now():
    paste = ("I ended up running the program on my CPU, since I had the wrong version of torch installed,\n"
             "but now I reinstalled with cu121 and torch.cuda.is_available() returns True on my RTX 3060\n")
    assert read_paste(paste).known["torch.cuda_available"].value is True


def test_review6_advice_ends_where_the_users_own_paste_begins():
    paste = ("The README says you should install the requirements with:\n$ pip install -r requirements.txt\n"
             "ERROR: Could not find a version that satisfies the requirement torch==2.0.1 (from versions: 2.6.0, 2.7.0)\n"
             "Python 3.13.1 on Windows 11\n")
    assert read_paste(paste).known["interpreter.version"].value[:2] == (3, 13)


def test_review6_a_winerror_127_of_torchs_own_dll_gets_the_mismatched_dlls_fix():
    paste = ('OSError: [WinError 127] The specified procedure could not be found. Error loading '
             '"C:\\Python310\\lib\\site-packages\\torch\\lib\\c10_cuda.dll" or one of its dependencies.\n')
    report = triage(paste)
    assert report.verdict.known_error == "windows.torch-dll-mismatched"
    assert "Visual C++" not in render_triage(report, "markdown").split("**Also worth a look**")[0]


def test_review6_a_long_run_of_lines_without_a_blank_one_is_read_in_linear_time():
    """Twice the lines cost about twice the time (a quadratic reading would cost four times): CPU time of this process,
    best of two, which other work on a shared machine hardly changes, as a ratio, which a slower machine does not."""
    import time

    def cost(lines):
        best = float("inf")
        for _ in range(2):
            started = time.process_time()
            with pytest.raises(UsageError):
                triage("torch-\n" + "a\n" * lines)
            best = min(best, time.process_time() - started)
        return best

    assert cost(32000) < 3 * cost(16000)


@pytest.mark.parametrize("case", ["pytorch-6607-centos67-glibc-217-import-torch",
                                  "kumatea-pytorch-aarch64-16-ubuntu1804-glibc-228"])
def test_a_glibc_older_than_torchs_binary_fails_the_import_with_its_own_fix(case):
    report = triage(dev_paste(case))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.import", "torch.import-glibc-too-old")
    assert "ldd --version" in render_triage(report, "markdown")
    other = "ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by /x/onnxruntime/capi/a.so)\n"
    assert "torch.import-glibc-too-old" not in {m.error.id for m in read_paste(other).matches}


def test_nccls_detail_lines_below_its_header_are_the_same_message():
    # d-fine-289: "NCCL error in: ..." then, three lines below, "Duplicate GPU detected : rank 0 and rank 1 ...".
    report = triage(dev_paste("d-fine-289-nccl-duplicate-gpu-hardcoded-device"))
    assert report.verdict.known_error == "nccl.duplicate-gpu"


def test_a_cuda_pin_pypi_lacks_is_no_mac_unless_pytorchs_index_or_a_mac_is_named():
    # anticipation-10: Colab's pip on PyPI lists 2.0.1 but not 2.0.1+cu118: PyPI has no local builds.
    assert triage(dev_paste("anticipation-10-colab-pin-torch-cu118-local-version-not-on-pypi")).verdict.known_error == \
        "pip.torch-local-version-not-on-index"
    # sadtalker-180: the same listing with PyTorch's cu113 index searched: the platform has no CUDA builds (a Mac).
    assert triage(dev_paste("sadtalker-180-cu113-wheel-on-mac-m2")).verdict.root_cause == "os.linux"


def test_pytorchs_rocm_index_has_nothing_for_windows():
    # pytorch-106529: `--index-url https://download.pytorch.org/whl/nightly/rocm5.6` on Windows: "(from versions: none)".
    assert triage(dev_paste("pytorch-106529-rocm-index-on-windows-no-torch")).verdict.root_cause == "os.linux"
    linux = ("On Ubuntu 22.04: pip3 install torch --index-url https://download.pytorch.org/whl/rocm6.2\n"
             "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n")
    assert triage(linux).verdict.root_cause != "os.linux"


def test_a_python_from_intel_homebrews_prefix_is_an_x86_64_python_on_a_mac():
    # transcribe-anything-52: /usr/local/Cellar/python@3.10/... on an M1 (Homebrew's prefix on Intel Macs).
    assert triage(dev_paste("transcribe-anything-52-intel-homebrew-python-on-m1")).verdict.root_cause == "python.rosetta"
    apple = read_paste('  File "/opt/homebrew/Cellar/python@3.12/3.12.4/Frameworks/x.py", line 1\n')
    assert not apple.evidence and apple.known["host.hw_arm64"].value is True


def test_a_windows_pythons_folder_says_it_is_32_bit_and_the_placeholders_setup_line_is_its_message():
    # pytorch#37379: pip ran "c:\\program files (x86)\\python38-32\\python.exe" and built torch 0.1.2.post2's source.
    report = triage(dev_paste("pytorch-37379-32bit-python-torch-placeholder-build"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("python.version", "pip.torch-source-placeholder")
    for path in ("C:\\Users\\kim\\AppData\\Local\\Programs\\Python\\Python311-32\\python.exe -m pip install torch",
                 "  File \"C:\\Program Files (x86)\\Python310\\lib\\site-packages\\x.py\", line 1"):
        assert read_paste(path + "\n").known["interpreter.pointer_bits"].value == 32, path
    # review12 M6: only where one Python folder shows, and no 64-bit build is stated.
    two = ("C:\\Users\\k\\AppData\\Local\\Programs\\Python\\Python313\\python.exe\n"
           "C:\\Users\\k\\AppData\\Local\\Programs\\Python\\Python38-32\\python.exe\n")
    stated = ("  File \"C:\\Program Files (x86)\\Python310\\lib\\x.py\", line 1\nPython version: 3.10.4 (tags/v3.10.4) "
              "[MSC v.1929 64 bit (AMD64)] (64-bit runtime)\n")
    for text in (two, stated):
        assert "interpreter.pointer_bits" not in read_paste(text).known, text
    for path in ("C:\\Users\\kim\\AppData\\Local\\Programs\\Python\\Python311\\python.exe -m pip install torch",
                 "C:\\Program Files\\Python311\\python.exe", "C:\\Program Files (x86)\\Steam\\python32\\x.py"):
        assert "interpreter.pointer_bits" not in read_paste(path + "\n").known, path


def test_collect_envs_conda_rows_name_the_build_and_a_title_may_shorten_cudas_no_kernel_message():
    # pytorch#72957: only the "[conda]" rows of collect_env, "pytorch 1.10.2 py3.7_cuda10.2_cudnn7.6.5_0", under the
    # title "no kernel image is available".
    known = read_paste("[conda] pytorch                   1.10.2          py3.7_cuda10.2_cudnn7.6.5_0    pytorch\n").known
    assert (known["packages.torch"].value, known["torch.cuda_version"].value) == ("1.10.2", "10.2")
    report = triage(dev_paste("pytorch-72957-no-kernel-image-cu102-conda-build"), title="no kernel image is available")
    assert (report.options.device, report.verdict.root_cause, report.verdict.known_error) == (
        "cuda", "cuda.capability", "cuda.no-kernel-image")
    # A sentence that begins with a package's name is no row of `conda list`.
    assert "packages.torch" not in read_paste("torch 2.0 introduced compile\n").known


def test_a_torch_release_without_its_patch_is_read_where_it_is_labelled():
    # GraphMAE#9: "cuda = 11.1 / python = 3.6 / pytorch = 1.9" under DGL's "Please install the cuda version of dgl".
    assert read_paste("pytorch = 1.9\n").known["packages.torch"].value == "1.9"
    assert read_paste("Pytorch: 1.13\n").known["packages.torch"].value == "1.13"
    # review12 L1: only as a line of one's own setup, not a pin, a quoted README or an earlier state.
    for text in ("I read the pytorch 1.13 release notes", "torch==2.1", "- The project's README says: pytorch: 1.13",
                 "Previously I had pytorch = 1.9, now it works", "install_requires=['torch==1.9']"):
        assert "packages.torch" not in read_paste(text + "\n").known, text
    title = "dgl._ffi.base.DGLError: Device API gpu is not enabled. Please install the cuda version of dgl."
    report = triage(dev_paste("graphmae-9-dgl-cpu-build-device-api-gpu"), title=title)
    assert report.verdict.root_cause == "dgl.cpu-build"
    assert report.result("python.version").status == Status.PASS


def test_cudas_unknown_error_is_read_as_the_warning_and_as_the_runtime_error_torch_raises():
    # c10/cuda/CUDAFunctions.cpp: torch warns "CUDA initialization: " + the message, and _cuda_init() raises it bare
    # (StableSwarmUI#153, behind a "ComfyUI error: " prefix after the laptop slept).
    raised = "ComfyUI error: RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g."
    warned = "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an incorrectly set up environment"
    for text in (raised, warned):
        assert triage(text + "\n").verdict.known_error == "cuda.init-unknown-error", text
    report = triage(dev_paste("stableswarmui-153-docker-cuda-unknown-error-after-suspend"))
    assert report.verdict.root_cause == "cuda.available"


def test_a_paging_file_too_small_outranks_the_visual_cpp_advice_for_torchs_dll():
    # kair-127: "[WinError 1455] The paging file is too small ... Error loading ...\torch\lib\shm.dll".
    report = triage(dev_paste("kair-127-windows-paging-file-dataloader-workers"))
    assert report.verdict.known_error == "windows.paging-file-too-small"


def test_a_message_that_spans_lines_is_shown_by_the_line_where_it_ends():
    # langchain-chatchat-324: the catalogue's match starts at torch/__init__.py's frame and ends at the ImportError.
    shown = read_paste(dev_paste("langchain-chatchat-324-libcudnn-so8-after-reinstall")).known["message"].value
    assert any(text.startswith("ImportError: libcudnn.so.8") for text in shown)


def test_a_cuda_index_beside_a_cpu_build_told_is_the_way_out_not_the_build():
    # nougat-21: "install ... --index-url .../cu117) on Windows before running `pip install nougat-ocr` (which otherwise
    # installs only the CPU versions)".
    report = triage(dev_paste("nougat-21-windows-pip-installs-cpu-torch-no-gpu"),
                    title="Document solution to `No GPU found. Conversion on CPU is very slow.`")
    assert report.verdict.root_cause == "torch.cuda-built"
    installed = read_paste("I ran pip3 install torch --index-url https://download.pytorch.org/whl/cu117 and the GPU "
                           "is not found\n")
    assert installed.known["torch.cuda_version"].value == "11.7"


def test_an_update_that_swapped_torch_for_one_without_cuda():
    # TTS-WebUI#356: "it has dumbed down torch to no cuda ... while I have an RTX 3090".
    report = triage(dev_paste("tts-webui-356-windows-update-cpu-torch-rtx3090"), title="Torch does not have CUDA")
    assert report.verdict.root_cause == "torch.cuda-built"
    undone = read_paste("The update downgraded torch to cpu, so I reinstalled it from the cu121 index on Windows\n")
    assert "torch.cuda_version" not in undone.known


def test_no_torch_after_an_installers_refusal_is_that_refusals_consequence():
    # pytorch-160898: pip found no intel-openmp for Windows on ARM64, then the smoke test's "No module named 'torch'".
    report = triage(dev_paste("pytorch-160898-windows-arm64-nightly-intel-openmp"))
    assert report.verdict.known_error == "pip.torch-windows-dependency-no-arm64-wheel"
    alone = triage("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n    import torch\n"
                   "ModuleNotFoundError: No module named 'torch'\n")
    assert alone.verdict.known_error == "torch.not-installed"


def test_python_37s_dll_load_failed_under_torchs_init_is_torchs_own_dll():
    # fastai-501: `from torch._C import *` then "ImportError: DLL load failed: The specified module could not be found."
    report = triage(dev_paste("fastai-501-windows-cpu-env-torch-dll-load-failed"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.import", "windows.torch-c-dll-load-failed")


def test_only_its_own_sentence_can_deny_a_cpu_build_told():
    # ComfyUI_EchoMimic#4: "the node downloaded a none cuda Torch and replaced the one installed... never good."
    report = triage(dev_paste("comfyui-echomimic-4-manager-install-replaced-cuda-torch"))
    assert report.verdict.root_cause == "torch.cuda-built"
    assert "torch.cuda_version" not in read_paste("On Windows pip never installed the cpu version of torch\n").known
    assert "torch.cuda_version" not in read_paste("On Windows it installed the cpu version. Then I reinstalled it.\n").known
    # Only its own clause: a denial before a "but" is of something else (deforum#132), one after it still denies.
    report = triage(dev_paste("deforum-132-cpu-only-torch-deserialize"))
    assert report.verdict.root_cause == "torch.cuda-built"
    told = read_paste("It doesn't happen to everyone, but on Windows pip installs the cpu only version\n").known
    assert told["torch.cuda_version"].value is None
    assert "torch.cuda_version" not in read_paste("It works, but on Windows pip never installed the cpu version\n").known


def test_the_architecture_dyld_needs_is_the_processs_own():
    # Dream Textures#287: "(have (arm64), need (x86_64h))" on "my iMacPro (intel)": an Intel Mac.
    report = triage(dev_paste("dream-textures-287-imac-pro-intel-arm64-torch-dylib"))
    assert report.verdict.root_cause == "hardware.apple-silicon"
    rosetta = read_paste("OSError: dlopen(/opt/x/torch/lib/libc10.dylib, 0x0006): tried: '/opt/x/torch/lib/libc10.dylib' "
                         "(mach-o file, but is an incompatible architecture (have 'arm64', need 'x86_64'))\n")
    assert rosetta.known["interpreter.machine"].value == "x86_64" and "host.hw_arm64" not in rosetta.known
    assert "x86_64-python-on-mac" in [item.kind for item in rosetta.evidence]
    native = read_paste("(mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64e'))\n")
    assert native.known["interpreter.machine"].value == "arm64"
    assert "x86_64-python-on-mac" not in [item.kind for item in native.evidence]


def test_uv_naming_the_platforms_a_wheel_exists_for_blames_no_python():
    # uv#10843: a stale lock's plain torch from PyTorch's cu124 index; uv's hint names Windows and linux_aarch64.
    report = triage(dev_paste("uv-10843-windows-stale-lock-plain-torch-from-cu124-index"))
    assert report.verdict.root_cause == "uv.torch-plain-version-from-pytorch-index"
    assert report.facts.host.system == "Windows"


@pytest.mark.parametrize("name,cause", [
    # uv#12620: "Distribution `markupsafe==3.0.2 @ registry+https://download.pytorch.org/whl/cu118` can't be installed":
    # another package from PyTorch's index, not a torch wheel missing for this Python.
    ("uv-12620-windows-markupsafe-from-pytorch-cu118-index", "uv.dependency-from-pytorch-index"),
    # pytorch#35880: "(from versions: none)" for torch==1.4.0+cpu, then "the ssl module in Python is not available":
    # an index pip never read.
    ("pytorch-35880-pip-ssl-module-unavailable", "pip.ssl-module-unavailable"),
])
def test_a_missing_torch_wheel_that_is_not_the_pythons(name, cause):
    report = triage(dev_paste(name))
    assert report.verdict.known_error == cause
    assert layer(report, "python.version").status != Status.FAIL


def test_an_mps_fact_derived_from_an_old_torch_asks_nothing_about_mps():
    # pylance-release-1594: Linux, torch 1.9.0 (built without MPS, as every torch before 1.12) and a Pylance warning.
    report = triage(dev_paste("pylance-release-1594-vscode-interpreter-without-torch"), title="A question about import torch")
    assert report.options.device != "mps"
    assert report.verdict.known_error == "ide.torch-import-unresolved"


def test_a_template_pre_release_names_its_release():
    # pytorch-13536: "- PyTorch Version (e.g., 1.0):1.0preview" with "- Python version:3.6": no Python advice.
    report = triage(dev_paste("pytorch-13536-jupyter-from-base-env-not-torch-env"))
    assert layer(report, "python.version").status != Status.FAIL
    assert read_paste(dev_paste("pytorch-13536-jupyter-from-base-env-not-torch-env")).known["packages.torch"].value == "1.0"


@pytest.mark.parametrize("name", ["llms-from-scratch-791-ch07-mps-losses-differ-from-cpu",
                                  "pytorch-95448-ng-video-lecture-gpt-mps-gibberish-after-block-size"])
def test_losses_that_differ_from_the_cpus_and_gibberish_are_wrong_results(name):
    # "'mps' showed the different losses from those of 'cpu'"; "it bugs after 256 characters and starts creating gibberish"
    report = triage(dev_paste(name))
    assert (report.options.device, report.verdict.root_cause) == ("mps", "device.parity")
    assert not read_paste("On MPS I tried two different loss functions and both train fine\n").evidence


def test_a_message_that_on_a_mac_fails_os_linux_is_about_cuda_there():
    # FastSurfer#56: Docker's `--gpus` error (the title) on an M1: the catalogue's macOS reading fails os.linux, a layer
    # that only a CUDA run has; the paste asks for CUDA where it cannot run.
    report = triage(dev_paste("fastsurfer-56-docker-gpus-on-m1-no-cuda"),
                    title='docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].')
    assert (report.options.device, report.verdict.root_cause) == ("cuda", "os.linux")
    assert report.verdict.known_error == "docker.nvidia-gpu-unavailable"
    assert "Docker on a Mac" in report.verdict.summary


# --- review7: a second review's hostile pastes against this round's readings ------------------------------------------

@pytest.mark.parametrize("text", [
    "Windows 11, RTX 3090, driver 551.86. After the installer update torch.cuda.is_available() is False.\n"
    "I checked and the update has not downgraded my torch to cpu, so something else broke.\n",
    "Windows 11, RTX 4070. torch.cuda.is_available() returns False in the webui venv.\n"
    "Did pip install the cpu version? No, pip list shows torch 2.3.1 from the CUDA index.\n",
])
def test_review7_a_denied_or_asked_cpu_build_is_no_cpu_build(text):
    assert "torch.cuda_version" not in read_paste(text).known


def test_review7_a_cuda_index_the_user_installed_from_stays_beside_a_cpu_build_avoided():
    paste = read_paste("Windows 10, RTX 3060. I installed with pip install torch --index-url "
                       "https://download.pytorch.org/whl/cu121 since plain pip installs the cpu version.\n")
    assert paste.known["torch.cuda_version"].value == "12.1"


def test_review7_a_torch_installed_after_the_refusal_leaves_no_torch_its_own_cause():
    report = triage("$ pip install torch\nerror: externally-managed-environment\nSo I made a venv and installed torch "
                    "there: .venv/bin/pip install torch worked (Successfully installed torch-2.4.0).\nBut in Jupyter Lab:\n"
                    "ModuleNotFoundError: No module named 'torch'\n")
    assert report.verdict.known_error == "torch.not-installed"


def test_review7_another_packages_platform_hint_does_not_hide_torchs_python():
    report = triage("$ uv pip install mlx\nUsing CPython 3.14.0 interpreter at: .venv/bin/python3\n"
                    "  x No solution found when resolving dependencies:\n  `-> Because mlx==0.22.0 has no wheels with a "
                    "matching platform tag (e.g., `manylinux_2_35_x86_64`) and you require mlx, we can conclude that your "
                    "requirements are unsatisfiable.\n$ uv pip install torch\n  x No solution found when resolving "
                    "dependencies:\n  `-> Because torch has no wheels with a matching Python ABI tag and you require torch, "
                    "we can conclude that your requirements are unsatisfiable.\n")
    assert report.verdict.root_cause == "python.version"


def test_review7_an_intel_mac_beside_another_mac_is_not_the_one_that_fails():
    report = triage("The script works on my old MacBook Pro (Intel) on the CPU, but on my new Mac Studio it fails:\n"
                    "RuntimeError: MPS backend out of memory (MPS allocated: 18.13 GB, other allocations: 1.24 GB, max "
                    "allowed: 20.40 GB). Tried to allocate 1.00 GB on private pool.\n")
    assert report.verdict.root_cause != "hardware.apple-silicon"


def test_uvs_hint_wrapped_into_its_message_names_the_platform_too():
    # uv#11418: "hint: You're on Linux (`manylinux_2_39_x86_64`), " then "but `torch` (v2.5.1) only has wheels for ...".
    report = triage(dev_paste("uv-11418-linux-stale-lock-plain-torch-from-cu124-index"))
    assert report.verdict.root_cause == "uv.torch-plain-version-from-pytorch-index"


def test_is_available_answered_false_on_the_next_line():
    # ECCV2022-RIFE#76: "`print(torch.cuda.is_available())`" then "it prints False so clearly I am doing something wrong".
    report = triage(dev_paste("eccv2022-rife-76-windows-pip-torch-171-cpu-only"), title="Cannot get RIFE running on Nvidia GPU")
    assert report.verdict.root_cause == "torch.cuda-built"
    assert "torch.cuda_available" not in read_paste("print(torch.cuda.is_available())\nit is fine on my RTX 3060\n").known


def test_a_hosted_runtime_with_a_driver_torch_found_too_old_has_a_gpu():
    # colabtools-1685: "The NVIDIA driver on your system is too old (found version 10010)" in Colab, and
    # "torch.cuda.is_available()" then "returns `False`. Runtime type is obviously GPU."
    report = triage(dev_paste("colabtools-1685-pip-torch-17-colab-driver-10010"))
    assert report.verdict.known_error == "cuda.driver-too-old"


def test_pixi_asked_for_conda_forges_pytorch_gpu_on_a_mac_is_cuda_asked_where_it_cannot_run():
    # prompt-da#2: "failed to solve the conda requirements of 'default' 'osx-arm64'" / "No candidates were found for
    # pytorch-gpu >=2.4.0,<3".
    report = triage(dev_paste("prompt-da-2-pixi-pytorch-gpu-no-osx-arm64"), title="arm64 (apple silicon) compatibility")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "conda.cuda-packages-on-macos")


def test_corrupted_output_is_a_wrong_result():
    # pytorch#187280: "MPS backend produces corrupted output in SDXL image generation on macOS 27 beta".
    assert triage(dev_paste("pytorch-187280-mps-sdxl-corrupted-macos27-beta")).verdict.root_cause == "device.parity"


def test_a_solution_heading_opens_the_fix_and_the_cpu_build_it_uninstalls_was_there():
    # fluxgym#430: the problem, then "SOLUTION" and steps: "1.2 Uninstall the CPU-only version of PyTorch:" and an
    # install from the cu121 index, which is the fix, not the torch the problem had.
    report = triage(dev_paste("fluxgym-430-stability-matrix-cpu-torch-windows"),
                    title="FluxGym on Stability Matrix - (Problem and Solution)")
    assert report.verdict.root_cause == "torch.cuda-built"
    paste = read_paste("Windows 11, RTX 4070: training never uses the GPU.\n\n## Solution\n\n"
                       "pip install torch --index-url https://download.pytorch.org/whl/cu121\n")
    assert "torch.cuda_version" not in paste.known
    assert read_paste("Windows 11\n## Solution\n\n## Logs\npip install torch --index-url "
                      "https://download.pytorch.org/whl/cu121\n").known["torch.cuda_version"].value == "12.1"


def test_a_cpu_build_uninstalled_counts_only_where_it_is_not_denied():
    told = read_paste("Windows 11, RTX 3060. I uninstalled the cpu version of torch and it worked.\n")
    assert told.known["torch.cuda_version"].value is None
    assert "torch.cuda_version" not in read_paste("Windows 11, RTX 3060. There was no cpu version to uninstall, "
                                                  "I did not uninstall the cpu build.\n").known


def test_torch_written_with_its_version_in_brackets():
    # comfyui-rocm#131: "ComfyUI imported my user-installed CPU build of Torch (2.13.0+cpu) instead of the ROCm Torch".
    paste = read_paste(dev_paste("comfyui-rocm-131-user-site-cpu-torch-shadows-venv"))
    assert paste.known["packages.torch"].value == "2.13.0+cpu"
    assert read_paste("Using PyTorch (v2.0.1) on Ubuntu 22.04\n").known["packages.torch"].value == "2.0.1"


def test_a_title_that_says_the_gpu_runtime_was_selected_settles_the_hosted_runtime():
    # DALLE-pytorch#111: "No CUDA GPUs are available" in a Colab notebook; the title says "(even when GPU runtime is
    # selected)", so the runtime has a GPU and the CUDA runtime sees none of it.
    text = dev_paste("dalle-pytorch-111-colab-cuda-visible-devices-1")
    assert triage(text).verdict.root_cause == "cuda.driver"
    titled = triage(text, title="Runtime Error: No CUDA GPUs are avialable (even when GPU runtime is selected)")
    assert titled.verdict.root_cause == "cuda.visible-devices" and titled.source["title"]["line"] == 1
    assert triage(text, title="No CUDA GPUs: I forgot to select the GPU runtime").verdict.root_cause == "cuda.driver"


def test_a_gpu_the_users_own_torch_sees_and_the_program_does_not_is_hidden_from_the_program():
    # superpixel_fcn#45: torch.load's "... but torch.cuda.is_available() is False", then "But my
    # torch.cuda.is_acailable() is True." (the demo sets CUDA_VISIBLE_DEVICES='1' on a one-GPU machine).
    report = triage(dev_paste("superpixel-fcn-45-visible-devices-1-deserialize"))
    assert report.verdict.root_cause == "cuda.visible-devices"
    alone = triage("RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                   "False. If you are running on a CPU-only machine, please use torch.load with map_location=torch.device"
                   "('cpu') to map your storages to the CPU.\n")
    assert alone.verdict.root_cause != "cuda.visible-devices"


def test_a_gtx_16_with_nan_or_no_detections_is_its_half_precision_fault():
    # ultralytics/yolov5#5924: "YOLOv5 ... torch 1.10.0 CUDA:0 (NVIDIA GeForce GTX 1650, 4096MiB)" and "(no detections)";
    # #7908: "box and obj are nan ... only happens on GTX1660ti devices" (pytorch#58123, #69449).
    for name in ("yolov5-5924-gtx1650-cuda11-fp16-no-detections-windows", "yolov5-7908-gtx1660ti-fp16-nan-windows"):
        report = triage(dev_paste(name))
        assert report.verdict.root_cause == "device.parity", name
    assert triage("Windows 10, GTX 1660 Super, torch 1.10.0+cu113: training losses are NaN after a few steps\n"
                  ).verdict.root_cause == "device.parity"
    assert not [e for e in read_paste("GTX 1080 Ti, torch 1.10.0+cu113: the losses are nan\n").evidence
                if "GTX 16" in e.summary]
    assert not [e for e in read_paste("GTX 1660 Ti: the NaN losses are gone since I set amp=False\n").evidence
                if "half precision" in e.summary]


def test_an_illegal_instruction_on_an_armv8_0_board_is_torchs_import():
    # pytorch#132032 (torch 2.4.0 on a Raspberry Pi 4: "ldaddal" in libarm_compute) and ultralytics#15835 ("CPU
    # Cortex-A72", "failed with an illegal instruction").
    for name in ("pytorch-132032-raspberry-pi4-import-sigill-ldaddal-240",
                 "ultralytics-15835-raspberry-pi-torch-24-illegal-instruction"):
        assert triage(dev_paste(name)).verdict.root_cause == "torch.import", name
    assert not [e for e in read_paste("Raspberry Pi 5 (Cortex-A76): import torch -> Illegal instruction\n").evidence
                if "ARMv8.0" in e.summary]
    assert not [e for e in read_paste("Jetson Nano (Cortex-A57): import torch -> Illegal instruction (core dumped)\n"
                                      ).evidence if "ARMv8.0" in e.summary]


def test_a_fatal_signal_right_after_import_torch_fails_torchs_import():
    # jetson-nano-ubuntu-20-image-13: `>>> import torch`, then bash's "Illegal instruction (core dumped)".
    report = triage(dev_paste("jetson-nano-ubuntu-20-image-13-import-torch-illegal-instruction-numpy"))
    assert report.verdict.root_cause == "torch.import" and "SIGILL" in report.verdict.summary
    assert "python3 -X faulthandler -c 'import torch'" in render_triage(report, "markdown")
    for crashed, signal in (("$ python3 -c 'import torch'\nzsh: illegal hardware instruction  python3 -c 'import torch'\n",
                             "SIGILL"),
                            (">>> import torch\nSegmentation fault: 11\n", "SIGSEGV"),
                            (">>> import torch.nn as nn\nSegmentation fault (core dumped)\n", "SIGSEGV"),
                            ("% python -c \"from torch import nn\"\nzsh: bus error  python\n", "SIGBUS"),
                            (">>> import torch\nAbort trap: 6\n", "SIGABRT"),
                            (">>> import torch\nAborted (core dumped)\n", "SIGABRT")):
        assert [signal in e.summary for e in read_paste(crashed).evidence if e.kind == "torch-import-crashed"] == [True]
    # Not the import's (review13 H2): the session goes on, the command or statement does more than import, the import
    # is only named in prose or without a prompt, or the line only quotes a signal's name.
    for alive in (">>> import torch\n>>> x = 1\nSegmentation fault\n", "$ python3 -c 'import cv2'\nIllegal instruction\n",
                  "import torch gives Illegal instruction\n", "import torch\nprint(torch.__version__)\nSegmentation fault\n",
                  "import torch\nSegmentation fault\n", ">>> import torch\nthe log says: Segmentation fault\n",
                  "$ python3 -c \"import torch; print(torch.randn(2).cuda())\"\nSegmentation fault (core dumped)\n",
                  ">>> import torch; torch.zeros(1).to('mps')\nSegmentation fault: 11\n",
                  ">>> import torch, cv2\nIllegal instruction (core dumped)\n",
                  "python -c \"import torch\" works fine, but python train.py gives\nSegmentation fault (core dumped)\n",
                  "$ python -c 'import torch' && python run.py\nSegmentation fault (core dumped)\n"):
        assert not [e for e in read_paste(alive).evidence if e.kind == "torch-import-crashed"], alive
    # review13 H2: a crash in an MPS one-liner stays the device's.
    assert triage("% python3 -c \"import torch; torch.ones(1, device='mps')\"\nzsh: segmentation fault  python3 -c\n"
                  ).verdict.root_cause == "device.smoke"


def test_a_geforce_series_named_by_its_thousands_is_the_series_not_the_workstation_card():
    # Applio#969: the title "SM_120 error on RTX 5000 series", the body only "not able to start the application".
    report = triage(dev_paste("applio-969-rtx-5000-sm120-bundled-torch"), title="SM_120 error on RTX 5000 series")
    assert report.verdict.root_cause == "cuda.capability" and report.verdict.suspected
    assert read_paste("GPU 0: Quadro RTX 5000\n").known["nvidia_smi.capability"].value == ("7.5",)
    assert read_paste("RTX 4000 series cards work\n").known["nvidia_smi.capability"].value == ("8.9",)


def test_pips_conflict_check_names_a_companion_pinning_another_torch_after_what_broke():
    # flair#2192: "ERROR: torchvision 0.9.0+cu101 has requirement torch==1.8.0, but you'll have torch 1.7.1 which is
    # incompatible." (pip before 20.3); pip 23.2.1 writes "requires torch==2.1.0, but you have torch 2.1.1 ...".
    report = triage(dev_paste("flair-2192-colab-pin-torch-171-torchvision-090-needs-180"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.companions", "pip.companion-pins-another-torch")
    newer = triage("ERROR: pip's dependency resolver does not currently take into account all the packages that are "
                   "installed.\ntorchvision 0.16.0 requires torch==2.1.0, but you have torch 2.1.1 which is incompatible.\n")
    assert newer.verdict.known_error == "pip.companion-pins-another-torch"
    # pyannote-audio#855: the same conflict, then torchvision's own failure, which explains the layer.
    report = triage(dev_paste("pyannote-855-speechbrain-downgraded-torch-torchvision-abi"))
    assert report.verdict.known_error == "torch.companion-abi-mismatch"


def test_mps_asked_off_a_mac_is_answered_with_this_machines_device_not_a_reinstall():
    # llama-mps#6: "PyTorch is not linked with support for mps devices" on Linux with torch 1.13.1+cu117.
    reply = render_triage(triage(dev_paste("llama-mps-6-linux-nvidia-runs-mac-only-code")), "markdown")
    assert "device = 'cuda'" in reply and "pip install" not in reply
    mac = triage("macOS 14.5, Apple M2\nRuntimeError: PyTorch is not linked with support for mps devices\n")
    assert "pip install" in render_triage(mac, "markdown")


def test_a_models_code_that_needs_flash_attn_on_a_mac_needs_linux():
    # inference#298: "Mac m1" and transformers' "This modeling file requires the following packages that were not
    # found in your environment: flash_attn".
    report = triage(dev_paste("xinference-298-qwen-flash-attn-on-mac-m1"))
    assert (report.verdict.root_cause, report.verdict.known_error) == ("os.linux", "transformers.remote-code-needs-flash-attn")
    linux = triage("Ubuntu 22.04, RTX 4090\nImportError: This modeling file requires the following packages that were not "
                   "found in your environment: flash_attn. Run `pip install flash_attn`\n")
    assert linux.verdict.root_cause != "os.linux"


def test_a_python_the_paste_says_the_program_does_not_work_with_is_its_python_version():
    # InvokeAI#6377 ("installation if Python higher then 3.11") and stable-diffusion-webui#15667 ("later versions of
    # Python not being compatible").
    report = triage(dev_paste("invokeai-6377-python-312-windows-installer"), title="[bug]: installation if Python higher then 3.11")
    assert report.verdict.root_cause == "python.version" and "newer than 3.11" in report.verdict.summary
    assert triage(dev_paste("sdwebui-15667-python312-default-python3")).verdict.root_cause == "python.version"
    # torch's own message is the catalogue's, and a question tells nothing.
    dynamo = triage(dev_paste("chattts-ui-36-dynamo-python-312-linux"))
    assert dynamo.verdict.known_error == "torch.dynamo-python-unsupported"
    assert not [e for e in read_paste("Is it not working with Python 3.12?\n").evidence if e.kind == "python-blamed"]


def test_a_title_is_read_where_the_text_shows_only_that_cuda_is_unavailable():
    text = "import torch\nprint(torch.cuda.is_available())\nFalse\n"
    assert triage(text).verdict.root_cause == "cuda.available"
    titled = triage(text, title="CUDA not available on my RTX 3060 with Windows 11")
    assert (titled.verdict.root_cause, titled.verdict.suspected) == ("torch.cuda-built", True)
    assert triage(text, title="CUDA is not available").verdict.root_cause == "cuda.available"
    # Beside an install, the symptom alone suspects the build (suspected.symptom_alone); a title naming the system
    # decides, a Mac's even where that reading finds CUDA itself the problem.
    installed = "I installed everything with conda.\n" + text
    alone = triage(installed)
    assert (alone.verdict.root_cause, alone.verdict.suspected, alone.facts.host.system) == ("torch.cuda-built", True, "unknown")
    for title, system, root in (("cuda not available on Windows 11", "Windows", "torch.cuda-built"),
                                ("cuda not available on Ubuntu", "Linux", "cuda.available"),
                                ("cuda not available on my MacBook Pro", "Darwin", "os.linux")):
        titled = triage(installed, title=title)
        assert (titled.facts.host.system, titled.verdict.root_cause) == (system, root), title
        assert titled.source["title"]["text"] == title


def test_an_unpinned_torch_beside_an_extra_cuda_index_is_no_cuda_build():
    # h2ogpt#890: "pip install -r requirements.txt --extra-index-url https://download.pytorch.org/whl/cu117" gave
    # "No GPU"; "However, this works:" then the pinned +cu117 install from --index-url, which is the fix.
    paste = read_paste(dev_paste("h2ogpt-890-requirements-extra-index-no-gpu"))
    assert "torch.cuda_version" not in paste.known and paste.known["torch.cuda_available"].value is False
    pinned = read_paste("pip install torch==2.0.0+cu117 --extra-index-url https://download.pytorch.org/whl/cu117\n")
    assert pinned.known["torch.cuda_version"].value == "11.7"


def test_review8_a_workaround_heading_keeps_the_environment_under_it():
    paste = ("### Describe the bug\nTraining crashes.\n\n### Workaround\n-\n\nCollecting environment information...\n"
             "PyTorch version: 2.1.0+cpu\nIs debug build: False\nCUDA used to build PyTorch: None\n"
             "OS: Ubuntu 22.04.3 LTS (x86_64)\nPython version: 3.11.5 (main) [GCC 11.2.0] (64-bit runtime)\n"
             "Is CUDA available: False\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090\n"
             "Nvidia driver version: 535.104.05\n\nAssertionError: Torch not compiled with CUDA enabled\n")
    known = read_paste(paste).known
    assert known["nvidia_smi.driver_version"].value == "535.104.05" and known["interpreter.version"].value[:2] == (3, 11)
    bold = read_paste("**Workaround**\nnone found yet\n\n**Environment**\nPyTorch version: 2.1.0+cpu\n").known
    assert bold["torch.version"].value == "2.1.0+cpu"


def test_review8_a_cpu_build_uninstalled_in_an_attempt_that_failed_says_nothing_of_the_build():
    paste = read_paste("RTX 4070, Windows 11. I uninstalled the cpu version of torch and installed the cuda 12.1 one, "
                       "but it still prints False.\n")
    assert "torch.cuda_version" not in paste.known


def test_review8_the_companion_conflict_gives_no_command_that_drops_cuda():
    report = triage("Windows 11, RTX 3080\npip install torchvision==0.16.0 --index-url https://download.pytorch.org/whl/cu118\n"
                    "ERROR: pip's dependency resolver does not currently take into account all the packages that are "
                    "installed.\ntorchvision 0.16.0+cu118 requires torch==2.1.0, but you have torch 2.0.1+cu118 which is "
                    "incompatible.\n")
    reply = render_triage(report, "markdown")
    assert report.verdict.known_error == "pip.companion-pins-another-torch" and "**Fix:**" not in reply


@pytest.mark.parametrize("paste", [
    "GPU: GTX 1660 Super, Ubuntu 22.04, torch 2.1.0+cu121, training in FP32 (no AMP).\nWith lr=0.1 the loss becomes NaN "
    "after 3 epochs. The same NaN happens on the CPU, so I think my learning rate is too high.\n",
    "When I train on my GTX 1650 (Windows 10, torch 2.2.0+cu121) the monitor goes to a black screen and the PC restarts.\n",
    "YOLOv5 torch 1.10.0 CUDA:0 (NVIDIA GeForce GTX 1650, 4096MiB)\nimage 1/1: 1080x810 (no detections)\n"
    "Traceback (most recent call last):\nModuleNotFoundError: No module named 'cv2'\n",
])
def test_review8_a_gtx_16_is_not_blamed_where_its_half_precision_is_not_in_question(paste):
    assert not [e for e in read_paste(paste).evidence if "half precision" in e.summary]


@pytest.mark.parametrize("paste", [
    "Raspberry Pi 4, Raspberry Pi OS 64-bit, torch 2.1.0 works fine (import torch ok).\n\nBut `import cv2` crashes:\n"
    "$ python3 -c \"import cv2\"\nIllegal instruction (core dumped)\n",
    "Raspberry Pi 5 with Raspberry Pi OS: import torch gives Illegal instruction\n",
    "Raspberry Pi 3 B+ (armv7l), torch-1.7.0a0-cp37-cp37m-linux_armv7l.whl\n$ python3 -c \"import torch\"\nIllegal instruction\n",
])
def test_review8_an_illegal_instruction_that_is_not_torchs_on_an_armv8_0_board(paste):
    assert not [e for e in read_paste(paste).evidence if "ARMv8.0" in e.summary]


def test_review8_python_cleared_by_the_paste_is_not_blamed_and_a_message_wins():
    report = triage("This is not a Python issue: I also tried Python 3.11 and it's the same. It's not working with Python "
                    "3.12 either, and not with 3.10.\nTraceback (most recent call last):\n  File \"app.py\", line 3, in "
                    "<module>\n    import torch\nOSError: [WinError 126] The specified module could not be found. Error "
                    "loading \"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n")
    assert report.verdict.root_cause != "python.version"


def test_review8_the_notebooks_own_instruction_tells_no_gpu_runtime():
    report = triage("Running the demo notebook on Google Colab. The notebook says \"Make sure the GPU runtime is selected\" "
                    "at the top, I just clicked run all.\n\nRuntimeError: No CUDA GPUs are available\n")
    assert report.verdict.root_cause == "cuda.driver"


def test_review8_poetrys_update_line_gives_the_torch_it_leaves_not_the_old_one():
    assert "packages.torch" not in read_paste("  • Updating torch (2.0.0 -> 2.2.1)\n").known


def test_a_pip_installed_torch_in_a_windows_conda_list_without_a_label_is_a_cpu_build():
    rows = "torch                     2.6.0                    pypi_0    pypi\n"
    assert read_paste("Windows 11\n" + rows).known["torch.cuda_version"].value is None
    assert "torch.cuda_version" not in read_paste("Ubuntu 22.04\n" + rows).known


def test_an_mps_function_called_off_a_mac_is_the_programs_unguarded_call():
    # ACE-Step-1.5#842: "torch.mps.empty_cache()" on Windows: "Cannot execute emptyCache() without MPS backend."
    report = triage(dev_paste("ace-step-1-5-842-windows-mps-empty-cache-unguarded"))
    assert report.verdict.known_error == "mps.function-without-mps-backend"


# Round 10: readings made for the opened half of the held-out share (docs/measurements.md, "round 10").
@pytest.mark.parametrize("paste", [
    "If I install pyannote.audio in an env in which torch with cuda is already installed, then during installation the "
    "torch with cuda is removed and torch cpu is installed.\n\npip install torch torchaudio --index-url "
    "https://download.pytorch.org/whl/cu118\npip install pyannote.audio\n",
    "1. Install Torch with CUDA 2.2.1\ncu118\n2. The app removes Torch with CUDA 2.21 cu118 and replaces it with Torch "
    "without CUDA version 2.1.2\n",
    "after adding this node it broke my installation by forcing a non-CUDA version of Torch to be installed.\n",
    "When I try `conda install pytorch==1.9.1 cudatoolkit=11.3 -c pytorch`, it shows that I installed `pytorch_cpu` "
    "rather than `pytorch_cuda`.\n",
    "Windows uv sync resolves torch 2.7.0 cpu. Local repro reports torch 2.7.0+cpu, torch.version.cuda None.\n",
    "I installed torch on a Windows machine with a working CUDA device and got `2.12.1+cpu`.\n",
    "my torch version is 2.0.1+cpu and cuda is not available\n",
    "I have the cpu version of pytorch installed, how do I get the gpu one\n",
])
def test_round10_a_torch_without_cuda_told_as_people_tell_it_is_the_build(paste):
    assert triage(paste).verdict.root_cause == "torch.cuda-built"


@pytest.mark.parametrize("paste", [
    "I don't have the cpu version of pytorch, I have the cu121 one and it works.\n",
    "Should I install CPU torch? torch.cuda.is_available() gives True on my RTX 3060.\n",
    "The old installer replaced my torch with torch cpu, but I fixed it with the cu121 index. Now the model fails with "
    "CUDA out of memory.\n",
    "I installed `pytorch_cuda` rather than `pytorch_cpu` and training runs on the GPU.\n",
    "torchvision reports 0.15.2+cpu in the log but torch itself is 2.0.1+cu118\n",
])
def test_round10_a_denied_asked_undone_or_other_cpu_build_is_no_cpu_torch(paste):
    try:
        known = read_paste(paste).known
    except UsageError:
        return
    assert not ("torch.cuda_version" in known and known["torch.cuda_version"].value is None)


def test_round10_a_replacement_told_makes_the_install_commands_cuda_index_the_state_before_it():
    paste = ("pip install torch --index-url https://download.pytorch.org/whl/cu118\npip install somepackage\n"
             "The second command removed torch with cuda and torch cpu is installed.\n")
    known = read_paste(paste).known
    assert known["torch.cuda_version"].value is None and known["torch.cuda_replaced"].value is True


def test_round10_a_label_written_apart_is_the_torchs_cuda():
    known = read_paste("Setup: i7-8750H, GTX 1070\nVersions: PyTorch 2.8.0 + cu129\n").known
    assert known["packages.torch"].value == "2.8.0+cu129"


@pytest.mark.parametrize("paste, arm64", [
    ("not sure why..? im on an m1 macbook pro if that helps.\n", True),
    ("I'm on an Apple Silicon Mac and pip only finds torch 2.2.2\n", True),
    ("MPS needs Apple Silicon, according to the docs.\n", None),
    ("my Intel Mac, not Apple Silicon, can't use MPS\n", None),
])
def test_round10_an_apple_chip_named_as_people_name_it(paste, arm64):
    try:
        known = read_paste(paste).known
    except UsageError:
        known = {}
    assert (known["host.hw_arm64"].value if "host.hw_arm64" in known else None) is arm64


def test_round10_cuda_home_unset_is_the_toolkit_on_linux_and_no_cuda_on_a_mac():
    message = "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
    linux = triage("Ubuntu 22.04, RTX 3090\n" + message)
    mac = triage("I tried it on a M1 Macbook Pro. It fails building the extension:\n" + message)
    assert linux.verdict.known_error == "torch.extension-build-no-cuda-home" and linux.verdict.root_cause != "os.linux"
    assert mac.verdict.root_cause == "os.linux"


def test_round10_groundingdinos_ops_on_a_mac_are_no_cuda_there_not_an_unset_cuda_home():
    report = triage("Mac 12.4, M1\npython grounding_dino_demo.py --device \"cuda\"\nUserWarning: Failed to load custom C++ "
                    "ops. Running on CPU mode Only!\n")
    reply = render_triage(report, "markdown")
    assert report.verdict.root_cause == "os.linux" and "Set CUDA_HOME" not in reply


@pytest.mark.parametrize("chip, expected", [("Apple M3 Max - MacOS 15.2", "python.rosetta"),
                                            ("MacOS 15.2", "hardware.apple-silicon")])
def test_round10_pips_intel_mac_ceiling_on_a_named_apple_chip_is_rosetta(chip, expected):
    report = triage("pip install torch==2.5.1\nERROR: Could not find a version that satisfies the requirement torch==2.5.1 "
                    "(from versions: 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)\n" + chip + "\n")
    assert report.verdict.root_cause == expected
    assert layer(report, "hardware.apple-silicon").status != Status.FAIL or expected == "hardware.apple-silicon"


def test_round10_tritons_zero_active_drivers_is_cuda_missing_and_a_notebook_without_a_gpu():
    message = "RuntimeError: 0 active drivers ([]). There should only be one.\n"
    assert triage(message).verdict.known_error == "triton.no-active-driver"
    assert triage(message, title="Runtime Error on Google Collab").verdict.root_cause == "cuda.driver"
    with pytest.raises(UsageError):
        triage("RuntimeError: 2 active drivers ([a, b]). There should only be one.\n")


def test_round10_unslothss_no_gpu_on_windows_beside_an_nvidia_gpu_suspects_the_build():
    report = triage("(unsloth_env) C:\\Users\\me>python train.py\nNotImplementedError: Unsloth: No NVIDIA GPU found? Unsloth "
                    "currently only supports GPUs!\nI have a 4060 ti with brand new drivers\n")
    assert report.verdict.known_error == "unsloth.no-nvidia-gpu" or report.verdict.root_cause == "torch.cuda-built"


def test_round10_torchvisions_ops_without_cuda_beside_a_cuda_torch_are_the_companions():
    report = triage("torch==2.1.0+cu121\ntorchvision==0.16.0\nNotImplementedError: Could not run 'torchvision::nms' with "
                    "arguments from the 'CUDA' backend.\n")
    assert (report.verdict.root_cause, report.verdict.known_error) == ("torch.companions", "torchvision.ops-without-cuda")
    aten = triage("NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend.\n")
    assert aten.verdict.known_error == "torch.op-no-kernel-for-backend"


@pytest.mark.parametrize("where, expected", [("when I try to create the env on a Mac Mini M2.", "os.linux"),
                                             ("on Ubuntu 22.04 with an RTX 3090.", None)])
def test_round10_conda_env_cuda_packages_not_found_are_no_cuda_on_a_mac(where, expected):
    report = triage("Solving environment: failed\n\nResolvePackageNotFound: \n  - python=3.8.5\n  - pip=20.3\n"
                    "  - cudatoolkit=11.3\n\n" + where + "\n")
    assert report.verdict.known_error == "conda.env-cuda-package-not-found"
    assert (report.verdict.root_cause == "os.linux") is (expected == "os.linux")


@pytest.mark.parametrize("paste, wrong", [
    ("On Mac M1 Pro, the result is noisy point if use GPU, it is normal if use CPU.\n", True),
    ("On my Mac M1 the CPU output is correct and the MPS output is garbage.\n", True),
    ("On my Mac M1 the CPU is slow but the MPS output is fine.\n", False),
])
def test_round10_the_accelerators_result_against_the_cpus_in_one_sentence(paste, wrong):
    assert bool([e for e in read_paste(paste).evidence if e.kind == "wrong-results"]) is wrong


def test_round10_cuda_not_available_on_macos_told_as_the_platforms_fact_asks_for_no_cuda():
    report = triage("When trying to use marker for batch processing on my Mac (M1), I got the following error:\nCannot use MPS "
                    "with torch multiprocessing share_memory.  You have to use CUDA or CPU.  Set the TORCH_DEVICE environment "
                    "variable to change the device.\nAnd it seems like CUDA is not available on macOS.\n")
    assert report.verdict.root_cause == "marker.mps-multiprocessing-unsupported" and report.options.device == "mps"


@pytest.mark.parametrize("device", ["Apple Paravirtual device", "NVIDIA GeForce GT 750M"])
def test_round10_a_metal_device_torch_skips_leaves_mps_unavailable(device):
    report = triage("UserWarning: Skipping device %s that does not support Metal 2.0 (Triggered internally at "
                    "/Users/runner/work/pytorch/pytorch/pytorch/aten/src/ATen/mps/MPSDevice.mm:101.)\n" % device)
    assert report.verdict.known_error == "mps.device-without-metal-2"
    assert layer(report, "torch.mps-available").status == Status.FAIL


# A second review of round 10's readings (a read-only helper wrote these pastes against them; each was wrong advice).
@pytest.mark.parametrize("paste", [
    "I replaced the CPU torch with the CUDA build from https://download.pytorch.org/whl/cu121 but torch.cuda.is_available() "
    "still returns False on my RTX 4090 (Ubuntu 22.04).\n",
    "I removed torch cpu and installed it again:\npip install torch --index-url https://download.pytorch.org/whl/cu121\n"
    "torch.cuda.is_available() is still False, RTX 3060, Ubuntu\n",
    "To avoid pip replacing my CUDA torch with torch cpu I pinned it, but torch.cuda.is_available() is False. RTX 4070, "
    "Windows 11, torch 2.3.1+cu121\n",
    "Reinstalled everything, still:\nOSError: [WinError 126] The specified module could not be found. Error loading "
    "\"C:\\Users\\me\\venv\\Lib\\site-packages\\torch\\lib\\torch_cpu.dll\" or one of its dependencies.\n",
    "Earlier I had the cpu version of pytorch, then I installed the CUDA one from pytorch.org. Now is_available() is "
    "still False on my RTX 3060.\n",
    "How do I know if I have the cpu version of pytorch. torch.cuda.is_available() returns False, RTX 3060, Ubuntu\n",
    "I got torch cpu working, but CUDA fails: torch.cuda.is_available() returns False on my RTX 3070 (Ubuntu)\n",
    "At first I got `2.1.0+cpu` from torch.__version__; reinstalling from the cu121 index fixed that, but now "
    "torch.cuda.is_available() returns False. Ubuntu 22.04, RTX 3090\n",
    "With PyTorch 2.4.0 + cpu offload the model loads, then torch.cuda.OutOfMemoryError: CUDA out of memory. RTX 3060\n",
])
def test_review10_no_cpu_build_where_the_paste_tells_none(paste):
    known = read_paste(paste).known
    assert not ("torch.cuda_version" in known and known["torch.cuda_version"].value is None)
    assert "torch.cuda_replaced" not in known


@pytest.mark.parametrize("paste", [
    "torch.cuda.is_available() returns False with my RTX 3060 on Ubuntu. The same code works on my colleague's m1 "
    "macbook pro.\n",
    "Does this project run on an Apple Silicon Mac? On my Windows PC with an RTX 3080 it fails.\n",
])
def test_review10_another_persons_mac_or_a_question_is_not_the_users_mac(paste):
    assert triage(paste).options.device == "cuda"


@pytest.mark.parametrize("paste", [
    "macOS 14.4, M2 Pro, torch 2.3.0. The output is wrong on CPU, on MPS it is correct, so the CPU path is the problem.\n",
    "macOS 14.4, M2, torch 2.3.0. The CPU result looks fine and the MPS result is identical, nothing wrong there; my "
    "problem is that MPS is 3x slower than CPU.\n",
    "macOS 14.4, M1, torch 2.2.2. On CPU training is fine, but on MPS it stops with RuntimeError: incorrect number of "
    "dimensions\n",
])
def test_review10_no_wrong_results_where_the_gpu_is_right_or_fails_loudly(paste):
    assert triage(paste).verdict.root_cause != "device.parity"


@pytest.mark.parametrize("machines", [
    "My Mac is an Intel Mac (i7, 2018). My colleague's M1 Mac installs it fine.",
    "It installs fine on my M2 MacBook Air. On my 2019 iMac (Intel Core i9) it fails:",
])
def test_review10_an_intel_mac_beside_an_apple_chip_keeps_both_possibilities(machines):
    report = triage(machines + "\npip install torch==2.5.1\nERROR: Could not find a version that satisfies the requirement "
                    "torch==2.5.1 (from versions: 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2)\n")
    assert report.verdict.root_cause == "hardware.apple-silicon"


def test_review10_a_projects_minimum_torch_is_not_the_torch_installed():
    assert "packages.torch" not in read_paste("The minimum torch version is 2.5.1 for this repo.\n").known


# --- review15 findings ------------------------------------------------------------------------------------------------

INSUFFICIENT = "RuntimeError: CUDA driver version is insufficient for CUDA runtime version\n"


@pytest.mark.parametrize("hybrid", [
    INSUFFICIENT + "Windows 10 laptop, Intel(R) UHD Graphics + NVIDIA GPU\n",
    INSUFFICIENT + "Windows 10 laptop: Intel(R) UHD Graphics 630, Nvidia 1050 Ti\n",
    INSUFFICIENT + "Windows 11, Intel(R) Iris(R) Xe Graphics, NVIDIA driver 472.12\n",
    INSUFFICIENT + "Windows 11 laptop with Intel(R) UHD Graphics and a dedicated Nvidia card\n",
    INSUFFICIENT + "Windows 10, Intel(R) HD Graphics 520 + Nvidia 940MX, nvidia driver 391.35\n",
    "Windows 11 laptop with Intel(R) UHD Graphics 630 and an Nvidia dGPU, Nvidia driver version 546.33\n"
    "torch.cuda.is_available() returns False\n",
    "Windows 10, Dell Precision: Intel(R) UHD Graphics 630 / NVIDIA T1000, driver version 537.70\n"
    "torch.cuda.is_available() returns False\n",
    "Windows 11, Ryzen 7 laptop with AMD Radeon GPU integrated and an Nvidia laptop GPU, Nvidia driver version 551.86\n"
    "torch.cuda.is_available() returns False\n",
    "Intel(R) UHD Graphics on the board, server GPU below\n==============NVSMI LOG==============\n"
    "Driver Version                            : 550.54.14\nCUDA Version                              : 12.4\n"
    "    Product Name                          : NVIDIA L40S\ntorch.cuda.is_available() returns False\n",
])
def test_review15_a_hybrid_laptop_is_never_told_its_gpu_is_intels_or_amds(hybrid):
    kinds = [e.kind for e in read_paste(hybrid).evidence]
    assert "intel-gpu-for-cuda" not in kinds and "amd-gpu-for-cuda" not in kinds


@pytest.mark.parametrize("hidden", [
    "Ubuntu 22.04, RTX 3060, torch 2.3.1+cu121\nexport CUDA_VISIBLE_DEVICES=1\nTraceback (most recent call last):\n"
    '  File "/home/me/proj/train.py", line 8, in <module>\n    assert torch.cuda.is_available()\nAssertionError\n',
    "Windows 11, RTX 3060\nset CUDA_VISIBLE_DEVICES=1\nTraceback (most recent call last):\n"
    '  File "C:\\Users\\me\\proj\\train.py", line 8, in <module>\n    assert torch.cuda.is_available()\nAssertionError\n',
])
def test_review15_a_stated_cuda_visible_devices_is_not_hidden_behind_a_suspicion(hidden):
    assert triage(hidden).verdict.root_cause == "cuda.visible-devices"
    # A value that keeps the first GPU visible hides nothing: the suspicion stands (llamafactory#3228).
    shown = hidden.replace("=1", "=0")
    assert triage(shown).verdict.root_cause != "cuda.visible-devices" and triage(shown).verdict.suspected


@pytest.mark.parametrize("other", [
    # The assertion is not of is_available() alone, or another line raised the AssertionError.
    "Ubuntu 22.04, torch 2.3.1+cu121, one RTX 4090\nTraceback (most recent call last):\n"
    '    assert torch.cuda.is_available() and torch.cuda.device_count() >= 2, "DDP needs at least 2 GPUs"\n'
    "AssertionError: DDP needs at least 2 GPUs\n",
    "Windows 11, RTX 3060\n```python\nimport torch\nassert torch.cuda.is_available()\nmodel = load_model('ckpt.pth')\n```\n"
    "AssertionError                            Traceback (most recent call last)\nCell In[3], line 3\n"
    "----> 3 model = load_model('ckpt.pth')\nAssertionError: checkpoint has 3 classes, config says 80\n",
])
def test_review15_only_a_failed_assertion_of_is_available_is_the_fact(other):
    assert "torch.cuda_available" not in read_paste(other).known


def test_review15_an_xpu_build_shown_is_no_suspected_cpu_build():
    arc = ("Windows 11, Intel Arc A770 16GB, torch 2.5.1+xpu\nTraceback (most recent call last):\n"
           '  File "C:\\Users\\me\\proj\\train.py", line 8, in <module>\n    assert torch.cuda.is_available()\nAssertionError\n')
    assert triage(arc).verdict.root_cause != "torch.cuda-built"


@pytest.mark.parametrize("build", [
    "Couldn't run `docker build -t whisperx:large-v2-ja .` on Mac M1 Pro\n"
    " > [dependencies 7/7] RUN --mount=type=cache,target=/root/.cache/pip pip install /code:\n"
    "2.104 ERROR: Could not find a version that satisfies the requirement onnxruntime-gpu>=1.16.0 (from pyannote-audio) "
    "(from versions: none)\n2.105 ERROR: No matching distribution found for onnxruntime-gpu>=1.16.0\n",
    "On my MacBook Pro M1, docker build fails:\n#8 [3/5] RUN pip install onnxruntime-gpu==1.16.0\n#8 1.912 ERROR: Could not "
    "find a version that satisfies the requirement onnxruntime-gpu==1.16.0 (from versions: none)\n",
])
def test_review15_a_docker_build_on_a_mac_reads_its_messages_as_the_containers(build):
    report = triage(build)
    assert report.verdict.root_cause != "os.linux"
    assert report.verdict.known_error == "pip.gpu-package-no-macos-wheel"


@pytest.mark.parametrize("requirement", ["onnxruntime-gpu==1.17.1 (from -r requirements.txt (line 12))", "lmdeploy[all]"])
def test_review15_requirements_files_and_extras_are_read(requirement):
    text = "MacBook Air M2\nERROR: Could not find a version that satisfies the requirement %s (from versions: none)\n" % requirement
    assert triage(text).verdict.root_cause == "os.linux"


def test_last_checklist_a_failure_no_command_fixes_is_not_nothing_to_fix(cli, tmp_path):
    # triton has no macOS wheel: no command fixes that on a Mac, and the plan says so instead of "nothing to fix".
    paste = tmp_path / "triton.txt"
    paste.write_text("macOS 14.5, MacBook Pro M2\nERROR: Could not find a version that satisfies the requirement triton "
                     "(from versions: none)\n")
    script = cli("fix", "--from", str(paste), "--print-commands").stdout
    assert "# nothing to fix" not in script and "# No command fixes it" in script
    assert "Nothing to fix." not in cli("fix", "--from", str(paste)).stdout


def test_last_checklist_a_message_that_is_root_cause_and_advisory_is_one_step(cli, tmp_path):
    paste = tmp_path / "lmdeploy.txt"
    paste.write_text("macOS 14.5, MacBook Pro M2\nERROR: Could not find a version that satisfies the requirement lmdeploy "
                     "(from versions: none)\n")
    script = cli("fix", "--from", str(paste), "--print-commands").stdout
    steps = [line for line in script.splitlines() if re.match(r"# \d+/\d+ ", line)]
    assert len(steps) == 2 and steps[-1].endswith("Check again"), steps
    assert "# leave this package out on the Mac" in script

