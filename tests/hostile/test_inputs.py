"""The corpus under tests/hostile/corpus, and generated options, policy files, environments and output paths."""

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mps_doctor.checking.model import Options
from mps_doctor.facts import Facts
from mps_doctor.policy import KNOWN_KEYS
from mps_doctor.probe.host import collect_host
from mps_doctor.probe.runner import replay_runner
from mps_doctor.remedies.plan import build_plan
from mps_doctor.render.markdown import render_markdown
from mps_doctor.render.script import render_explained, render_script
from mps_doctor.render.text import render_text
from mps_doctor.report import report_to_dict, run_checks
from tests.hostile.attack import BASES, ESCAPE_BYTES, PAYLOADS, SECRET_ENV, SECRETS, TALLY, hostile_text, judge, odd_value, paths, put
from tests.machines import load_machine, replay_facts

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
BASE = "m2-native-torch213"
SETTINGS = dict(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def corpus(suffix):
    return sorted(name for name in os.listdir(CORPUS) if name.endswith(suffix))


@pytest.fixture(scope="module")
def base_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("base") / "report.json"
    path.write_text(json.dumps(BASES[BASE]))
    return str(path)


@pytest.mark.parametrize("name", corpus(".json"))
def test_corpus_reports(cli, name):
    path = os.path.join(CORPUS, name)
    for args in (("check", "--format", "text"), ("check", "--format", "markdown"), ("fix", "--print-commands")):
        result = judge(cli(*args, "--from", path, catch_exceptions=True), what=(name, args))
        assert result  # a bad report is one line on stderr
    TALLY["corpus"] += 1


@pytest.mark.parametrize("name", corpus(".toml"))
def test_corpus_policies(cli, name, base_report):
    path = os.path.join(CORPUS, name)
    for args in (("check", "--from", base_report, "-v"), ("fix", "--from", base_report, "--print-commands"),
                 ("policy", "show"), ("policy", "show", "--format", "json")):
        judge(cli(*args, "--config", path, catch_exceptions=True), what=(name, args))
    TALLY["corpus"] += 1


def test_every_string_of_a_report_hostile_at_once(cli, tmp_path):
    """All string fields of a recorded report replaced by one payload each, in turn through every renderer."""
    doc = BASES[BASE]
    strings = [p for p in paths(doc) if p[:1] == ("facts",) and isinstance(doc_get(doc, p), str)]
    for index, payload in enumerate(PAYLOADS):
        hostile = doc
        for path in strings:
            hostile = put(hostile, path, doc_get(doc, path) + payload)
        report = tmp_path / "r.json"
        report.write_text(json.dumps(hostile))
        for args in (("check", "-v"), ("check", "--format", "markdown", "--no-redact"), ("fix",),
                     ("fix", "--print-commands", "--shell", ("bash", "zsh", "fish")[index % 3])):
            judge(cli(*args, "--from", str(report), catch_exceptions=True), what=(payload, args))
        TALLY["corpus"] += 1


def doc_get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


OPTION_VALUES = st.one_of(odd_value, st.sampled_from(["auto", "mps", "cpu", "cuda", ["cpu"], ["host.memory"],
                                                      ["device.smoke", "nope"], {"devices": ["cpu"]}]))


@settings(max_examples=60, **SETTINGS)
@given(st.dictionaries(st.sampled_from(["device", "requested_device", "quick", "select", "required", "policy"]),
                       OPTION_VALUES, max_size=4))
def test_generated_report_options(cli, base_report, options):
    doc = put(BASES[BASE], ("options",), options)
    path = base_report + ".options.json"
    with open(path, "w") as handle:
        json.dump(doc, handle)
    judge(cli("check", "--from", path, catch_exceptions=True), what=options)
    judge(cli("fix", "--from", path, "--print-commands", catch_exceptions=True), what=options)
    TALLY["options"] += 1


def toml_value(value):
    """VALUE written as TOML (strings with \\u escapes for every control character)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value) if value == value and abs(value) != float("inf") else "nan"
    if isinstance(value, str):
        return '"' + "".join(c if c.isprintable() and c not in '"\\' else "\\u%04x" % ord(c) if ord(c) < 0x10000
                             and not 0xd800 <= ord(c) < 0xe000 else "?" for c in value) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join("%s = %s" % (toml_value(str(k)), toml_value(v)) for k, v in value.items()
                               if v is not None) + "}"
    return '""'


ENTRY = st.fixed_dictionaries({"id": st.one_of(st.sampled_from(["host.memory", "python.numpy", "device.smoke"]),
                                               hostile_text), "reason": hostile_text})
POLICY_VALUES = st.one_of(hostile_text, st.lists(ENTRY, max_size=2), st.sampled_from(
    ["mps", "cpu", ["cpu", "mps"], ">=2.0", "==2.13.*", "14.0", True, 3, [], {}]), odd_value)


@settings(max_examples=60, **SETTINGS)
@given(st.dictionaries(st.one_of(st.sampled_from(KNOWN_KEYS), hostile_text), POLICY_VALUES, max_size=4))
def test_generated_policy_files(cli, base_report, tmp_path, table):
    text = "[tool.mps-doctor]\n" + "".join("%s = %s\n" % (toml_value(k), toml_value(v)) for k, v in table.items()
                                           if v is not None)
    path = tmp_path / "pyproject.toml"
    path.write_text(text)
    judge(cli("check", "--from", base_report, "--config", str(path), "-v", catch_exceptions=True), what=text)
    judge(cli("policy", "show", "--config", str(path), catch_exceptions=True), what=text)
    TALLY["policy files"] += 1


ENV_NAMES = st.one_of(st.sampled_from(["SHELL", "CUDA_VISIBLE_DEVICES", "PYTORCH_ENABLE_MPS_FALLBACK", "CONDA_PREFIX",
                                       "PYTORCH_MPS_HIGH_WATERMARK_RATIO", "CI", "GITHUB_ACTIONS", "RUNNER_ENVIRONMENT",
                                       "CODEX_SANDBOX", "VIRTUAL_ENV", "JENKINS_URL", "HOME", "USER"]),
                      st.text(min_size=1, max_size=10))


@settings(max_examples=60, **SETTINGS)
@given(st.dictionaries(ENV_NAMES, hostile_text, max_size=6), st.sets(st.sampled_from(sorted(SECRET_ENV))),
       st.sampled_from(("zsh", "bash", "fish")))
def test_generated_environments(environ, secret_names, shell):
    """The environment as the host probe reads it, through the checks and every renderer."""
    machine = load_machine(BASE)
    environ = dict(environ, SECRET_TOKEN="s3cr3t-token-0", **{name: SECRET_ENV[name] for name in secret_names})
    host = collect_host(run=replay_runner(machine["host"]["commands"]), environ=environ, system="Darwin",
                        which=lambda name: None, path_exists=lambda path: False, uname=("24.1.0", "arm64"),
                        memory=lambda: 2 ** 34)
    facts = Facts(host=host, target=replay_facts(machine).target)
    report = run_checks(facts, Options(device="auto"))
    plan = build_plan(report, shell=shell)
    outputs = [render_text(report, verbose=True), render_markdown(report), render_markdown(report, redacted=False),
               render_script(plan), render_explained(plan), json.dumps(report_to_dict(report))]
    for output in outputs:
        bad = ESCAPE_BYTES.search(output)
        assert bad is None, (environ, output)
        for secret in SECRETS:
            assert secret not in output, (environ, secret)
    TALLY["environments"] += 1


OUTPUT_NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1,
                       max_size=40).filter(lambda name: name not in (".", ".."))


@settings(max_examples=30, **SETTINGS)
@given(st.one_of(OUTPUT_NAMES, st.sampled_from(PAYLOADS).filter(lambda p: "/" not in p and "\x00" not in p)),
       st.sampled_from(("", "missing/", "missing\x1b[2J/")), st.sampled_from(("text", "json", "markdown")))
def test_generated_output_paths(cli, base_report, tmp_path, name, folder, fmt):
    if name.strip() in ("", ".", ".."):
        return
    target = os.path.join(str(tmp_path), folder + name)
    judge(cli("check", "--from", base_report, "--format", fmt, "--output", target, catch_exceptions=True),
          what=(name, folder))
    if os.path.isfile(target):
        with open(target, encoding="utf-8") as handle:
            written = handle.read()
        assert "mps-doctor" in written and ESCAPE_BYTES.search(written) is None
    TALLY["output paths"] += 1


def check_ids():
    from mps_doctor.checking.registry import REGISTRY, all_checks

    all_checks()
    return sorted(REGISTRY)


DEVICE_LISTS = st.lists(st.sampled_from(["mps", "cpu", "cuda"]), unique=True, max_size=2)
ENTRIES = st.lists(st.builds(lambda i: {"id": i, "reason": "r"}, st.sampled_from(check_ids())), max_size=2)
VALID_OPTIONS = st.fixed_dictionaries({
    "requested_device": st.sampled_from(["auto", "mps", "cpu", "cuda"]), "quick": st.booleans(),
    "select": st.lists(st.sampled_from(check_ids()), max_size=3), "required": DEVICE_LISTS,
    "policy": st.fixed_dictionaries({
        "devices": DEVICE_LISTS, "torch": st.sampled_from([None, ">=2.0", "==1.0", "<2.5"]),
        "torchvision": st.sampled_from([None, ">=0.1", "==9.9"]), "python": st.sampled_from([None, ">=3.99", ">=3.8"]),
        "min_macos": st.sampled_from([None, "99.0", "10.0"]), "strict": st.booleans(), "skip": ENTRIES,
        "accept": ENTRIES})})


@settings(max_examples=60, **SETTINGS)
@given(st.sampled_from(sorted(BASES)), VALID_OPTIONS)
def test_valid_option_combinations_never_crash_a_check(cli, base_report, machine, options):
    """Every valid combination of device, --select, --require-device and policy, on every recorded machine."""
    path = base_report + ".valid.json"
    with open(path, "w") as handle:
        json.dump(put(BASES[machine], ("options",), options), handle)
    judge(cli("check", "--from", path, catch_exceptions=True), what=(machine, options))
    judge(cli("fix", "--from", path, "--print-commands", catch_exceptions=True), what=(machine, options))
    TALLY["options"] += 1
