"""A second review of issue 10's fixes, attacking with inputs the first suite did not try: invisible Unicode, words
that bash, zsh or fish expand or read as assignments, relative interpreter paths, Unicode digits and huge numbers.
Each test failed on the code before its fix."""

import json
import math
import re
import sys
import unicodedata

import pytest

from mps_doctor.checking.model import run
from mps_doctor.render.safe import UNSAFE, UNSAFE_IN_LINE, visible
from mps_doctor.render.script import quote, spell
from tests.hostile.attack import BASES, TALLY, put
from tests.hostile.shells import execute, shells

# Invisible in a terminal and on a web page, yet part of the value: a reader sees "/ab" where the path is "/a?b".
INVISIBLE = ("\u200b", "\u200d", "\u061c", "\u2060", "\u2066", "\ufeff", "\u00ad", "\u180e", "\ufe0f", "\u3164",
             "\U000e0041", "\U000e0001")


def write(tmp_path, doc, name="report.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def human_outputs(cli, report):
    """Every human format of REPORT: check as text (-v) and Markdown, fix explained, and the script for each shell."""
    outputs = {
        "text": cli("check", "--from", report, "-v"),
        "markdown": cli("check", "--from", report, "--format", "markdown"),
        "fix": cli("fix", "--from", report),
    }
    for shell in ("bash", "zsh", "fish"):
        outputs[shell] = cli("fix", "--from", report, "--print-commands", "--shell", shell)
    return outputs


def test_every_format_character_of_this_python_is_escaped():
    """The set is the Unicode category Cf, whatever Unicode version this Python knows."""
    missing = [hex(code) for code in range(sys.maxunicode + 1)
               if unicodedata.category(chr(code)) == "Cf" and not UNSAFE.match(chr(code))]
    assert not missing, missing
    assert visible("a\U000e0041b") == "a\\U000e0041b"


@pytest.mark.parametrize("char", INVISIBLE, ids=[hex(ord(c)) for c in INVISIBLE])
def test_invisible_characters_in_a_report_are_shown_escaped(cli, tmp_path, char):
    doc = put(BASES["m2-homebrew-python-no-venv"], ("facts", "target", "python"), "/opt/a%sb/bin/python3" % char)
    for name, result in human_outputs(cli, write(tmp_path, doc)).items():
        assert result.exit_code in (0, 1), (name, result.output)
        assert char not in result.output, (name, result.output)
        assert "/opt/a\\" in result.output, (name, result.output)
        TALLY["review: invisible characters"] += 1


def test_the_markdown_json_block_replays_characters_beyond_the_bmp_exactly(cli, tmp_path):
    python = "/opt/a\U000e0041\u200bb/bin/python3"
    doc = put(BASES["m2-homebrew-python-no-venv"], ("facts", "target", "python"), python)
    markdown = cli("check", "--from", write(tmp_path, doc), "--format", "markdown", "--no-redact").output
    block = re.search(r"```json\n(.*?)\n```", markdown, re.S).group(1)
    assert json.loads(block)["facts"]["target"]["python"] == python


# Words whose unquoted form a shell changes: zsh's =command expansion, fish's %self, and the empty word.
ARGUMENTS = ("=ls", "=python", "=", "%self", "%", "", "a=b", "-rf", "--", "x\u200by", "\U000e0041")


def test_arguments_reach_the_command_exactly_in_every_shell(stub_bin, tmp_path):
    for shell in shells():
        for word in ARGUMENTS:
            script = spell(run("python", word, "end"), shell) + "\n"
            calls = execute(script, shell, stub_bin, tmp_path)
            assert calls == [["python", word, "end"]], (shell, word, script, calls)
            TALLY["review: shell words"] += 1


@pytest.mark.parametrize("word", ["X=1", "PATH=.", "a=b=c"])
def test_a_command_word_with_an_equals_sign_is_not_an_assignment(stub_bin, tmp_path, word):
    """Unquoted, `PATH=. -m venv .venv` sets PATH and runs `-m` from the working directory."""
    for shell in shells():
        script = spell(run(word, "python", "-V"), shell) + "\n"
        assert script.startswith(quote(word, shell, command=True)) and not script.startswith(word + " "), script
        assert execute(script, shell, stub_bin, tmp_path) == [], (shell, script)


# ~/bin/python is not here: a redacted report's home is ~ (facts.absolute_path), and scripts keep ~/ bare so it expands.
RELATIVE = ("PATH=.", "-rf", "exec", "python3", "./python", "~bin/python")
PATH_FIELDS = (("facts", "target", "python"), ("facts", "target", "interpreter", "executable"),
               ("facts", "target", "interpreter", "executable_realpath"), ("facts", "target", "interpreter", "prefix"),
               ("facts", "target", "interpreter", "base_prefix"))


@pytest.mark.parametrize("field", PATH_FIELDS, ids=[f[-1] for f in PATH_FIELDS])
def test_a_relative_interpreter_path_in_a_report_is_bad_input(cli, tmp_path, field):
    """The probe records these paths absolute; relative, they become assignments, builtins or options in the plan."""
    for value in RELATIVE:
        report = write(tmp_path, put(BASES["m2-homebrew-python-no-venv"], field, value))
        for command in (("check",), ("fix", "--print-commands", "--shell", "bash")):
            result = cli(*command, "--from", report)
            assert result.exit_code == 2, (field, value, result.output)
            assert "%s: expected an absolute path" % ".".join(field) in result.stderr, result.stderr


def test_an_integer_too_large_for_a_float_field_is_bad_input(cli, tmp_path):
    doc = put(BASES["m2-native-torch213"], ("facts", "target", "torch", "import_seconds"), 10 ** 400)
    result = cli("check", "--from", write(tmp_path, doc), catch_exceptions=True)
    assert result.exit_code == 2, result.output
    assert "facts.target.torch.import_seconds" in result.stderr


# str.isdigit() is true for superscripts and other scripts' digits; int() rejects '²', and torch's C parsers read none.
UNICODE_DIGITS = ("²", "١", "1²", "٣")


@pytest.mark.parametrize("value", UNICODE_DIGITS)
def test_unicode_digits_in_cuda_visible_devices_never_crash_the_check(cli, tmp_path, value):
    doc = put(BASES["linux-h200-cuda"], ("facts", "host", "env"), {"CUDA_VISIBLE_DEVICES": value})
    result = cli("check", "--from", write(tmp_path, doc), "--format", "json")
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)["results"]}
    assert statuses["cuda.visible-devices"] in ("fail", "warn"), statuses
    assert "error" not in statuses.values() and result.exit_code in (0, 1), result.stdout


@pytest.mark.parametrize("name,value", [("PYTORCH_ENABLE_MPS_FALLBACK", "²"), ("PYTORCH_ENABLE_MPS_FALLBACK", "١"),
                                        ("PYTORCH_MPS_METAL_VERSION", "3.²"), ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "١.٥"),
                                        ("PYTORCH_MPS_HIGH_WATERMARK_RATIO", "1_0")])
def test_unicode_digits_in_pytorch_variables_are_not_valid(cli, tmp_path, name, value):
    """torch reads these with strtod and stoi, which take ASCII digits only (strtod reads '١.٥' as 0.0: no limit)."""
    doc = put(BASES["m2-native-torch213"], ("facts", "host", "env"), {name: value})
    result = cli("check", "--from", write(tmp_path, doc), "--format", "json")
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)["results"]}
    assert statuses["env.pytorch-vars"] == "warn", (name, value, statuses)


@pytest.mark.parametrize("value", ["²", "14.²", "١٤"])
def test_a_policy_macos_version_in_unicode_digits_is_a_usage_error(cli, tmp_path, value):
    policy = tmp_path / "pyproject.toml"
    policy.write_text('[tool.mps-doctor]\nmin-macos = "%s"\n' % value, encoding="utf-8")
    report = write(tmp_path, BASES["m2-native-torch213"])
    result = cli("check", "--from", report, "--config", str(policy))
    assert result.exit_code == 2, result.output
    assert "min-macos" in result.stderr


def test_a_macos_version_in_unicode_digits_never_crashes_a_check(cli, tmp_path):
    doc = put(BASES["m2-native-torch213"], ("facts", "host", "macos_version"), "15.²")
    result = cli("check", "--from", write(tmp_path, doc), "--format", "json")
    assert result.exit_code in (0, 1, 2), result.output
    if result.exit_code != 2:
        assert "error" not in {r["status"] for r in json.loads(result.stdout)["results"]}, result.stdout


def test_a_one_line_value_cannot_hide_a_line_break_of_any_kind():
    for char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        assert len(("a%sb" % char).splitlines()) == 2
        assert UNSAFE_IN_LINE.search(char), hex(ord(char))


def test_policy_init_never_writes_a_fact_into_toml_syntax():
    """`policy init` puts the macOS major version between TOML quotes: a quote and a newline there wrote new keys."""
    try:
        import tomllib
    except ImportError:  # Python 3.8 to 3.10
        import tomli as tomllib

    from mps_doctor.checking.model import Options
    from mps_doctor.policy import policy_from_table
    from mps_doctor.policy_init import render_policy
    from mps_doctor.report import facts_from_report, run_checks

    hostile = '14"\nstrict = true\nskip = [{ id = "os.macos", reason = "x" }]\n# ".1'
    facts, _ = facts_from_report(put(BASES["m2-native-torch213"], ("facts", "host", "macos_version"), hostile))
    text = render_policy(run_checks(facts, Options(device="mps", requested_device="mps")))
    policy = policy_from_table(tomllib.loads(text)["tool"]["mps-doctor"])
    assert not policy.strict and not policy.skip, text


@pytest.mark.parametrize("failure", [{"stage": "torch", "kind": "timeout", "timeout_seconds": math.nan},
                                     {"stage": "torch", "kind": "timeout", "timeout_seconds": -math.inf},
                                     {"stage": "torch", "kind": "timeout", "timeout_seconds": -5},
                                     {"stage": "torch", "kind": "hung\x1b[2J", "timeout_seconds": 60}],
                         ids=["nan", "-inf", "negative", "unknown-kind"])
def test_a_probe_failure_outside_its_shape_is_bad_input(cli, tmp_path, failure):
    """A timeout of NaN seconds was printed as advice ("took longer than the --timeout of nan s")."""
    doc = put(BASES["m2-homebrew-python-no-venv"], ("facts", "target", "failure"), failure)
    result = cli("check", "--from", write(tmp_path, doc))
    assert result.exit_code == 2, result.output
    assert "facts.target.failure." in result.stderr and "\x1b" not in result.stderr


@pytest.mark.parametrize("url", ["https://bob:s3cr3t-pass-1/x+y==@ci.example.invalid/",
                                 "https://bob:s3cr3t-pass-1#x@ci.example.invalid/",
                                 "https://u:p@s3cr3t-pass-1@ci.example.invalid/",
                                 "https://ci.example.invalid/job?token=s3cr3t-token-0&view=1",
                                 "https://ci.example.invalid/a?X-Amz-Signature=s3cr3t-key-3",
                                 "https://ci.example.invalid/a?sig=s3cr3t-key-3#top"])
def test_credentials_in_any_part_of_a_url_are_never_recorded(cli, tmp_path, url):
    """A base64 token holds `/` and a pasted one may hold `#`: the userinfo ran to the first of them and leaked."""
    doc = put(BASES["m2-native-torch213"], ("facts", "host", "env"), {"JENKINS_URL": url, "CI": "true"})
    report = write(tmp_path, doc)
    for fmt in ("json", "markdown", "text"):
        output = cli("check", "--from", report, "--format", fmt, "-v" if fmt == "text" else "--quick").output
        assert "s3cr3t" not in output, (fmt, output)
    recorded = json.loads(cli("check", "--from", report, "--format", "json").output)["facts"]["host"]["env"]
    assert recorded["JENKINS_URL"].startswith("https://ci.example.invalid/"), recorded


@pytest.mark.parametrize("before", [math.nan, math.inf], ids=["nan", "inf"])
def test_a_loss_that_started_non_finite_did_not_fall(cli, tmp_path, before):
    """`after >= before` is false for NaN: "trained 6 steps on mps: loss nan -> 0.500" passed."""
    doc = put(BASES["m2-native-torch213"], ("facts", "target", "smoke", "loss_before"), before)
    result = cli("check", "--from", write(tmp_path, doc), "--format", "json")
    statuses = {r["id"]: r["status"] for r in json.loads(result.stdout)["results"]}
    assert statuses["device.smoke"] == "fail" and result.exit_code == 1, statuses
