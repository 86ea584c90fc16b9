"""render/safe.py and the quoting of render/script.py: the functions every renderer relies on."""

import json
import re

import pytest

from mps_doctor.render.markdown import json_block
from mps_doctor.render.md import code, fence, marked_prose, prose
from mps_doctor.render.safe import displayable, escaped_line, visible
from mps_doctor.render.script import comment, fish_quote, posix_quote
from tests.hostile.attack import ESCAPE_BYTES, PAYLOADS


@pytest.mark.parametrize("payload", PAYLOADS)
def test_visible_and_one_line_emit_no_control_character(payload):
    assert ESCAPE_BYTES.search(visible(payload)) is None
    assert ESCAPE_BYTES.search(escaped_line(payload)) is None and "\n" not in escaped_line(payload)


def test_escapes_are_visible_and_ordinary_text_is_untouched():
    assert visible("a\x1b[2Jb\x07\u202e\n\tc") == "a\\x1b[2Jb\\x07\\u202e\n\tc"
    assert escaped_line("a\nb\tc") == "a\\nb\\tc"
    assert visible("Apple M2 Pro · jöhn 日本") == "Apple M2 Pro · jöhn 日本"


def test_displayable_reaches_every_string_of_a_dataclass_tree():
    from mps_doctor.checking.model import Status
    from mps_doctor.facts import Host

    host = displayable(Host(system="Darwin\x1b", tools={"uv\x07": "/x\x1b"}, brew_prefixes=("/a\x9b",)))
    assert host.system == "Darwin\\x1b" and host.tools == {"uv\\x07": "/x\\x1b"} and host.brew_prefixes == ("/a\\x9b",)
    assert displayable(Status.PASS) is Status.PASS


def test_markdown_values_cannot_leave_their_cell_or_open_html():
    cell = prose("a | b `c` <img src=x> [l](http://e) \n& \\", table=True)
    # The bracket that closes one inside the run stays in it, and the run goes on to the end.
    assert cell == "a `\\|` b `` `c` <img src=x> [l](http://e) \\n& \\ ``"
    assert code("a|b", table=True) == "`a\\|b`" and code("`x`") == "`` `x` ``" and code("") == "(empty)"


def test_a_code_fence_is_longer_than_any_backtick_run_inside():
    lines = fence("x ```` y", "sh")
    assert lines[0] == "`````sh" and lines[2] == "`````"


def test_markdown_json_replays_exactly_and_escapes_controls():
    doc = {"a": "jöhn\x1b[2J\x9b\u202e\ud800"}
    text = json_block(doc)
    assert ESCAPE_BYTES.search(text) is None and "jöhn" in text
    assert json.loads(text) == doc


@pytest.mark.parametrize("payload", PAYLOADS)
def test_script_comments_stay_one_line(payload):
    assert "\n" not in comment("title " + payload) and comment("x" + payload).startswith("# ")


@pytest.mark.parametrize("word,quoted", [("a\nb", "$'a\\nb'"), ("it's\x1b", "$'it\\'s\\x1b'"), ("!\t", "$'\\x21\\t'"),
                                         ("\u202e", "$'\\u202e'"), ("plain", "plain"), ("a b", "'a b'")])
def test_posix_quoting_of_control_characters(word, quoted):
    assert posix_quote(word) == quoted


@pytest.mark.parametrize("word,quoted", [("a\nb", "'a'\\n'b'"), ("\x1bx", "''\\x1b'x'"), ("it's\n", "'it\\'s'\\n"),
                                         ("\x85", "''\\u0085")])
def test_fish_quoting_of_control_characters(word, quoted):
    assert fish_quote(word) == quoted


def test_marked_prose_keeps_the_punctuation_between_values_outside_their_spans():
    text = "graphdeco's diff_gaussian_rasterization, simple_knn, or a fork (c10::cuda::SetDevice, here) with `nvidia-smi`."
    assert marked_prose(text) == ("graphdeco's `diff_gaussian_rasterization`, `simple_knn`, or a fork (`c10::cuda::SetDevice`, "
                                  "here) with `nvidia-smi`.")
    assert marked_prose("- a `x`", line_start=True) == "`-` a `x`"


@pytest.mark.parametrize("payload", PAYLOADS)
def test_marked_prose_leaves_nothing_live_outside_its_code_spans(payload):
    outside = re.sub(r"(`+)(?:(?!\1).)+\1", "", marked_prose("see `x` then %s, and %s" % (payload, payload)))
    assert not re.search(r"[<>\[\]@#|*_~\\!&]", outside), outside
