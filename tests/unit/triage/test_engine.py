"""triage: pasted text -> facts with line numbers -> the same layers as check; corpus of real pastes."""

import glob
import json
import os

import pytest

from mps_doctor.checking.model import Status
from mps_doctor.errors import UsageError
from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import NOT_IN_PASTE, implicated, triage
from mps_doctor.triage.parsers import platform as platform_parser
from mps_doctor.triage.paste import read_paste
from mps_doctor.triage.text import clean
from tests.paths import TESTS_DIR
from tools.precedents import corpus as precedent_corpus
from tools.precedents import fold_models, fold_of

HERE = TESTS_DIR
COLLECT_ENV = os.path.join(HERE, "triage", "collect_env")
PASTED = os.path.join(HERE, "pasted")


def corpus():
    """(name, text, expectation) of every pasted report in tests/pasted/."""
    for path in sorted(glob.glob(os.path.join(PASTED, "*.txt"))):
        with open(path[:-4] + ".json", encoding="utf-8") as handle:
            meta = json.load(handle)
        with open(path, encoding="utf-8") as handle:
            yield os.path.basename(path)[:-4], handle.read(), meta


def pasted(name):
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        return handle.read()


def known(paste, path):
    return paste.known[path].value if path in paste.known else None


# --- cleaning ----------------------------------------------------------------------------------------------------

def test_cleaning_keeps_line_numbers_through_crlf_fences_details_ansi_and_prompts():
    raw = ("<details><summary>env</summary>\r\n```console\r\n\x1b[31m$ sw_vers\x1b[0m\r\n"
           "ProductVersion:\t14.6.1\r\n>>> import torch\r\n> quoted text\r\n```\r\n</details>")
    lines = clean(raw)
    assert [(line.number, line.text, line.prompt) for line in lines] == [
        (1, "env", ""), (2, "", ""), (3, "sw_vers", "shell"), (4, "ProductVersion:    14.6.1", ""),
        (5, "import torch", "python"), (6, "quoted text", ""), (7, "", ""), (8, "", "")]


def test_a_repr_escaped_message_is_unescaped():
    assert clean(r"NotImplementedError: The operator \'aten::roll\' is not")[0].text == \
        "NotImplementedError: The operator 'aten::roll' is not"


# --- collect_env: one sample per format change, each printed by that release's own collect_env.py -----------------

@pytest.mark.parametrize("release", ["1.12", "1.13", "2.0", "2.9", "2.10"])
def test_each_collect_env_format_is_parsed(release):
    with open(os.path.join(COLLECT_ENV, "%s-linux-x86_64.txt" % release), encoding="utf-8") as handle:
        paste = read_paste(handle.read())
    assert known(paste, "collect_env.format") == release
    assert known(paste, "torch.version") == "2.13.0+cpu"
    assert known(paste, "torch.cuda_version") is None and "torch.cuda_version" in paste.known
    assert known(paste, "torch.cuda_available") is False
    assert known(paste, "host.system") == "Linux"
    assert known(paste, "interpreter.version")[:2] == (3, 11)
    assert known(paste, "interpreter.machine") == "x86_64"
    assert known(paste, "packages.torch") == "2.13.0+cpu"
    assert paste.known["torch.version"].lines == (2,)


def test_collect_env_format_2_9_from_a_real_mac_report():
    paste = read_paste(pasted("pytorch-164943-macos13-torch210-stale-message"))
    assert known(paste, "collect_env.format") == "2.9"
    assert known(paste, "host.macos_version") == "13.7.4"
    assert known(paste, "host.cpu_brand") == "Apple M2 Max"
    assert known(paste, "host.hw_arm64") is True


def test_collect_env_without_torch_says_the_import_failed():
    paste = read_paste("PyTorch version: N/A\nIs debug build: N/A\nCUDA used to build PyTorch: N/A\n"
                       "OS: macOS 14.2 (x86_64)\nIs XNNPACK available: N/A\n")
    assert known(paste, "torch.import_failed") is True
    assert known(paste, "interpreter.machine") == "x86_64"
    assert known(paste, "collect_env.format") == "1.12"


# --- other formats -----------------------------------------------------------------------------------------------

def test_platform_strings():
    facts = platform_parser.platform_facts("Linux-5.15.49-linuxkit-aarch64-with-glibc2.29", 1, "t")
    assert {(f.path, f.value) for f in facts} >= {("host.system", "Linux"), ("interpreter.machine", "aarch64"),
                                                   ("host.linux_container_on_mac", True)}
    mac = {(f.path, f.value) for f in platform_parser.platform_facts("macOS-10.16-x86_64-i386-64bit", 1, "t")}
    assert ("interpreter.machine", "x86_64") in mac and ("host.hw_arm64", True) not in mac


def test_uname_names_apple_silicon_under_rosetta():
    line = ("Darwin mbp.local 23.1.0 Darwin Kernel Version 23.1.0: Mon Oct  9 21:28:12 PDT 2023; "
            "root:xnu-10002.41.9~6/RELEASE_ARM64_T6020 x86_64")
    paste = read_paste(line)
    assert known(paste, "host.hw_arm64") is True and known(paste, "interpreter.machine") == "x86_64"


def test_sw_vers_reports_the_real_version_of_macos_26():
    paste = read_paste("ProductName:\tmacOS\nProductVersion:\t16.0\nBuildVersion:\t25A354\n")
    assert known(paste, "host.macos_version") == "26.0"


def test_nvidia_smi_reuses_the_host_probe_parser():
    with open(os.path.join(HERE, "data", "nvidia-smi-h200.txt"), encoding="utf-8") as handle:
        paste = read_paste(handle.read())
    assert known(paste, "nvidia_smi.cuda_version") and known(paste, "nvidia_smi.driver_version")


def test_pip_from_versions_ending_at_2_2_2_is_an_x86_64_python_on_macos():
    paste = read_paste(pasted("pytorch-161614-pip-intel-mac-from-versions-222"))
    evidence = [e for e in paste.evidence if e.source == "pip"]
    # The message shows the Python's architecture, not the chip: the Rosetta layer fails, naming both possibilities,
    # and the chip's layer stays undecided (issue 20, item 2).
    assert evidence and implicated(evidence[0]) == ("python.rosetta",)
    assert evidence[0].line == 5


def test_pip_offering_only_newer_releases_means_the_python_is_too_new():
    paste = read_paste(pasted("pytorch-170293-python313-old-cuda-wheels"))
    assert any(implicated(e) == ("python.version",) and e.source == "pip" for e in paste.evidence)
    assert known(paste, "interpreter.version")[:2] == (3, 13)


@pytest.mark.parametrize(("requirement", "listing", "python"), [
    ("torch==1.13.1", "2.2.0, 2.2.1, 2.3.0", "3.10"),
    ("torch==2.15.0", "2.8.0, 2.9.0, 2.9.1", "3.12"),
    ("torch==2.5.1", "2.6.0, 2.7.0", "3.12"),
])
def test_a_python_for_the_requested_torch_comes_from_the_release_table(requirement, listing, python):
    """The new environment that pip's 'from versions' evidence suggests runs the torch that was asked for (a Python
    3.12 cannot install torch 1.13, whose range ends below 3.11)."""
    from mps_doctor.triage.parsers.install import pip_versions

    (evidence,) = pip_versions(requirement, listing, 3)
    assert [(intent.kind, intent.option("python")) for intent in evidence.actions] == [("new_environment", python)]


def test_uv_missing_cp313_wheel():
    text = ("  hint: You require CPython 3.13 (`cp313`), but we only found wheels for `torch` (v2.4.1) with the "
            "following Python ABI tags: `cp38`, `cp39`, `cp310`, `cp311`, `cp312`")
    paste = read_paste(text)
    assert known(paste, "interpreter.version") == (3, 13) and known(paste, "packages.torch") == "2.4.1"
    report = triage(text)
    assert report.verdict.root_cause == "python.version"


def test_wheel_file_names():
    paste = read_paste("Downloading torch-2.2.2-cp311-none-macosx_10_9_x86_64.whl (150.8 MB)")
    assert known(paste, "interpreter.machine") == "x86_64" and known(paste, "host.system") == "Darwin"
    assert known(paste, "interpreter.version") == (3, 11) and known(paste, "packages.torch") == "2.2.2"


def test_transformers_and_accelerate_env_lines():
    text = ("- `transformers` version: 4.46.0\n- Platform: macOS-14.6.1-arm64-arm-64bit\n- Python version: 3.12.7\n"
            "- PyTorch version (accelerator?): 2.5.1 (NA)\n- `Accelerate` version: 1.1.0\n"
            "- PyTorch version (GPU?): 2.5.1 (False)\n")
    paste = read_paste(text)
    assert known(paste, "host.system") == "Darwin" and known(paste, "interpreter.machine") == "arm64"
    assert known(paste, "packages.torch") == "2.5.1" and known(paste, "torch.cuda_available") is False


def test_lightning_dump_processor_i386_is_an_x86_64_python():
    text = ("* System:\n\t- OS:                Darwin\n\t- processor:         i386\n\t- python:            3.10.4\n"
            "\t- version:           Darwin Kernel Version 21.6.0: RELEASE_ARM64_T6000\n")
    paste = read_paste(text)
    assert known(paste, "interpreter.machine") == "x86_64" and known(paste, "host.hw_arm64") is True
    assert triage(text).verdict.root_cause == "python.rosetta"


def test_conda_info_fields():
    # The field layout of `conda info` (conda 4.12 on an arm64 Mac, as pasted in invoke-ai/InvokeAI#262).
    arm = ("     active environment : ldm\n         python version : 3.9.12.final.0\n"
           "       virtual packages : __osx=12.5.1=0\n                          __unix=0=0\n"
           "                          __archspec=1=arm64\n               platform : osx-arm64\n")
    paste = read_paste(arm)
    assert known(paste, "interpreter.conda_subdir") == "osx-arm64" and known(paste, "host.hw_arm64") is True
    assert known(paste, "interpreter.version") == (3, 9, 12) and known(paste, "interpreter.mac_ver") == "12.5.1"
    intel_conda = arm.replace("__archspec=1=arm64", "__archspec=1=x86_64").replace("osx-arm64", "osx-64")
    report = triage(intel_conda)
    # An x86_64 Python on macOS with the chip not shown fails with both of its causes, an Intel Mac or Rosetta, and the
    # command that tells them apart (issue 20, item 2).
    rosetta = report.result("python.rosetta")
    assert rosetta.status == Status.FAIL and "an Intel Mac, or Rosetta on Apple Silicon" in rosetta.summary
    assert "hw.optional.arm64" in render_triage(report, "text")
    assert triage(intel_conda + "CPU:\nApple M1 Pro\n").verdict.root_cause == "python.rosetta"


# --- the verdict -------------------------------------------------------------------------------------------------

def test_undecided_layers_say_so_and_never_pass():
    report = triage(pasted("pytorch-139425-macos12-torch251-sw-vers"))
    assert report.verdict.root_cause == "macos.version"
    statuses = {r.id: r for r in report.results if r.layer is not None}
    assert statuses["os.macos"].status == Status.PASS
    report = triage("ProductName: macOS\nProductVersion: 15.1\nBuildVersion: 24B83\nCPU:\nApple M3\n")
    undecided = [r for r in report.results if r.layer is not None and r.status == Status.SKIP]
    assert {r.id for r in undecided} >= {"torch.import", "torch.mps-available", "device.smoke"}
    assert all(r.summary.startswith(NOT_IN_PASTE) for r in undecided)
    assert report.verdict.root_cause is None and report.verdict.state == "no-problem-found"


def test_a_known_error_without_a_failing_layer_is_the_root_cause(cli):
    text = "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64."
    report = triage(text)
    assert report.verdict.root_cause == "mps.float64-unsupported"
    assert report.result("mps.float64-unsupported").status == Status.FAIL
    result = cli("triage", "-", input=text)
    assert result.exit_code == 1


def test_nothing_recognizable_is_exit_2(cli):
    with pytest.raises(UsageError):
        triage("hello, my training is slow, any idea?")
    result = cli("triage", "-", input="hello, my training is slow, any idea?")
    assert result.exit_code == 2 and "nothing recognizable" in result.output


def test_json_report_records_the_pasted_source_and_validates(cli):
    jsonschema = pytest.importorskip("jsonschema")
    from mps_doctor.data import __file__ as data_init

    result = cli("triage", os.path.join(PASTED, "pytorch-164943-macos13-torch210-stale-message.txt"), "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.output)
    assert doc["source"]["kind"] == "pasted"
    facts = {f["fact"]: f for f in doc["source"]["facts"]}
    assert facts["host.macos_version"]["lines"] == [24]
    with open(os.path.join(os.path.dirname(data_init), "report.schema.json"), encoding="utf-8") as handle:
        jsonschema.validate(doc, json.load(handle))


def test_markdown_reply_has_cause_fix_facts_and_full_check_and_is_redacted(cli):
    result = cli("triage", os.path.join(PASTED, "textgen-6444-intel-mac-installer-pip.txt"), "--format", "markdown")
    assert result.exit_code == 1
    assert "**Cause** (`hardware.apple-silicon`)" in result.output
    assert "```sh" in result.output and "mps-doctor check" in result.output
    assert "| fact | value | line | from |" in result.output
    assert "/Users/username/" not in result.output or "<user>" in result.output


def test_fix_from_pasted_text_prints_the_plan(cli, tmp_path):
    result = cli("fix", "--from", os.path.join(PASTED, "pytorch-164943-macos13-torch210-stale-message.txt"),
                 "--shell", "zsh", "--print-commands")
    assert result.exit_code == 0
    assert "torch==2.8" in result.output and "softwareupdate" in result.output


def test_fix_from_a_json_report_still_works(cli):
    result = cli("fix", "--from", os.path.join(HERE, "..", "docs", "examples", "mac-rosetta.json"), "--print-commands")
    assert result.exit_code == 0 and "venv-arm64" in result.output


# --- the corpus: real pastes from public threads -------------------------------------------------------------------

CORPUS = list(corpus())


@pytest.mark.per_case
@pytest.mark.parametrize("name,text,meta", CORPUS, ids=[c[0] for c in CORPUS])
def test_corpus_paste_never_crashes(cli, name, text, meta):
    result = cli("triage", "-", input=text)
    assert result.exit_code in (0, 1, 2), result.output


# The share of each split diagnosed to its confirmed cause, never to fall for the same corpus (raise it as triage
# learns; issue 20 asks for 0.95 on the corpus and 0.90 on the held-out share). New evidence can lower it: round 5's
# 146 pastes took dev from 0.942 to 0.925 and held-out from 0.755 to 0.773; round 6's 213 left held-out at 0.771
# (its 86 new held-out cases: 64 on arrival) and took dev to 0.930; round 7's 254 took held-out to 0.787 (its 102 new
# held-out cases: 84 on arrival) and dev to 0.931; round 8's 109 took dev to 0.940 and held-out to 0.782 (its 44 new
# held-out cases: 33 on arrival; the 342 before them: 269, unchanged); round 9 took dev to 0.945 and held-out to 0.785
# with no new evidence; round 10 opened half the held-out share (dev 0.929, the kept half 0.789); round 11's memory of
# confirmed threads (triage/precedents.py; dev measured with models that never saw the case's thread), with 37 new
# pastes and the second review's rules (never against what the paste states, only for an issue that tells trouble),
# took dev to 0.938 and held-out to 0.871; round 12's 116 new pastes (35 held-out: 29 on arrival; the 202 before them:
# 177) took dev to 0.936 and held-out to 0.869; round 13's readings and 13 new pastes (3 held-out, 3 on arrival) took
# dev to 0.938 and held-out to 0.867; round 14's readings and 20 new pastes (5 held-out, 5 on arrival) took dev to
# 0.943 and held-out to 0.865; round 15's 89 new pastes in three waves (24 held-out, 17 on arrival; the first two waves
# brought the share down on arrival, to 0.846) took dev to 0.941 and held-out to 0.859. Measured in
# docs/measurements.md.
ACCURACY_FLOOR = {"dev": 0.93, "held-out": 0.85}


def diagnosed(text, title=None, precedents=None):
    """The causes triage names for TEXT (under the issue's TITLE, as the workflow passes it, with the memory PRECEDENTS):
    its root cause and the catalogue message that explains it (empty for text it cannot read)."""
    try:
        verdict = triage(text, title=title, precedents=precedents).verdict
    except UsageError:
        return set()
    return {verdict.root_cause, verdict.known_error} - {None}


@pytest.mark.parametrize("split", sorted(ACCURACY_FLOOR))
def test_corpus_diagnosed_to_the_confirmed_cause(split):
    """Dev cases name their misses; held-out cases only count them, so that nobody tunes triage on them. A dev case is
    triaged with a memory that never saw its thread (tools/precedents.py), a held-out case with the shipped one."""
    cases = [case for case in precedent_corpus() if case.split == split]
    folds = fold_models(precedent_corpus()) if split == "dev" else None
    misses = ["%s: expected %s, got %s" % (case.slug, case.cause, sorted(got) or None) for case in cases
              for got in [diagnosed(case.text, case.title, folds[fold_of(case.thread)] if folds else None)]
              if case.cause not in got]
    hits = len(cases) - len(misses)
    shown = misses if split == "dev" else ["(held-out misses are not listed)"]
    # Only numbers reach the assertion, so that a failure never shows a held-out case.
    total = len(cases)
    assert total > 0
    assert hits >= ACCURACY_FLOOR[split] * total, "%d/%d\n%s" % (hits, total, "\n".join(shown))


def test_a_triage_json_report_is_refused_by_from(cli, tmp_path):
    saved = tmp_path / "triage.json"
    result = cli("triage", os.path.join(PASTED, "textgen-6444-intel-mac-installer-pip.txt"), "--format", "json",
                 "-o", str(saved))
    assert result.exit_code == 1
    for command in ("check", "fix"):
        result = cli(command, "--from", str(saved))
        assert result.exit_code == 2 and "triage report" in result.output


@pytest.mark.parametrize("stage", ["parity", "smoke"])
def test_check_explains_a_caught_exception_with_the_catalogue(stage):
    from dataclasses import replace

    from mps_doctor.checking.context import Context
    from mps_doctor.checking.model import Options
    from mps_doctor.checks.device_work import device_parity, device_smoke
    from mps_doctor.facts import ErrorInfo, Parity, Smoke
    from mps_doctor.report import facts_from_report
    from mps_doctor.versions import load_releases

    with open(os.path.join(HERE, "..", "docs", "examples", "mac-macos13-torch29.json"), encoding="utf-8") as handle:
        facts, _ = facts_from_report(json.load(handle))
    # The message as torch 2.1.1 printed it (tests/pasted/tianshou-1237-float64-python-session-211.txt).
    error = ErrorInfo("TypeError", "Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support "
                                   "float64. Please use float32 instead.")
    target = replace(facts.target, parity=Parity("mps", error=error), smoke=Smoke("mps", error=error), failure=None)
    ctx = Context(replace(facts, target=target), Options(device="mps"), load_releases())
    outcome = (device_parity if stage == "parity" else device_smoke)(ctx)
    assert outcome.status == Status.FAIL
    assert "mps.float64-unsupported" in outcome.remedy.why and "float64" in outcome.remedy.why


@pytest.mark.parametrize("name", ["transformers-5.24-env", "accelerate-1.15-env"])
def test_real_transformers_and_accelerate_env_output(name):
    with open(os.path.join(HERE, "triage", "env", name + ".txt"), encoding="utf-8") as handle:
        paste = read_paste(handle.read())
    assert known(paste, "host.system") == "Linux" and known(paste, "interpreter.machine") == "x86_64"
    assert known(paste, "interpreter.version") == (3, 11, 7)
    assert paste.known["host.system"].parser == "hf-env"


def test_accelerate_on_a_mac_without_mps():
    text = ("- `Accelerate` version: 1.15.0\n- Platform: macOS-15.1-arm64-arm-64bit\n- Python version: 3.12.7\n"
            "- PyTorch version: 2.9.1\n- PyTorch accelerator: N/A\n")
    paste = read_paste(text)
    assert known(paste, "torch.mps_available") is False and known(paste, "packages.torch") == "2.9.1"


def test_fix_from_a_driver_message_never_picks_a_cuda_newer_than_the_driver(cli):
    result = cli("fix", "--from", os.path.join(PASTED, "gpt-sovits-83-cuda-driver-too-old-11040.txt"), "--print-commands")
    assert result.exit_code == 0
    assert "nvidia-smi" in result.output
    assert "whl/cu12" not in result.output and "whl/cu13" not in result.output


def test_printed_mps_checks_and_jupyter_outputs():
    paste = read_paste("Is MPS (Metal Performance Shader) built? True\nIs MPS available? False\n")
    assert known(paste, "torch.mps_built") is True and known(paste, "torch.mps_available") is False
    paste = read_paste("In [3]: torch.backends.mps.is_available()\nOut[3]: False\n"
                       "In [6]: platform.platform()\nOut[6]: 'macOS-12.3.1-arm64-arm-64bit'\n")
    assert known(paste, "torch.mps_available") is False and known(paste, "host.hw_arm64") is True
    assert known(paste, "interpreter.mac_ver") == "12.3.1"


def test_catalogue_actions_and_tolerant_loading():
    from mps_doctor.known_errors import parse_catalogue

    entries = parse_catalogue({"version": 1, "errors": [
        {"id": "mps.op-not-implemented", "pattern": "not currently implemented for the MPS device",
         "cause": "c", "fix": "Upgrade torch; else set `PYTORCH_ENABLE_MPS_FALLBACK=1`; see `torch.mps`.",
         "actions": [{"export": ["PYTORCH_ENABLE_MPS_FALLBACK", "1"]}, {"install_torch": {"nightly": True}}],
         "layer": None, "devices": ["mps"], "sources": ["https://github.com/pytorch/pytorch/issues/77764"]},
        {"id": "broken", "pattern": "(unclosed", "cause": "", "fix": ""},
        {"pattern": "no id"}]})
    assert [e.id for e in entries] == ["mps.op-not-implemented"]
    assert [(intent.kind, intent.words) for intent in entries[0].actions] == [
        ("export", ("PYTORCH_ENABLE_MPS_FALLBACK", "1"))]
    assert entries[0].link == "https://github.com/pytorch/pytorch/issues/77764"


def test_every_catalogue_id_fits_the_report_schema_pattern():
    import re

    from mps_doctor.checking.registry import CHECK_ID_PATTERN
    from mps_doctor.known_errors import load_catalogue

    assert load_catalogue()
    assert all(re.match(CHECK_ID_PATTERN, e.id) for e in load_catalogue())


def test_reply_redacts_home_folders_of_every_platform(cli):
    text = ("OSError: dlopen(/Users/alice/venv/lib/python3.9/site-packages/torch/lib/libtorch.dylib, 0x0006): "
            "mach-o file, but is an incompatible architecture (have 'x86_64', need 'arm64')\n"
            "  File \"C:\\Users\\bob\\Desktop\\collect_env.py\", line 612, in <module>\n"
            "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n")
    result = cli("triage", "-", "--format", "markdown", input=text)
    assert result.exit_code == 1
    assert "alice" not in result.output and "bob" not in result.output and "<user>" in result.output




@pytest.mark.parametrize("verbose", [[], ["-v"]])
@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_a_real_cuda_collect_env_triages_without_a_problem(cli, fmt, verbose):
    path = os.path.join(HERE, "triage", "real", "collect_env-2.11-cu130-h200.txt")
    result = cli("triage", path, "--format", fmt, *verbose, catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.output
    assert "2.11.0+cu130" in result.output
    if fmt == "text" and verbose:
        assert "NVIDIA H200" in result.output


def test_the_reply_keeps_its_fix_block_closed_whatever_the_commands_hold(monkeypatch):
    """A path read from a paste may hold backticks (spelled commands hold no raw newline: spell writes $'\\n'); the
    reply's fence outgrows any backtick run."""
    from mps_doctor.render import triage as reply

    report = triage(pasted("pytorch-161614-pip-intel-mac-from-versions-222"))
    hostile = ("python3 -m pip install $'/x/```\\nrm -rf ~'",)
    monkeypatch.setattr(reply, "remedy_commands", lambda *args: {report.verdict.root_cause: hostile})
    text = reply.render_reply(report)
    fix = text.split("**Fix:**\n\n", 1)[1].split("\n")
    assert fix[0] == "````sh" and fix[2] == "````"
    assert fix[1] == hostile[0]


@pytest.mark.parametrize(("torch", "message"), [
    ("2.9.1", "RuntimeError: torch.int32 is only supported on MacOS15+"),
    ("2.13.0", "RuntimeError: scatter_reduce(amin/amax) on int64 requires macOS 15 or newer"),
    ("2.15.0", "RuntimeError: linalg.matrix_exp on MPS requires macOS 15.0 or newer"),
])
def test_an_operation_gated_on_macos_15_is_named_not_the_mps_minimum(torch, message):
    """Messages read from the macOS wheels of torch 2.7-2.15: one operation needs macOS 15, MPS itself works on 14."""
    report = triage("OS: macOS 14.5 (arm64)\nPyTorch version: %s\n%s\n" % (torch, message))
    assert report.verdict.root_cause == "mps.op-needs-macos15"
    assert report.result("macos.version").status == Status.PASS


def test_a_python_whose_version_is_not_pasted_is_never_shown_as_a_question_mark():
    """Item 10 of issue 20: values never measured are not shown ('Python ? (arm64)' from a paste without a version)."""
    report = triage("OS: macOS 14.5 (arm64)\nPyTorch version: 2.5.1\n"
                    "RuntimeError: MPS backend out of memory (MPS allocated: 17.07 GB, other allocations: 1.45 GB, "
                    "max allowed: 18.13 GB). Tried to allocate 256.00 MB on private pool.\n")
    summary = report.result("python.rosetta").summary
    assert summary == "the Python (arm64), not translated" and "?" not in summary


VM_OOM = ("RuntimeError: MPS backend out of memory (MPS allocated: 0 bytes, other allocations: 0 bytes, max allowed: "
          "1.70 GB). Tried to allocate 0 bytes on private pool.")


def test_the_verdict_names_the_message_that_failed_the_root_layer():
    verdict = triage(VM_OOM).verdict
    assert (verdict.root_cause, verdict.known_error) == ("torch.mps-available", "mps.no-gpu-memory-in-vm")


def test_a_message_that_is_the_root_cause_is_its_own_known_error():
    verdict = triage("RuntimeError: MPS backend out of memory (MPS allocated: 17.2 GB, other allocations: 1.1 GB, "
                     "max allowed: 18.1 GB). Tried to allocate 512.0 MB on private pool.").verdict
    assert verdict.root_cause == verdict.known_error == "mps.out-of-memory"


def test_a_layer_failed_by_the_facts_has_no_known_error():
    verdict = triage("PyTorch version: 1.11.0\nOS: macOS 12.3 (arm64)\nPython platform: macOS-12.3-arm64-arm-64bit\n").verdict
    assert verdict.root_cause == "torch.mps-built" and verdict.known_error is None
