"""Hostile reports through `summarize` (text, Markdown, JSON; hostile file names too), `check --format junit` and
`prometheus`, and `check` in a GitHub Actions job (the step summary and the workflow commands)."""

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from tests.hostile.attack import ESCAPE_BYTES, PAYLOADS, TALLY, get, hostile_reports, hostile_text, judge, odd_value, paths, put
from tests.rendered import live_problems
from tests.unit.render.test_github import commands_in
from tests.unit.render.test_junit import SCHEMA

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
SETTINGS = settings(max_examples=60, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# File names a folder of collected reports may hold: every payload a file system takes (no `/`, no NUL, encodable).
FILE_NAMES = [p.replace("/", "") + ".json" for p in PAYLOADS if "\x00" not in p and "\ud800" not in p and p.strip("/. ")]


@st.composite
def recorded_fields_too(draw):
    """A hostile report whose verdict, results or time (what summarize reads as recorded) may be hostile as well."""
    name, doc = draw(hostile_reports())
    if isinstance(doc, dict) and draw(st.booleans()):
        candidates = [p for p in paths(doc) if p[:1] in (("verdict",), ("results",), ("created",))]
        path = draw(st.sampled_from(candidates))
        value = draw(hostile_text) if isinstance(get(doc, path), str) and draw(st.booleans()) else draw(odd_value)
        doc = put(doc, path, value)
    return name, doc


def test_hostile_reports_in_a_summary(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("fleet")

    @SETTINGS
    @given(recorded_fields_too(), st.sampled_from(FILE_NAMES), st.sampled_from(("text", "markdown", "json")))
    def attack(case, file_name, fmt):
        name, doc = case
        for old in os.listdir(str(folder)):
            os.unlink(os.path.join(str(folder), old))
        (folder / file_name).write_text(json.dumps(doc))
        (folder / "plain.json").write_text(json.dumps(doc))
        result = cli("summarize", "--format", fmt, str(folder), catch_exceptions=True)
        output = judge(result, what=(name, "summarize", fmt), markdown=fmt == "markdown")
        assert result.exit_code in (0, 1), output[-2000:]
        if fmt == "json":
            document = json.loads(result.stdout)
            assert len(document["machines"]) + len(document["left_out"]) == 2
        TALLY["summaries"] += 1

    attack()


def test_the_hostile_corpus_in_a_summary_is_left_out_never_fatal(cli, tmp_path):
    names = sorted(n for n in os.listdir(CORPUS) if n.endswith(".json"))
    for name in names:
        (tmp_path / name).write_bytes(open(os.path.join(CORPUS, name), "rb").read())
    result = cli("summarize", "--format", "json", str(tmp_path), catch_exceptions=True)
    judge(result, what="corpus")
    document = json.loads(result.stdout)
    assert result.exit_code == 1 and len(document["machines"]) + len(document["left_out"]) == len(names)


def test_hostile_reports_as_junit_prometheus_and_in_github_actions(cli, tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("reports")
    summary = folder / "step_summary.md"

    @SETTINGS
    @given(hostile_reports())
    def attack(case):
        name, doc = case
        path = folder / "report.json"
        path.write_text(json.dumps(doc))
        result = cli("check", "--from", str(path), "--format", "junit", catch_exceptions=True)
        judge(result, what=(name, "junit"))
        if result.exit_code in (0, 1):
            SCHEMA.validate(result.stdout.encode("utf-8"))
        result = cli("check", "--from", str(path), "--format", "prometheus", catch_exceptions=True)
        judge(result, what=(name, "prometheus"))
        if result.exit_code in (0, 1):
            assert list(text_string_to_metric_families(result.stdout))
        summary.write_text("")
        with monkeypatch.context() as patch:
            patch.setenv("GITHUB_ACTIONS", "true")
            patch.setenv("GITHUB_STEP_SUMMARY", str(summary))
            result = cli("check", "--from", str(path), catch_exceptions=True)
        judge(result, what=(name, "github"))
        commands = commands_in(result.stderr)
        assert all(command in ("error", "warning") and list(props) == ["title"] for command, props, _ in commands)
        assert (result.exit_code == 1) <= any(command == "error" for command, _, _ in commands)
        written = summary.read_text()
        assert ESCAPE_BYTES.search(written) is None and live_problems(written) == []
        TALLY["team outputs"] += 1

    attack()
