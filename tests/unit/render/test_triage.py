"""The public reply of `triage --format markdown` (issue 20, item 10): every value in it is the user's or labelled as an
example, and every Fix is runnable on the pasted platform. Each test goes through triage() and render_triage()."""

import glob
import os
import re

import pytest

from mps_doctor.errors import UsageError
from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import triage
from mps_doctor.versions import load_releases
from tests.paths import TESTS_DIR

HERE = TESTS_DIR
PASTED = os.path.join(HERE, "pasted")


def pasted(name):
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def reply(text):
    """The Markdown reply to TEXT."""
    return render_triage(triage(text), "markdown")


def fix_block(markdown):
    """The lines of the reply's Fix block, or None when the reply has none."""
    found = re.search(r"\*\*Fix:\*\*\n\n(`{3,})(?:sh|powershell)\n(.*?)\n\1\n", markdown, re.S)
    return found.group(2).split("\n") if found else None


def facts_table(markdown):
    """{fact: value} of the reply's table of what was read."""
    return dict(re.findall(r"^\| `([\w.]+)` \| `+ ?(.*?) ?`+ \| [\d, andmore]+ \|", markdown, re.M))


# --- (a) MPS out of memory -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["comfyui-8984-mps-out-of-memory", "fooocus-1139-mps-out-of-memory-m2"])
def test_mps_out_of_memory_never_gets_the_watermark_ratio_torch_suggests(name):
    """torch's message says "Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit ... (may cause system
    failure)" (MPSAllocator.mm); the reply never sets it, and explains the ratio (1.7 by default, at most 2.0:
    MPSAllocator.h's default_high_watermark_ratio and default_high_watermark_upper_bound)."""
    text = reply(pasted(name))
    fix = fix_block(text) or []
    assert not any("WATERMARK_RATIO=0" in line for line in fix), fix
    cause = text.split("**Cause**", 1)[1].split("<details>", 1)[0]
    assert "batch size" in cause and "1.7 by default" in cause and "at most 2.0" in cause
    assert "prefer a value such as 1.2" not in text  # 1.2 is below the default 1.7: it lowers the limit


@pytest.mark.parametrize("name", ["comfyui-8984-mps-out-of-memory", "fooocus-1139-mps-out-of-memory-m2",
                                  "marker-42-aten-roll-not-implemented-old-torch"])
def test_a_variable_named_inside_torchs_message_is_not_the_users_setting(name):
    report = triage(pasted(name))
    assert not report.facts.host.env
    assert not any(name.startswith("env.") for name in facts_table(render_triage(report, "markdown")))


@pytest.mark.parametrize("line,setting", [
    ("export PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0", ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "0.0")),
    ("PYTORCH_ENABLE_MPS_FALLBACK=1 python train.py", ("PYTORCH_ENABLE_MPS_FALLBACK", "1")),
    ("os.environ['CUDA_VISIBLE_DEVICES'] = '1'", ("CUDA_VISIBLE_DEVICES", "1")),
    ("$env:CUDA_VISIBLE_DEVICES=\"1\"", ("CUDA_VISIBLE_DEVICES", "1")),
    ("I set PYTORCH_ENABLE_MPS_FALLBACK=1 but it still fails", ("PYTORCH_ENABLE_MPS_FALLBACK", "1")),
])
def test_a_variable_the_paste_sets_is_still_read(line, setting):
    text = line + "\nRuntimeError: No CUDA GPUs are available\n"
    assert triage(text).facts.host.env == dict([setting])


# --- (b) CUDA asked for on a Mac -----------------------------------------------------------------------------------

def test_torch_not_compiled_with_cuda_on_a_mac_gets_the_mps_device_never_a_cuda_index():
    """vietai/mTet#7: the thread's own first answer (a cu116 index) could not work on a MacBook; the reply says mps."""
    report = triage(pasted("mtet-7-not-compiled-with-cuda-macbook-m1"))
    text = render_triage(report, "markdown")
    assert report.verdict.root_cause == "cuda.not-compiled"
    fix = fix_block(text)
    assert fix and not any("download.pytorch.org/whl/cu" in line or "nvidia-smi" in line for line in fix), fix
    assert any("torch.backends.mps.is_available()" in line and not line.startswith("#") for line in fix), fix
    assert "download.pytorch.org/whl/cu" not in text
    assert "`device = 'mps'`" in text and "`device = 'cpu'`" in text  # the Intel Mac's way too


def test_torch_not_compiled_with_cuda_elsewhere_keeps_the_cuda_build_fix():
    text = "OS: Ubuntu 22.04.4 LTS (x86_64)\nAssertionError: Torch not compiled with CUDA enabled\n"
    fix = fix_block(reply(text))
    assert fix and any("--index-url https://download.pytorch.org/whl/cu" in line for line in fix), fix


# --- (c) the driver too old: the user's values, never the catalogue's example ---------------------------------------

@pytest.mark.parametrize("name", ["yolov5-2389-driver-435-torch171-cpu-fallback", "yuan2-65-cuda-driver-too-old-11000"])
def test_driver_too_old_never_quotes_the_catalogues_example_as_the_users_value(name):
    text = reply(pasted(name))
    assert "(11040 = 11.4)" not in text
    assert "11040" not in text or "for example, 11040" in text
    fix = fix_block(text)
    assert fix == ["nvidia-smi"], fix
    assert "cuXYZ" not in text


# torch/cuda/__init__.py warns "CUDA initialization: The NVIDIA driver on your system is too old (found version %d)..."
# (the text of c10/cuda/CUDAFunctions.cpp) and echoes its source line below it.
WARNED_SESSION = """>>> import torch
>>> torch.version.cuda
/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:128: UserWarning: CUDA initialization: The NVIDIA \
driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a \
new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to \
install a PyTorch version that has been compiled with your version of the CUDA driver. (Triggered internally at \
../c10/cuda/CUDAFunctions.cpp:108.)
  return torch._C._cuda_getDeviceCount() > 0
'12.1'
>>> torch.cuda.is_available()
False
"""


def test_a_warning_between_a_call_and_its_output_is_never_the_value():
    report = triage(WARNED_SESSION)
    facts = {fact["fact"]: fact["value"] for fact in report.source["facts"]}
    assert facts["torch.cuda_version"] == "12.1"
    assert facts["torch.cuda_available"] is False
    assert facts_table(render_triage(report, "markdown"))["torch.cuda_version"] == "12.1"


def test_a_line_that_is_no_version_never_becomes_torchs_cuda():
    report = triage(">>> print(torch.version.cuda)\nUserWarning: something else entirely\n"
                    "AssertionError: Torch not compiled with CUDA enabled\n")
    assert "torch.cuda_version" not in {fact["fact"] for fact in report.source["facts"]}


# --- (d) an Intel conda on Apple Silicon gets conda's remedy ------------------------------------------------------

def rosetta_collect_env(python_line, conda_rows):
    """A collect_env of an x86_64 Python on an Apple M1 (collect_env's own field names)."""
    return "\n".join([
        "PyTorch version: 2.2.2", "Is debug build: False", "CUDA used to build PyTorch: None", "",
        "OS: macOS 14.5 (x86_64)", "Python version: " + python_line, "Python platform: macOS-10.16-x86_64-i386-64bit",
        "Is CUDA available: False", "", "CPU:", "Apple M1", "", "Versions of relevant libraries:",
        "[pip3] numpy==1.26.4", "[pip3] torch==2.2.2"] + conda_rows) + "\n"


@pytest.mark.parametrize("text", [
    pasted("pytorch-146236-rosetta-anaconda-collect-env-26"),  # "packaged by Anaconda, Inc." in its Python version
    rosetta_collect_env("3.11.9 (main, Apr 19 2024, 11:44:45) [Clang 14.0.6 ] (64-bit runtime)",
                        ["[conda] numpy                     1.26.4          py311h728a8a3_0",
                         "[conda] pytorch                   2.2.2           py3.11_0    pytorch"]),
], ids=["anaconda-python", "conda-rows"])
def test_an_intel_conda_on_apple_silicon_gets_an_arm64_conda_environment(text):
    markdown = reply(text)
    fix = fix_block(markdown)
    assert fix and fix[0].startswith("CONDA_SUBDIR=osx-arm64 conda create"), fix
    assert "python.org" not in "\n".join(fix)
    assert facts_table(markdown)["interpreter.conda_subdir"] == "osx-64"


def test_an_x86_64_python_without_conda_keeps_the_python_org_remedy_and_says_why_its_own_312_is_no_fix():
    text = rosetta_collect_env("3.12.9 (v3.12.9:fdb81425a9a, Feb  4 2025, 12:21:36) [Clang 13.0.0] (64-bit runtime)",
                               ["[conda] Could not collect"])
    fix = fix_block(reply(text))
    assert fix and "python.org" in fix[0] and "the Python 3.12.9 you run is an x86_64 build" in fix[0], fix
    assert not any(line.startswith("conda ") for line in fix)


# --- (e) an install log with prompts keeps its facts ----------------------------------------------------------------

# The outputs are what `python --version` ("Python 3.12.4") and `uname -m` ("arm64" on Apple Silicon) print; the
# prompts are zsh's (macOS's default PROMPT '%n@%m %1~ %# ') and a bare `% `.
INSTALL_LOG = """% python --version
Python 3.12.4
% uname -m
arm64
dev@Devs-MacBook-Air demo % pip install torch==2.1.0
ERROR: Could not find a version that satisfies the requirement torch==2.1.0 (from versions: 2.2.0, 2.2.1, 2.2.2, 2.3.0)
ERROR: No matching distribution found for torch==2.1.0
"""


def test_an_install_log_with_prompts_keeps_the_python_version_and_the_machine():
    report = triage(INSTALL_LOG)
    facts = {fact["fact"]: (fact["value"], fact["lines"]) for fact in report.source["facts"]}
    assert facts["interpreter.version"] == ([3, 12, 4], [2])
    assert facts["shell.machine"] == ("arm64", [4])
    assert facts["host.hw_arm64"][0] is True
    assert facts["packages.torch"] == ("2.1.0", [6])
    assert facts_table(render_triage(report, "markdown"))["interpreter.version"] == "3.12.4"


@pytest.mark.parametrize("line", ["% uname -m", "dev@Devs-MacBook-Air ~ % uname -m", "Devs-iMac:~ dev$ uname -m",
                                  "(venv) dev@host demo % uname -m", "uname -m"])
def test_uname_after_any_macos_prompt(line):
    facts = {fact["fact"]: fact["value"] for fact in triage(line + "\nx86_64\n% pip install torch\nERROR: Could not find a "
                                                              "version that satisfies the requirement torch (from versions:"
                                                              " none)\n").source["facts"]}
    assert facts["shell.machine"] == "x86_64"
    assert "host.hw_arm64" not in facts  # x86_64 is an Intel Mac or Rosetta: the shell cannot tell which


# --- (f) what a reply never shows ---------------------------------------------------------------------------------

def test_a_headline_is_never_cut_inside_a_word():
    """A catalogue cause whose first sentence is longer than a headline allows ends at a whole word and '...'."""
    from mps_doctor.triage.paste import first_sentence

    words = ["word%d" % n for n in range(80)]
    head = first_sentence(" ".join(words) + ". Second sentence.")
    assert head.endswith("...") and head[:-3].split()[-1] in words and len(head) <= 200
    text = reply(pasted("pantella-14-winerror-126-fbgemm"))
    summary = text.split("\n", 1)[0]
    assert "the..." in summary or "..." not in summary  # cut after a whole word, when cut at all


UNKNOWN_ERROR = """Collecting environment information...
PyTorch version: 2.3.0
OS: macOS 14.4 (arm64)
Python version: 3.11.8 (main, Feb  6 2024, 21:21:21) [Clang 15.0.0 (clang-1500.1.0.2.5)] (64-bit runtime)

Traceback (most recent call last):
  File "train.py", line 3, in <module>
ValueError: too many values to unpack (expected 2)
"""


def test_a_pasted_error_nothing_explains_is_never_called_no_problem():
    report = triage(UNKNOWN_ERROR)
    text = render_triage(report, "markdown")
    assert report.verdict.root_cause is None
    assert "Nothing in the paste shows a problem" not in text and "no problem found" not in report.verdict.summary
    assert "line 8" in text and "`ValueError: too many values to unpack (expected 2)`" in text
    assert report.source["unexplained_error"] == {"line": 8, "text": "ValueError: too many values to unpack (expected 2)"}


def test_a_paste_without_an_error_may_still_show_no_problem():
    text = reply(pasted("mobileagent-60-cpu-torch-with-nvidia-driver"))
    assert "Nothing in the paste shows a problem" in text


def test_facts_never_measured_are_never_shown():
    """os.macos and torch.import in a paste: no '(build ?)' without a build, no '(0.0 s)' without a measured import."""
    text = reply(pasted("pytorch-164943-macos13-torch210-stale-message"))
    assert "(build ?)" not in text and "macOS 13.7.4 |" in text
    session = ">>> import torch\n>>> torch.__version__\n'2.5.1'\n>>> torch.backends.mps.is_available()\nFalse\n"
    text = reply(session)
    assert "imports (0.0 s)" not in text and "| `torch.import` | pass | torch 2.5.1 imports |" in text


def test_a_reply_never_holds_a_script_directive():
    text = reply(pasted("whisper-webui-71-macos-python-too-new"))
    assert "shellcheck" not in text and ". .venv-py312/bin/activate" in fix_block(text)


PY312_NO_WHEEL = """% python --version
Python 3.12.9
% pip install torch
ERROR: Could not find a version that satisfies the requirement torch (from versions: none)
ERROR: No matching distribution found for torch
"""


def test_no_wheel_for_a_python_312_user_never_advises_installing_python_312():
    text = reply(PY312_NO_WHEEL)
    fix = fix_block(text) or []
    assert not re.search(r"(?i)(install|--python|python=|python)\s*3\.12\b(?!\.)", "\n".join(fix)), fix
    cause = text.split("<details>", 1)[0]
    assert "python3.12" not in cause and "uv venv --python 3.12" not in cause
    assert "3.12.9" in facts_table(text)["interpreter.version"]


def test_the_next_step_hint_names_the_same_file_never_the_maintainers_python(cli, tmp_path):
    """Issue 20's `mps-doctor fix --python python3` hint: already `fix --from FILE` on main (verified here)."""
    path = tmp_path / "paste.txt"
    path.write_text(pasted("pytorch-164943-macos13-torch210-stale-message"), encoding="utf-8")
    result = cli("triage", str(path))
    assert "fix --from %s" % path in result.output and "fix --python" not in result.output


# --- every reply of the corpus ---------------------------------------------------------------------------------------

def corpus_names():
    return sorted(os.path.basename(path)[:-4] for path in glob.glob(os.path.join(PASTED, "*.txt")))


def doctors_data():
    """The text of the doctor's own data: the release table (with the requirements it derives) and the catalogue."""
    data = os.path.join(os.path.dirname(HERE), "mps_doctor", "data")
    table = load_releases()
    derived = [release.torchaudio_requirement(table.torchaudio_stable_abi_from) for release in table.releases]
    return "".join(open(os.path.join(data, name), encoding="utf-8").read()
                   for name in ("torch_releases.json", "known_errors.json")) + " ".join(derived)


DATA = doctors_data()
# A value left for the reader to fill in.
PLACEHOLDERS = re.compile(r"==(?=\s|$|')|==[A-Z]\b|\bcuXYZ\b|<[\w -]+>|\bX\.Y\b")
# Values in a command: versions (2.15, 3.12, 0.29.*) and CUDA builds (cu128).
VALUES = re.compile(r"(?<![\w.])\d+\.\d+(?:\.\d+)?|\bcu\d{3}\b")
# Programs of one system.
ONLY_ON = {"Darwin": re.compile(r"^(?:sw_vers|softwareupdate|sysctl|xcode-select|arch)\b"),
           "nvidia": re.compile(r"\bnvidia-smi\b|download\.pytorch\.org/whl/cu|\bCUDA_VISIBLE_DEVICES\b"),
           "posix": re.compile(r"^(?:export|unset|\.) |/bin/(?:python|activate)\b|^[A-Z_]+=\S+ ")}


@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_reply_has_a_runnable_fix_of_the_users_and_the_doctors_values(name):
    text = pasted(name)
    try:
        report = triage(text)
    except UsageError:
        return  # nothing recognizable: the workflow posts its fixed note, which quotes nothing (test_triage_workflow.py)
    markdown = render_triage(report, "markdown")
    assert "shellcheck" not in markdown
    fix = fix_block(markdown)
    if fix is None:
        return
    runnable = [line for line in fix if line.strip() and not line.startswith("#")]
    assert runnable, "a Fix block of comments only: %s" % fix
    for line in runnable:
        assert not PLACEHOLDERS.search(line), line
        for value in VALUES.findall(line):
            assert value in text or value in DATA, "%s: %r is neither the paste's nor the doctor's" % (line, value)
    system = report.facts.host.system
    if system == "Darwin":
        assert not any(ONLY_ON["nvidia"].search(line) for line in runnable), runnable
    if system in ("Linux", "Windows"):
        assert not any(ONLY_ON["Darwin"].search(line) for line in runnable), runnable
    if system == "Windows":
        assert not any(ONLY_ON["posix"].search(line) for line in runnable), runnable


# --- every Fix runs where the paste came from: Windows ------------------------------------------------------------

def test_a_windows_paste_gets_powershell_commands():
    """pytorch#170293 (Python 3.13 on Windows): a venv's Scripts\\python.exe and Activate.ps1, the py launcher."""
    fix = fix_block(reply(pasted("pytorch-170293-python313-old-cuda-wheels")))
    assert fix == ["# Install Python 3.12 from https://www.python.org/downloads/windows/ first (with its py launcher)",
                   "py -3.12 -m venv .venv-py312",
                   ".venv-py312\\Scripts\\python.exe -m pip install 'torch==2.15.*' 'torchvision==0.29.*'",
                   "& .venv-py312\\Scripts\\Activate.ps1"], fix


def test_a_variable_on_windows_is_set_the_powershell_way():
    text = "OS: Microsoft Windows 11 Pro\nRuntimeError: CUDA error: no CUDA-capable device is detected\n"
    fix = fix_block(reply(text))
    assert fix and "$env:CUDA_VISIBLE_DEVICES = '0'" in fix and not any(line.startswith("export ") for line in fix), fix


@pytest.mark.parametrize("value", ["0", "it's", "a$b`c", "x\x1by", "@(1,2)"])
def test_powershell_spelling_keeps_every_value_exact_and_on_one_line(value):
    from mps_doctor.checking.model import export, run
    from mps_doctor.render.script import spell

    for line in (spell(export("NAME", value), "powershell"), spell(run("python", "-c", value), "powershell")):
        assert "\n" not in line and "\x1b" not in line
    quoted = spell(run("echo", value), "powershell")[5:]
    if quoted.startswith("'"):
        assert quoted[1:-1].replace("''", "'") == value
    elif quoted.startswith('"'):
        body = re.sub(r"\$\(\[char\]0x([0-9a-f]{4})\)", lambda m: chr(int(m.group(1), 16)), quoted[1:-1])
        assert re.sub(r"`(.)", r"\1", body) == value
    else:
        assert quoted == value and re.fullmatch(r"[\w./:=+-]+", value)
