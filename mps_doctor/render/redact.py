"""Remove the home directory and the user name from text meant to be pasted in public."""

import json
import os
import re
from typing import Optional

from mps_doctor.secrets import SYSTEM_USERS

# Characters that continue a path component or a name: a match that one of them follows (or precedes) is part of a
# longer name (home /Users/al inside /Users/alice-shared), not the home itself. `\u` starts a JSON-escaped letter.
NAME_CHAR = r"[\w.@+~-]"


def spellings(value: str) -> set:
    """VALUE as it may appear in text: raw, and JSON-escaped (ASCII-only or not)."""
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


def replace_whole(text: str, value: str, replacement: str, name_char: str = NAME_CHAR) -> str:
    """TEXT with every spelling of VALUE that stands alone (not inside a longer name) replaced."""
    for form in sorted(spellings(value), key=len, reverse=True):
        pattern = r"(?<!%s)%s(?!%s|\\u[0-9a-fA-F]{4})" % (name_char, re.escape(form), name_char)
        text = re.sub(pattern, lambda _: replacement, text)
    return text


def redact(text: str, home: Optional[str], user: Optional[str]) -> str:
    """TEXT with HOME replaced by ~ and the user name (USER, else the home's last component) by <user>."""
    home = (home or "").rstrip("/")
    if home:
        # A quoted path keeps working as a command: '/Users/alex/a b' becomes ~/'a b', since a ~ between quotes
        # is not expanded (bash and zsh expand a leading ~/ before the quoted rest; fish likewise).
        text = re.sub(r"(\$?')%s/" % re.escape(home), lambda m: "~/" + m.group(1), text)
        text = replace_whole(text, home, "~")
    user = user or (os.path.basename(home) if home else None)
    return redact_names(text, [user] if user and len(user) > 1 and user not in SYSTEM_USERS else [])


def redact_names(text: str, names) -> str:
    """TEXT with each of NAMES (user names) replaced by <user> wherever it stands alone, also after a URL-encoded
    slash (%2F). The one replacement of user names: redact() and triage's replies (names read from the paste)."""
    for name in sorted(names, key=len, reverse=True):
        text = replace_whole(text, name, "<user>", r"\w")
        text = re.sub(r"(?i)(?<=%%2F)%s(?!\w)" % re.escape(name), "<user>", text)
    return text
