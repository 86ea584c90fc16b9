"""Each defect of issue 10 that this suite owns, reproduced through the CLI: it failed on the code before the fix."""

import json
import sys

import pytest

from mps_doctor.probe.host import collect_host
from mps_doctor.probe.runner import replay_runner
from mps_doctor.render.redact import redact
from tests.helpers import doctor
from tests.hostile.attack import BASES, ESCAPE_BYTES, SECRET_ENV, SECRETS, put
from tests.hostile.shells import execute, shells
from tests.rendered import live_problems

PAYLOAD = "\ntouch PWNED\n#"
ESCAPES = "\x1b]0;owned\x07\x1b]52;c;dG91Y2g=\x07\x1b[2J\x1b[32mready\x1b[0m\x9b1m"


def write(tmp_path, doc, name="report.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


# --- item 1: a newline in a report field ended a `#` comment of the printed script ---------------------------

REALPATH = "/Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11"
SCRIPT_FIELDS = [
    ("m3-torch-missing", ("facts", "target", "python"), "/x/python" + PAYLOAD),
    ("m1-rosetta-x86-python", ("facts", "target", "interpreter", "prefix"), "/x/venv" + PAYLOAD),
    ("m1-rosetta-x86-python", ("facts", "target", "interpreter", "executable_realpath"), REALPATH + PAYLOAD),
    ("m2-native-torch213", ("options", "requested_device"), "cpu" + PAYLOAD),
]


@pytest.mark.parametrize("name,field,value", SCRIPT_FIELDS, ids=[f[1][-1] for f in SCRIPT_FIELDS])
def test_a_newline_in_a_report_field_never_becomes_a_command(cli, stub_bin, tmp_path, name, field, value):
    report = write(tmp_path, put(BASES[name], field, value))
    for shell in shells():
        result = cli("fix", "--from", report, "--print-commands", "--shell", shell, catch_exceptions=True)
        assert result.exit_code in (0, 2), result.output
        if result.exit_code == 0:
            assert "\ntouch PWNED" not in result.stdout
            execute(result.stdout, shell, stub_bin, tmp_path)
            assert not (tmp_path / "PWNED").exists(), (shell, result.stdout)


def test_the_universal2_note_keeps_the_whole_path_on_one_comment_line(cli, tmp_path):
    doc = put(BASES["m1-rosetta-x86-python"], ("facts", "target", "interpreter", "executable_realpath"), REALPATH + PAYLOAD)
    doc = put(doc, ("facts", "host", "tools"), {})
    result = cli("fix", "--from", write(tmp_path, doc), "--print-commands", "--shell", "bash")
    lines = result.stdout.splitlines()
    assert any(line.startswith("# ") and "\\ntouch PWNED\\n#" in line for line in lines), result.stdout
    assert not any(line.startswith("touch") for line in lines)


# --- item 3: secrets from the environment reached the JSON report and the "redacted" Markdown ------------------


def host_with(env):
    return collect_host(run=replay_runner({}), environ=env, system="Linux", which=lambda name: None,
                        path_exists=lambda path: False, uname=("6.1", "x86_64"), memory=lambda: None,
                        distro_reader=lambda: None)


def test_the_environment_is_recorded_by_allowlist_without_credentials():
    env = dict(SECRET_ENV, HOME="/home/dev", USER="dev", PYTORCH_ENABLE_MPS_FALLBACK="1", CI="true",
               PYTORCH_SECRET_TOKEN="s3cr3t-token-0", CONDA_EXE="/opt/conda/bin/conda")
    recorded = host_with(env).env
    assert recorded == {"CI": "true", "CONDA_PREFIX": "/opt/conda/envs/x", "JENKINS_URL": "https://jenkins.example.invalid/",
                        "PYTORCH_ENABLE_MPS_FALLBACK": "1"}


def test_a_report_carrying_secrets_does_not_pass_them_on(cli, tmp_path):
    doc = put(BASES["linux-h200-cuda"], ("facts", "host", "env"), dict(SECRET_ENV))
    report = write(tmp_path, doc)
    for fmt in ("json", "markdown", "text"):
        result = cli("check", "--from", report, "--format", fmt, "-v", "--no-redact", catch_exceptions=True)
        assert result.exit_code == 0, result.output
        for secret in SECRETS:
            assert secret not in result.output, (fmt, secret)


@pytest.mark.slow
def test_a_live_check_records_no_secret(tmp_path):
    env = dict(SECRET_ENV, CONDA_PREFIX=sys.prefix)
    code, out, err = doctor("check", "--quick", "--device", "cpu", "--format", "json", env=env)
    assert code in (0, 1), err
    recorded = json.loads(out)["facts"]["host"]["env"]
    assert not any(secret in out for secret in SECRETS), recorded
    assert "UV_INDEX_URL" not in recorded and "JENKINS_URL" in recorded
    env.update(PYTORCH_ENABLE_MPS_FALLBACK=ESCAPES, SHELL="/bin/zsh" + PAYLOAD)
    code, out, err = doctor("check", "--quick", "--device", "cpu", "-v", env=env)
    assert code in (0, 1) and ESCAPE_BYTES.search(out + err) is None, out + err
    assert "\\x1b]0;owned" in out and not any(secret in out for secret in SECRETS)


# --- item 4: escape sequences from a report reached the terminal -------------------------------------------------


@pytest.mark.parametrize("field", [("facts", "target", "python"),
                                   ("facts", "target", "torch", "import_error", "message"),
                                   ("options", "policy", "source"), ("facts", "host", "cpu_brand")])
def test_escape_sequences_in_a_report_are_shown_not_emitted(cli, tmp_path, field):
    name = "m2-torch-import-error" if "import_error" in field else "m2-native-torch213"
    doc = put(BASES[name], field, "/x" + ESCAPES)
    if field[1] == "policy":
        doc = put(doc, ("options", "policy", "torch"), ">=2.0")
    report = write(tmp_path, doc)
    for args in (("check", "-v", "--no-color"), ("check", "--format", "markdown"), ("fix",),
                 ("fix", "--print-commands")):
        result = cli(*args, "--from", report, catch_exceptions=True)
        assert result.exit_code in (0, 1), result.output
        assert ESCAPE_BYTES.search(result.output) is None, (args, result.output)
    json_out = cli("check", "--from", report, "--format", "json", catch_exceptions=True).output
    value = json.loads(json_out)
    for key in field:
        value = value[key]
    assert value == "/x" + ESCAPES, "JSON keeps the exact value"


def test_a_policy_reason_with_escapes_is_shown_not_emitted(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.mps-doctor]\nskip = [{id = "host.memory", reason = "ok\\u001b]0;x\\u0007'
                                             '\\u001b[2J"}]\n')
    report = write(tmp_path, BASES["m2-native-torch213"])
    result = cli("check", "--from", report, "--config", str(tmp_path / "pyproject.toml"), "-v", catch_exceptions=True)
    assert result.exit_code == 0 and "\\x1b]0;x\\x07" in result.output
    assert ESCAPE_BYTES.search(result.output) is None


# --- item 5: a report's options were not validated ----------------------------------------------------------------


@pytest.mark.parametrize("field,value,path", [
    (("options", "requested_device"), "tpu", "options.requested_device"),
    (("options", "device"), "cpu; touch PWNED", "options.device"),
    (("options", "select"), ["nope.check"], "options.select[0]"),
    (("options", "required"), ["tpu"], "options.required[0]"),
    (("options", "quick"), "yes", "options.quick"),
    (("options", "policy", "devices"), ["tpu"], "options.policy"),
])
def test_bad_options_in_a_report_are_exit_2_naming_the_path(cli, tmp_path, field, value, path):
    doc = put(BASES["m2-native-torch213"], field, value)
    if field[-1] == "device":
        doc = put(doc, ("options", "requested_device"), None)
    for command in (("check",), ("fix", "--print-commands")):
        result = cli(*command, "--from", write(tmp_path, doc), catch_exceptions=True)
        assert result.exit_code == 2, result.output
        assert path in result.output and "ready" not in result.output


# --- item 9: Markdown redaction ------------------------------------------------------------------------------------


def test_redaction_of_a_non_ascii_home_also_in_json_escapes():
    text = 'home "/Users/j\\u00f6hn/proj" and /Users/jöhn/proj'
    assert redact(text, "/Users/jöhn", "jöhn") == 'home "~/proj" and ~/proj'


def test_redaction_never_cuts_inside_a_path_component():
    text = "/Users/al/proj /Users/alice-shared/data /Users/al"
    assert redact(text, "/Users/al", "al") == "~/proj /Users/alice-shared/data ~"


def test_check_redacts_user_names_as_triage_does_also_after_a_url_encoded_slash():
    text = "file:///x?path=%2FUsers%2Falex%2Fproj and alex"
    assert redact(text, "/opt/home", "alex") == "file:///x?path=%2FUsers%2F<user>%2Fproj and <user>"


def test_the_user_name_is_redacted_when_user_is_unset(cli, tmp_path):
    doc = put(BASES["m2-native-torch213"], ("facts", "host", "user"), None)
    doc = put(doc, ("facts", "target", "python"), "/Users/alex/proj/.venv/bin/python alex")
    result = cli("check", "--from", write(tmp_path, doc), "--format", "markdown", catch_exceptions=True)
    assert "alex" not in result.output and "<user>" in result.output
    assert host_with({"HOME": "/home/x"}).user  # the password database answers when USER is unset


# --- item 11: exit 3 where the contract says 2 --------------------------------------------------------------------


@pytest.mark.parametrize("name,field,value", [
    ("linux-h200-cuda", ("facts", "target", "interpreter", "version"), [3]),
    ("linux-h200-cuda", ("facts", "target", "interpreter", "version"), []),
    ("m1-conda-osx64", ("facts", "target", "interpreter", "version"), [3]),
    ("linux-h200-cuda", ("facts", "target", "torch", "cuda_devices", 0, "capability"), []),
    ("linux-h200-cuda", ("facts", "target", "torch", "cuda_devices", 0, "capability"), [9]),
    ("linux-h200-cuda", ("options", "select"), 3),
    ("linux-h200-cuda", ("options", "required"), 3),
])
def test_schema_shaped_nonsense_is_exit_2(cli, tmp_path, name, field, value):
    result = cli("check", "--from", write(tmp_path, put(BASES[name], field, value)), catch_exceptions=True)
    assert result.exit_code == 2, result.output
    assert ".".join(str(k) for k in field[-2:] if not isinstance(k, int)) in result.output


def test_deeply_nested_report_and_policy_are_exit_2(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    code, _, err = doctor("check", "--from", str(deep))
    assert code == 2 and "Traceback" not in err, err
    toml = tmp_path / "pyproject.toml"
    toml.write_text("[tool.mps-doctor]\nskip = " + "[" * 100000 + "]" * 100000 + "\n")
    code, _, err = doctor("check", "--from", str(write(tmp_path, BASES["m2-native-torch213"])), "--config", str(toml))
    assert code == 2 and "Traceback" not in err, err


def test_markdown_keeps_report_text_out_of_html_and_out_of_its_code_fences(cli, tmp_path):
    brand = "Intel <img src=https://example.invalid/p.png> | ``` </details> [x](https://example.invalid)"
    doc = put(BASES["intel-mac-torch222"], ("facts", "host", "cpu_brand"), brand)
    result = cli("check", "--from", write(tmp_path, doc), "--format", "markdown", catch_exceptions=True)
    assert result.exit_code == 1, result.output
    _, _, block = result.output.partition("Report (save as report.json")
    assert live_problems(result.output) == [] and "````<img src=https://example.invalid/p.png>" in result.output
    assert result.output.rstrip().endswith("</details>")
    fence = block.splitlines()[2]
    assert fence.startswith("````") and fence.endswith("json"), fence
    assert json.loads(block.split(fence[:-4] + "json\n", 1)[1].rsplit("\n" + fence[:-4] + "\n", 1)[0])


def test_a_layer_whose_earlier_layer_was_left_out_is_skipped_not_crashed(cli, tmp_path):
    """Found by the suite: --select past the layer that guarantees torch imported crashed cuda.driver-version."""
    report = write(tmp_path, BASES["m4-torch-import-sigill"])
    result = cli("check", "--from", report, "--device", "cuda", "--select", "cuda.driver-version", catch_exceptions=True)
    assert result.exit_code in (0, 1), result.output
    assert "not checked: earlier layers it relies on did not run (os.linux, cuda.driver," in result.output
