"""The literal text that every match of a regular expression holds: a substring test that rules a search out cheaply.

triage searches a paste for each of the catalogue's several hundred messages, and most of them are absent; a pattern
whose required text (`required`) is not in the paste (`Haystack`) cannot match, so its search is skipped. Read from
the pattern's parse tree (the `re` module's own parser), case-insensitively, as the catalogue's patterns are compiled.
"""

import re
from typing import FrozenSet, Iterable, List, Optional

try:  # Python 3.11 on
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # Python 3.8 to 3.10
    import sre_constants
    import sre_parse

# Characters that re's case-insensitive matching equals to an ASCII letter but str.lower() does not make one
# (sre_compile's _equivalences and Unicode's simple case folding): the dotless i, the long s, the Kelvin sign, and the
# dotted capital I, which str.lower() turns into two characters. tests/unit/test_literals.py checks every code point.
FOLDED = str.maketrans({"\u0131": "i", "\u017f": "s", "\u212a": "k", "\u0130": "i"})
# A needle is a run of these only: a space or a line break in a message may be a soft wrap (known_errors.unwrap) or
# another kind of space in the paste.
NEEDLE_CHARACTER = re.compile(r"[!-~]")
_LITERAL, _BRANCH, _SUBPATTERN = sre_constants.LITERAL, sre_constants.BRANCH, sre_constants.SUBPATTERN
_REPEATS = tuple(getattr(sre_constants, name) for name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")
                 if hasattr(sre_constants, name))
_ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", None)


def fold(text: str) -> str:
    """TEXT as the needles are compared with it: lower case, with FOLDED's characters as their ASCII letters."""
    return text.translate(FOLDED).lower()


class Haystack:
    """A text, folded once, to test needles against."""

    def __init__(self, text: str):
        self.folded = fold(text)

    def may_hold(self, needles: Optional[FrozenSet[str]]) -> bool:
        """Whether a pattern whose matches each hold one of NEEDLES may match the text (None: no needle is known)."""
        return needles is None or any(needle in self.folded for needle in needles)


def required(pattern: "re.Pattern") -> Optional[FrozenSet[str]]:
    """Lower-case ASCII strings one of which every match of PATTERN holds, or None when none is known."""
    try:
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
    except (re.error, RecursionError, TypeError):
        return None
    return _sequence(list(tree))


def _sequence(items: Iterable) -> Optional[FrozenSet[str]]:
    """The best requirement of a concatenation: its longest run of literals, or what one of its items requires."""
    candidates: List[FrozenSet[str]] = []
    run = ""
    for op, av in list(items) + [(None, None)]:
        if op is _LITERAL and av < 128 and NEEDLE_CHARACTER.match(chr(av)):
            run += chr(av).lower()
            continue
        if run:
            candidates.append(frozenset([run]))
            run = ""
        found = _item(op, av)
        if found:
            candidates.append(found)
    return max(candidates, key=lambda needles: (min(map(len, needles)), -len(needles)), default=None)


def _item(op, av) -> Optional[FrozenSet[str]]:
    """What one item of a parse tree requires every match to hold, or None."""
    if op is _BRANCH:
        branches = [_sequence(branch) for branch in av[1]]
        return None if any(b is None for b in branches) else frozenset().union(*branches)
    if op is _SUBPATTERN:
        return _sequence(av[-1])
    if op is _ATOMIC and _ATOMIC is not None:
        return _sequence(av)
    if op in _REPEATS and av[0] >= 1:
        return _sequence(av[2])
    return None
