"""Untrusted text made safe for a terminal, a Markdown page or a shell comment: the one place that does it.

Every string a human renderer prints may have come from outside (a report, probe output, a pyproject, the
environment, a child's error message). Control characters and escape sequences in it are shown as visible
escapes (`\\x1b`), never emitted; JSON output keeps the exact values instead.
"""

import dataclasses
import enum
import re
from typing import Any, Callable, Mapping

# Characters that are invisible or reorder what a reader sees: every Unicode format character (category Cf: soft
# hyphen, zero-width space and joiners, the bidirectional marks, overrides and isolates of CVE-2021-42574 "Trojan
# Source" including U+061C, the byte order mark, the tag characters of "ASCII smuggling"), the variation selectors,
# and the Hangul fillers that render as blank space (Unicode 15.1, UCD DerivedGeneralCategory.txt).
INVISIBLE = ("\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
             "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U000110bd"
             "\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI on some terminals), the Unicode line
# separators, the invisible characters above, and lone surrogates (from JSON \ud800 escapes), which no UTF-8 output
# can encode.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + INVISIBLE + "]")
# The same set plus tab and newline: what a one-line value (a comment, a table cell) must not contain.
UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + INVISIBLE + "]")
NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_char(char: str) -> str:
    """One unsafe character as a visible escape: \\n, \\x1b, \\u202e, \\U000e0041."""
    if char in NAMED:
        return NAMED[char]
    code = ord(char)
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code if code < 0x10000 else "\\U%08x" % code


def visible(text: str) -> str:
    """TEXT with every control character and escape sequence shown as an escape; tab and newline kept."""
    return UNSAFE.sub(lambda m: escape_char(m.group()), text)


def escaped_line(text: str) -> str:
    """TEXT as a single safe line: newlines and tabs escaped too (shell comments, table cells)."""
    return UNSAFE_IN_LINE.sub(lambda m: escape_char(m.group()), text)


def has_unsafe(text: str) -> bool:
    """Whether TEXT contains a character that visible() would escape."""
    return UNSAFE.search(text) is not None


def map_strings(value: Any, function: Callable[[str], str]) -> Any:
    """VALUE (a report, plan or any dataclass tree) with FUNCTION applied to every string in it, keys included."""
    if isinstance(value, enum.Enum):
        return value
    if isinstance(value, str):
        return function(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: map_strings(getattr(value, f.name), function) for f in dataclasses.fields(value) if f.init}
        return dataclasses.replace(value, **changes)
    if isinstance(value, Mapping):
        items = {map_strings(k, function): map_strings(v, function) for k, v in value.items()}
        return type(value)(items) if isinstance(value, dict) else items
    if isinstance(value, tuple):
        return tuple(map_strings(v, function) for v in value)
    if isinstance(value, list):
        return [map_strings(v, function) for v in value]
    return value


def displayable(value: Any) -> Any:
    """VALUE (a report, plan or any dataclass tree) with visible() applied to every string in it."""
    return map_strings(value, visible)
