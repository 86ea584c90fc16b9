"""Remove the home directory and the user name from text meant to be pasted in public."""

import re
from typing import Optional


def redact(text: str, home: Optional[str], user: Optional[str]) -> str:
    """TEXT with HOME replaced by ~ and USER by <user>."""
    if home and home not in ("/", ""):
        text = text.replace(home.rstrip("/"), "~")
    if user and len(user) > 1:
        text = re.sub(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(user), "<user>", text)
    return text
