"""mps_doctor/literals.py: the text every match holds, read from the pattern, and the folding it is compared under."""

import glob
import os
import re
import string
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mps_doctor import known_errors
from mps_doctor.literals import Haystack, fold, required
from tests.paths import TESTS_DIR


@pytest.mark.parametrize("pattern,needles", [
    (r"Could not find module", {"module"}),
    (r"abc(?:x|yz)+\bq", {"abc"}),
    # re's parser takes the branches' common prefix out of them.
    (r"(?:libcudart|libcublas)\.so\.\d+", {"libcu"}),
    (r"(?:cudart|cublas)\.so\.\d+", {".so."}),
    (r"(?P<name>torch|vision)_?\d", {"torch", "vision"}),
    (r"MPS backend out of memory", {"backend"}),
    (r"x(?:abcdef)?y", {"x"}),
    (r"\d+\.\d+", {"."}),
    (r"\d+\s\d+", None),
    (r"(?:foo|)bar", {"bar"}),
    (r"(?:foo|)", None),
    (r"[Ee]rror", {"rror"}),
    (r"caf\u00e9 au lait", {"lait"}),
    # What a match need not hold: a conditional's branches, a lookahead's text, a group's repetition by reference.
    (r"(x)?(?(1)abc|def)", None),
    (r"(?!abc)def", {"def"}),
    (r"(ab)\1", {"ab"}),
    (r"(?<=abcd)ef", {"ef"}),
])
def test_the_required_text_of_a_pattern(pattern, needles):
    found = required(re.compile(pattern, re.I))
    assert (found if found is None else set(found)) == needles


def test_a_repeat_that_may_be_absent_requires_nothing_of_its_own():
    assert required(re.compile(r"(?:abc)*d|e", re.I)) == {"d", "e"}
    assert required(re.compile(r"(?:abc){0,3}", re.I)) is None
    assert required(re.compile(r"(?:abcd){1,3}", re.I)) == {"abcd"}


def test_every_code_point_that_re_equals_to_an_ascii_letter_folds_to_it():
    """re's case-insensitive match of an ASCII letter, against every code point: fold() must give that letter, or a
    paste could hold a message that the search would find and the substring test would miss."""
    every = "".join(chr(point) for point in range(sys.maxunicode + 1) if not 0xD800 <= point <= 0xDFFF)
    letters = {found.group(0) for found in re.finditer("[a-z]", every, re.I)}
    assert len(letters) > 52
    for character in letters:
        assert fold(character) in string.ascii_lowercase and re.fullmatch(fold(character), character, re.I), \
            hex(ord(character))


CATALOGUE = [error for error in known_errors.load_catalogue() if error.example and error.pattern.search(error.example)]
LOOKALIKES = {"i": ["I", "\u0131", "\u0130"], "s": ["S", "\u017f"], "k": ["K", "\u212a"]}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CATALOGUE), st.randoms(use_true_random=False))
def test_a_message_in_any_case_or_lookalike_letters_is_never_ruled_out(error, rng):
    text = "".join(rng.choice(LOOKALIKES.get(c.lower(), [c.upper(), c.lower()])) if c.isalpha() and rng.random() < 0.5
                   else c for c in error.example)
    if error.pattern.search(text):
        assert Haystack(text).may_hold(known_errors.needles(error.pattern)), error.id


def test_the_catalogue_finds_the_same_messages_with_and_without_the_test_in_every_real_paste(monkeypatch):
    paths = sorted(glob.glob(os.path.join(TESTS_DIR, "pasted", "*.txt")) +
                   glob.glob(os.path.join(TESTS_DIR, "triage", "*", "*.txt")))
    texts = [open(path, encoding="utf-8").read() for path in paths]
    assert len(texts) > 1000
    tested = [[(m.error.id, m.line, m.text) for m in known_errors.find_all(text)] for text in texts]
    monkeypatch.setattr(known_errors, "needles", lambda pattern: None)
    assert tested == [[(m.error.id, m.line, m.text) for m in known_errors.find_all(text)] for text in texts]
    assert sum(map(len, tested)) > 1000


def test_every_catalogue_pattern_has_required_text():
    """A pattern without any is searched in every paste: the cost the test is there to save."""
    assert [error.id for error in known_errors.load_catalogue() if known_errors.needles(error.pattern) is None] == []
