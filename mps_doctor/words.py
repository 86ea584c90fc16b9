"""Text cut or wrapped only between words: a summary never ends mid-word, a path or a command is never split.

The one place that shortens or wraps text for people; JSON keeps exact values.
"""

import re
from typing import List

ELLIPSIS = "..."
# One unbreakable unit of prose: a run of non-space characters in which a `backquoted command` counts as one
# character, spaces included; an unpaired backquote is an ordinary character.
UNIT = re.compile(r"(?:`[^`]*`|\S)+")
# Punctuation that reads wrong before an ellipsis.
TRAILING = " \t,;:"


def shorten(text: str, limit: int) -> str:
    """TEXT whole when it has at most LIMIT characters, else its longest run of whole words that leaves room for
    '...', and '...'; only a first word longer than that is cut inside, because nothing else fits."""
    if len(text) <= limit:
        return text
    room = max(0, limit - len(ELLIPSIS))
    cut = max(text.rfind(space, 0, room + 1) for space in " \t\n")
    head = text[:cut].rstrip(TRAILING) if cut > 0 else ""
    return (head or text[:room]) + ELLIPSIS


def shorten_path(text: str, limit: int) -> str:
    """TEXT whole when it has at most LIMIT characters, else '...' and its end, from a path separator where one leaves
    room: the end of a path (the file's own name) is what tells two paths apart."""
    if len(text) <= limit:
        return text
    tail = text[len(text) - max(0, limit - len(ELLIPSIS)):]
    cut = tail.find("/")
    return ELLIPSIS + (tail[cut:] if 0 <= cut < len(tail) - 1 else tail)


def wrap(text: str, width: int, indent: str = "") -> List[str]:
    """TEXT as lines of at most WIDTH characters, each starting with INDENT, broken only between units (UNIT): a
    path or a backquoted command is never split, and one longer than a line has a line of its own."""
    lines: List[str] = []
    line = ""
    for unit in UNIT.findall(text):
        if line and len(indent) + len(line) + 1 + len(unit) > width:
            lines.append(indent + line)
            line = ""
        line = line + " " + unit if line else unit
    if line:
        lines.append(indent + line)
    return lines
