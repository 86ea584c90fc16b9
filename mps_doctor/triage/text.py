"""Pasted text as numbered lines: Markdown, HTML, CRLF, ANSI codes and prompt prefixes removed, line numbers kept."""

import html
import re
from typing import NamedTuple, Tuple

# CSI (colours, cursor), OSC (titles, hyperlinks) and two-character escapes (ECMA-48).
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
FENCE = re.compile(r"^\s*(?:```|~~~)")
TAGS = re.compile(r"</?(?:details|summary|pre|code|br|p|b|i|kbd|sub|sup)\b[^>]*>", re.I)
QUOTE = re.compile(r"^(?:\s*>(?!>))+ ?")
BOLD = re.compile(r"\*\*([^*\n]+?)\*\*")
# Shell and REPL prompts people leave in pastes: `$ `, `% `, `# ` (root), `>>> `, `... `, `>> `, `In [3]: `,
# `(venv) user@host:~/x$ `, `user@host dir % `, `host:dir user$ `, `PS C:\x> `, `C:\x> `.
PROMPTS = (
    ("python", re.compile(r"^\s*(?:>>>|\.\.\.)(?: |$)")),
    ("python", re.compile(r"^\s*In \[\d+\]: ")),
    ("shell", re.compile(r"^\s*(?:\([\w.-]+\) ?)?(?:[\w.-]+@[\w.-]+(?::[^\s$#%]*)? ?)?[$%#] ")),
    # macOS's default prompts: zsh's `user@host dir % ` (PROMPT='%n@%m %1~ %# ') and bash's `host:dir user$ `.
    ("shell", re.compile(r"^\s*(?:\([\w.-]+\) ?)?[\w.-]+@[\w.-]+ [^\s$#%]+ [%#] ")),
    ("shell", re.compile(r"^\s*(?:\([\w.-]+\) ?)?[\w.-]+:[^\s$#%]* [\w.-]+\$ ")),
    ("shell", re.compile(r"^\s*PS [A-Za-z]:\\[^>]*> ")),
    ("shell", re.compile(r"^\s*[A-Za-z]:\\[^>]*> ")),
    ("shell", re.compile(r"^\s*>> ")),
)
MAX_LINE = 4000


class Line(NamedTuple):
    """One line of the paste: its 1-based number in the original text, its cleaned text, and the prompt it had."""

    number: int
    text: str
    prompt: str = ""


def clean_line(raw: str) -> Tuple[str, str]:
    """(text, prompt kind) of one raw line."""
    # Entities first, so that an escaped tag (&lt;pre&gt;) is a tag like any other, never one that cleaning revives.
    text = ANSI.sub("", html.unescape(raw[:MAX_LINE]))
    text = CONTROL.sub("", text.replace("\t", "    "))
    if FENCE.match(text):
        return "", ""
    text = TAGS.sub("", text)
    # A message quoted from a Python repr: 'The operator \\'aten::roll\\' is not ...'.
    text = text.replace("\\'", "'").replace('\\"', '"')
    text = QUOTE.sub("", text)
    text = BOLD.sub(r"\1", text)
    for kind, pattern in PROMPTS:
        match = pattern.match(text)
        if match:
            return text[match.end():].rstrip(), kind
    stripped = text.strip()
    if len(stripped) > 1 and stripped.startswith("`") and stripped.endswith("`") and "`" not in stripped[1:-1]:
        stripped = stripped[1:-1]
    return stripped, ""


def clean(raw: str) -> Tuple[Line, ...]:
    """Every line of RAW, cleaned, with its original line number (CRLF, CR and LF all end a line)."""
    return tuple(Line(number, *clean_line(part)) for number, part in enumerate(re.split(r"\r\n|\r|\n", raw), start=1))
