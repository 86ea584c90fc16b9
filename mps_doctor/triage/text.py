"""Pasted text as numbered lines: Markdown, HTML, CRLF, ANSI codes and prompt prefixes removed, typographic quotes
made ASCII, line numbers kept.

Every pattern here runs in time linear in the line: a paste is untrusted text of up to 5 MiB.
"""

import html
import itertools
import re
from collections import abc
from typing import Iterator, List, NamedTuple, Optional, Sequence, Tuple

# CSI (colours, cursor), OSC (titles, hyperlinks) and two-character escapes (ECMA-48).
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
FENCE = re.compile(r"^\s*(?:```|~~~)")
# A fence's info string as Markdown writers use it: a language name, perhaps with attributes ("```python {.x}").
LANGUAGE = re.compile(r"[\w+#.-]{1,30}(?:\s+\{[^}]*\}|\s+title=\S+)?")
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
# What every prompt above holds: a line without it has none.
PROMPT_MARK = re.compile(r">>>|\.\.\.|In \[|[$%#>] ")
# A character that some step below acts on: a line without any is only stripped.
MARKUP = re.compile(r"[\x00-\x1f\x7f-\x9f<>&\\*`~.\[$%#]")
MAX_LINE = 4000
# Typographic quotes as ASCII: GCC quotes names in them under a UTF-8 locale ("error: ‘TORCH_CHECK’ was not declared"),
# and editors and chat apps turn a pasted message's quotes into them.
QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"'})


class Line(NamedTuple):
    """One line of the paste: its 1-based number in the original text, its cleaned text, and the prompt it had."""

    number: int
    text: str
    prompt: str = ""


class Lines(abc.Sequence):
    """The cleaned lines of a paste, a Line made for each one read (a paste may hold a million empty ones), and TEXT,
    their texts joined by newlines."""

    def __init__(self, texts: List[str], prompts: List[str]):
        self.texts, self.prompts = texts, prompts
        self.text = "\n".join(texts)
        self.before: Optional[List[int]] = None

    def start(self, index: int) -> int:
        """Where line INDEX begins in TEXT (len(TEXT) + 1 for INDEX len(self))."""
        if self.before is None:
            self.before = list(itertools.accumulate(map(len, self.texts), initial=0))
        return self.before[index] + index

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self[i] for i in range(len(self))[index])
        index = range(len(self))[index]
        return Line(index + 1, self.texts[index], self.prompts[index])

    def __iter__(self) -> Iterator[Line]:
        return map(Line._make, zip(itertools.count(1), self.texts, self.prompts))


def clean_line(raw: str) -> Tuple[str, str]:
    """(text, prompt kind) of one raw line."""
    text = raw[:MAX_LINE].translate(QUOTES)
    if "&" in text:
        # Entities first, so that an escaped tag (&lt;pre&gt;) is a tag like any other, never one cleaning revives.
        text = html.unescape(text)
    if not MARKUP.search(text):
        return text.strip(), ""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    # Tabs as four spaces, cut to MAX_LINE again: a line of tabs would otherwise be four times as long to read.
    text = text.replace("\t", "    ")[:MAX_LINE]
    if not text.isprintable():
        text = CONTROL.sub("", text)
    if ("```" in text or "~~~" in text) and FENCE.match(text):
        # A fence's info string is a language; anything else on its line is pasted text ("```NVIDIA GeForce RTX 5090").
        info = FENCE.sub("", text, 1).strip().strip("`~").strip()
        if not info or LANGUAGE.fullmatch(info):
            return "", ""
        text = info
    if text.endswith("```"):
        text = text[:-3]
    if "<" in text:
        # Up to the last '>' only: a tag that is never closed costs one scan, not one per '<'.
        head, close, tail = text.rpartition(">")
        text = TAGS.sub("", head + close) + tail
    if "\\" in text:
        # A message quoted from a Python repr: 'The operator \\'aten::roll\\' is not ...'; a backquote escaped for Markdown.
        text = text.replace("\\'", "'").replace('\\"', '"').replace("\\`", "`")
    if ">" in text:
        text = QUOTE.sub("", text)
    if "**" in text:
        text = BOLD.sub(r"\1", text)
    if PROMPT_MARK.search(text):
        for kind, pattern in PROMPTS:
            match = pattern.match(text)
            if match:
                return text[match.end():].rstrip(), kind
    stripped = text.strip()
    if len(stripped) > 1 and stripped.startswith("`") and stripped.endswith("`") and "`" not in stripped[1:-1]:
        stripped = stripped[1:-1]
    return stripped, ""


def clean(raw: str) -> Lines:
    """Every line of RAW, cleaned, with its original line number (CRLF, CR and LF all end a line, so a final line
    break starts no line of its own)."""
    texts: List[str] = []
    prompts: List[str] = []
    parts = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for part in parts[:-1] if len(parts) > 1 and parts[-1] == "" else parts:
        text, prompt = clean_line(part)
        texts.append(text)
        prompts.append(prompt)
    return Lines(texts, prompts)


def joined(lines: Sequence[Line]) -> str:
    """The texts of LINES joined by newlines (clean() keeps them; any other sequence is joined here)."""
    return lines.text if isinstance(lines, Lines) else "\n".join(line.text for line in lines)


def line_start(lines: Sequence[Line], index: int) -> int:
    """Where line INDEX begins in the joined text of LINES."""
    return lines.start(index) if isinstance(lines, Lines) else sum(len(line.text) + 1 for line in lines[:index])


def matching(lines: Sequence[Line], pattern: "re.Pattern", start: int = 0, stop: Optional[int] = None) -> Iterator[Tuple[int, Line]]:
    """(index, line) of every line from START up to STOP in which PATTERN finds a match, in order, from one scan of
    the joined text.

    PATTERN must find a match in the joined text wherever it finds one in a line alone (use re.M for ^ and $);
    a match that runs on into the next line only selects a line that the caller reads again."""
    text = joined(lines)
    index = start
    position = line_start(lines, start)
    end = line_start(lines, len(lines) if stop is None else min(stop, len(lines))) - 1
    found = pattern.search(text, position, end) if position <= end else None
    while found:
        index += text.count("\n", position, found.start())
        yield index, lines[index]
        position = text.find("\n", found.start(), end) + 1
        if not position:
            return
        index += 1
        found = pattern.search(text, position, end)
