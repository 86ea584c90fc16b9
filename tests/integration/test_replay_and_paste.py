"""A new user's trial of check --from and triage: a paste never passes as ready, a pasted Markdown report is that
report (redacted paths included), a replay keeps --strict, and pasted text is counted and quoted as it was."""

import json
import os

from mps_doctor.render.md import html_prose, prose
from mps_doctor.render.triage import render_triage
from mps_doctor.triage.engine import triage
from mps_doctor.triage.text import clean
from tests.helpers import doctor
from tests.hostile.attack import BASES
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR


def test_check_from_a_paste_never_exits_ready(tmp_path):
    paste = tmp_path / "paste.txt"
    paste.write_text("Linux-6.1.0-x86_64-with-glibc2.36\n")
    code, out, err = doctor("check", "--from", str(paste))
    assert code == 1 and "no problem found in the pasted text" in out, (out, err)


def test_a_pasted_markdown_report_is_that_report_for_check_fix_and_triage(tmp_path):
    """The redacted Markdown of `check --format markdown` replays as its JSON report: ~/ paths and all."""
    example = os.path.join(ROOT, "docs", "examples", "mac-rosetta.json")
    code, markdown, err = doctor("check", "--from", example, "--format", "markdown")
    assert code == 1 and "~/" in markdown, err
    saved = tmp_path / "bug-report.md"
    saved.write_text("My Mac does not use the GPU, here is the report:\n\n" + markdown)
    code, out, err = doctor("check", "--from", str(saved), "--format", "json")
    assert code == 1, err
    assert json.loads(out)["verdict"]["root_cause"] == "python.rosetta"
    code, out, err = doctor("fix", "--from", str(saved), "--print-commands", "--shell", "bash")
    assert code == 0 and "~/proj/.venv-arm64/bin/python" in out and "'~/" not in out, (out, err)
    code, out, err = doctor("triage", str(saved))
    assert code == 1 and "Python runs under Rosetta" in out and "the mps-doctor report in the paste" in out


def test_a_replay_is_as_strict_as_the_run_it_replays(tmp_path):
    doc = json.loads(json.dumps(BASES["m2-torchaudio-left-behind"]))
    doc["options"]["strict"] = True
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc))
    code, out, _ = doctor("check", "--from", str(path))
    strict_code = code
    doc["options"]["strict"] = False
    path.write_text(json.dumps(doc))
    code, out, _ = doctor("check", "--from", str(path))
    assert (strict_code, code) == (1, 0), out


def test_a_final_line_break_starts_no_pasted_line():
    assert [len(clean(text)) for text in ("a\n", "a", "a\nb\n\n", "a\r\n", "")] == [1, 1, 3, 1, 1]
    assert triage("RuntimeError: Found no NVIDIA driver on your system.\n").source["lines"] == 1


def test_other_scripts_punctuation_in_a_pasted_message_stays():
    paste = "您好，我正在运行：RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"
    report = triage(paste)
    quoted = json.dumps(json.loads(render_triage(report, "json")), ensure_ascii=False)
    assert "您好，我正在运行：" in quoted


def test_punctuation_around_a_value_stays_outside_its_code_span():
    assert prose("supported by torch 2.15 (>=3.11,<3.16), the newest") == \
        "supported by torch 2.15 (`>=3.11,<3.16`), the newest"
    assert prose("runs under Rosetta (x86_64) on ~/.venv/bin/python; done") == \
        "runs under Rosetta (`x86_64`) on `~/.venv/bin/python`; done"
    assert html_prose("not installed in ~/x/python; 1 failure") == "not installed in <code>~/x/python</code>; 1 failure"


def test_a_home_relative_path_is_one_word_that_expands_and_runs_nothing(tmp_path):
    """A redacted report's ~/ path: ~/ stays bare so that the shell expands it; the rest is quoted as any value."""
    import shutil
    import subprocess

    from mps_doctor.render.script import quote

    value = "~/a b/$(touch PWNED)'x`touch PWNED`"
    for shell in ("bash", "zsh", "fish"):
        assert shutil.which(shell), "%s is installed by .ci/run" % shell
        line = "printf '%%s' %s" % quote(value, shell)
        out = subprocess.run([shell, "-c", line], capture_output=True, text=True, cwd=str(tmp_path),
                             env={"HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}).stdout
        assert out == str(tmp_path / "home") + value[1:], (shell, out)
        assert not (tmp_path / "PWNED").exists()
