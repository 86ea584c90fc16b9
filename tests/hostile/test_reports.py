"""Hostile reports through `check --from` (text, Markdown, JSON, the status plist) and `fix --from` (words and
scripts)."""

import json
import plistlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.attack import TALLY, hostile_reports, judge

FORMATS = ("text", "markdown", "json", "plist")
SETTINGS = settings(max_examples=160, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_hostile_reports(cli, tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")

    @SETTINGS
    @given(hostile_reports(), st.sampled_from(FORMATS), st.sampled_from(("zsh", "bash", "fish")), st.booleans())
    def attack(case, fmt, shell, verbose):
        name, doc = case
        path = folder / "report.json"
        path.write_text(json.dumps(doc))
        result = cli("check", "--from", str(path), "--format", fmt, *(("-v",) if verbose else ()),
                     catch_exceptions=True)
        judge(result, what=(name, "check", fmt), markdown=fmt == "markdown")
        if fmt == "plist" and result.exit_code in (0, 1):
            assert plistlib.loads(result.stdout.encode())["exit_code"] == result.exit_code
        judge(cli("fix", "--from", str(path), "--print-commands", "--shell", shell, catch_exceptions=True),
              what=(name, "fix", shell))
        judge(cli("fix", "--from", str(path), catch_exceptions=True), what=(name, "fix explained"))
        TALLY["reports"] += 1

    attack()
