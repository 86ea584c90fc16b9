"""words.py: summaries shortened at a word, prose wrapped without splitting a path or a command."""

import random
import re

import pytest

from mps_doctor.words import shorten, wrap

TEXT = ("RuntimeError: The MPS backend is supported on MacOS 13.0+.Current OS version can be queried using "
        "`sw_vers` and /Users/alex/my-project/.venv-arm64/bin/python3.11 is the interpreter, run `pip install torch`.")


def words_of(text):
    return text.split()


@pytest.mark.parametrize("limit", range(len("RuntimeError..."), len(TEXT) + 2))
def test_a_shortened_summary_ends_at_a_word_with_an_ellipsis(limit):
    short = shorten(TEXT, limit)
    assert len(short) <= limit
    if len(TEXT) <= limit:
        assert short == TEXT
        return
    assert short.endswith("...")
    kept = words_of(short[:-3])
    # Every word kept is a whole word of the text, in order; the last one is not cut (only trailing ,;: may go).
    assert kept == words_of(TEXT)[:len(kept)][:-1] + [words_of(TEXT)[len(kept) - 1].rstrip(",;:")]
    assert kept, "at least the first word fits at these limits"


def test_a_first_word_longer_than_the_limit_is_the_only_thing_cut_inside():
    path = "/Users/alex/" + "x" * 80 + "/python"
    assert shorten(path + " is broken", 40) == path[:37] + "..."
    assert shorten("short", 5) == "short" and shorten("", 3) == ""


def test_shorten_drops_punctuation_before_the_ellipsis():
    assert shorten("first, second; third", 12) == "first..."
    assert shorten("alpha beta gamma", 13) == "alpha beta..."


def test_random_texts_keep_their_words():
    rng = random.Random(24)
    vocabulary = ["a", "torch", "2.13.0", "/opt/homebrew/bin/python3", "`pip install torch`", "x" * 30, "MPS,"]
    for _ in range(500):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 12)))
        limit = rng.randint(3, 120)
        short = shorten(text, limit)
        assert len(short) <= limit
        if short != text and len(text.split()[0]) + 3 <= limit:
            head = short[:-3]
            assert text.startswith(head) and (len(head) == len(text) or text[len(head)] in " ,;:")


@pytest.mark.parametrize("width", range(20, 120, 7))
def test_wrapping_never_splits_a_path_or_a_command(width):
    lines = wrap(TEXT, width, indent="    ")
    joined = " ".join(line.strip() for line in lines)
    assert joined == " ".join(TEXT.split())
    for unit in ("/Users/alex/my-project/.venv-arm64/bin/python3.11", "`pip install torch`", "`sw_vers`"):
        assert any(unit in line for line in lines), (unit, lines)
    for line in lines:
        assert line.startswith("    ")
        # A line is over the width only when it is one unit that alone is longer.
        assert len(line) <= width or len(re.findall(r"(?:`[^`]*`|\S)+", line)) == 1, line


def test_a_long_path_has_a_line_of_its_own():
    path = "/Users/alex/Library/CloudStorage/OneDrive-Company/projects/thesis-2026/.venv/bin/python"
    lines = wrap("the interpreter %s is x86_64" % path, 40, "  ")
    assert lines == ["  the interpreter", "  " + path, "  is x86_64"]


def test_an_unpaired_backquote_is_an_ordinary_character():
    assert wrap("it said `oops and more words here", 12) == ["it said", "`oops and", "more words", "here"]


def split_units(output, texts):
    """The paths and `commands` of TEXTS that OUTPUT shows, but not whole on one line."""
    from mps_doctor.words import UNIT

    lines = output.splitlines()
    squashed = "".join("".join(line.lstrip("# ").split()) for line in lines)
    units = {unit for text in texts for unit in UNIT.findall(text) if "/" in unit or "`" in unit}
    return sorted(unit for unit in units if "".join(unit.split()) in squashed and not any(unit in line for line in lines))


@pytest.mark.parametrize("name", __import__("tests.machines", fromlist=["machine_names"]).machine_names())
def test_no_report_or_plan_splits_a_path_or_a_command(name):
    from mps_doctor.checking.model import Options
    from mps_doctor.remedies.plan import build_plan
    from mps_doctor.render.script import render_script
    from mps_doctor.render.text import render_text
    from mps_doctor.report import run_checks
    from tests.machines import load_machine, replay_facts

    machine = load_machine(name)
    device = machine["expect"].get("requested", "auto")
    report = run_checks(replay_facts(machine), Options(device=device, requested_device=device))
    texts = [text for r in report.results if r.remedy for text in (r.remedy.problem, r.remedy.why)]
    plan = build_plan(report, shell="zsh", doctor=("mps-doctor",))
    texts += [text for step in plan.steps for text in (step.title, step.reason) if text]
    assert split_units(render_text(report), texts) == []
    assert split_units(render_text(report, verbose=True), texts) == []
    assert split_units(render_script(plan), texts) == []


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("a/b.json", 40, "a/b.json"),
    ("venv/lib/python3.11/site-packages/mps_doctor/data/report.schema.json", 40, ".../mps_doctor/data/report.schema.json"),
    ("x" * 50, 10, "...xxxxxxx"),
])
def test_a_long_path_keeps_its_end(text, limit, expected):
    from mps_doctor.words import shorten_path

    assert shorten_path(text, limit) == expected and len(expected) <= limit
