"""The one Markdown builder of every reply and report: text from outside is shown literally, never as markup.

GitHub renders a comment in two passes: cmark-gfm turns the Markdown into HTML (raw HTML, links, autolinks,
emphasis, strikethrough, tables), then filters rewrite the text nodes outside `code`, `pre` and `a` (mentions
`@user` and `@org/team`, references `#3`, `GH-7` and `owner/repo#3`, commit SHAs, `:emoji:` shortcodes). A
backslash escape survives the first pass only, so escaping alone cannot stop a mention; a code span stops both.
So every value from outside (pasted text, facts, package names, versions, messages) is either a plain word that
neither pass changes, or goes inside an inline code span; the doctor's own words and links are the only live
markup. Sources: CommonMark 0.31 (code spans 6.1, backslash escapes 2.4, HTML blocks 4.6), GitHub Flavored Markdown
0.29 (tables 4.10, strikethrough 6.5, autolinks 6.9), GitHub's "Autolinked references and URLs" and "Basic writing
and formatting syntax" (mentions, emoji) documentation.
"""

import functools
import html
import re
from typing import Callable, Iterable, List

from mps_doctor.render.safe import escaped_line

# A word that neither pass changes: letters and digits of any script, and punctuation that starts no Markdown or
# GitHub construct, with at most one colon, at the end ("error:"). Not `_ * ~ $`, emphasis, strikethrough and
# GitHub's math; not `< > & \\ [ ] ! \``, HTML, entities, escapes, links and images; not `@ #`, mentions and
# references; not `|`, a table cell's end; not `/`, so that a path (where a redacted <user> may stand) is one span.
PLAIN_WORD = re.compile(r"(?:[^\W_]|[.,;()'\"+=%?-])+:?")
# Plain by their characters, but autolinked or referenced by GitHub: www. links, GH-7, and a hexadecimal word of 7
# or more characters that holds a letter and a digit, punctuation around it or not (a commit SHA, linked when the
# repository has that commit).
LINKED_WORD = re.compile(r"(?i)www\.|\bgh-\d|(?<![0-9a-z])(?=[0-9a-f]{0,39}[a-f])(?=[0-9a-f]{0,39}\d)[0-9a-f]{7,40}(?![0-9a-z])")
# A line that starts with one of these would open a block (list item, setext heading underline, ordered list).
BLOCK_START = re.compile(r"^(?:[-+=]|\d+[.)])")
# A span marked as code in the doctor's own text: backquotes around text without one, on one line (CommonMark 6.1).
MARKED = re.compile(r"`([^`]+)`")


def is_plain(word: str) -> bool:
    """Whether WORD renders as itself on GitHub, outside a code span."""
    return PLAIN_WORD.fullmatch(word) is not None and LINKED_WORD.search(word) is None


def code(value: str, table: bool = False) -> str:
    """VALUE as one inline code span, whose delimiters are longer than any backtick run inside it (CommonMark 6.1);
    in a table cell (TABLE) every `|` is escaped, which GFM removes before the span is parsed (GFM 4.10)."""
    text = " ".join(escaped_line(str(value)).split(" "))
    if not text:
        return "(empty)"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    # One space each side is stripped when both are there: pad a value that starts or ends with ` or a space.
    if text[0] in "` " or text[-1] in "` ":
        text = " %s " % text
    if table:
        text = text.replace("|", "\\|")
    return ticks + text + ticks


def prose(value: str, table: bool = False, line_start: bool = False) -> str:
    """VALUE as a line of prose: plain words as they are, every other run of words in one code span, whitespace
    collapsed; LINE_START when the text begins a line (a leading `-` or `1.` would open a list)."""
    return " ".join(literal_runs(value, lambda run: code(run, table), line_start))


def marked_prose(value: str, table: bool = False, line_start: bool = False) -> str:
    """VALUE as prose() in which a word holding a `marked` span (the doctor's own sentences mark commands and values
    with backquotes) shows that span as one code span, with the plain punctuation around it ("(`nvidia-smi`),");
    a backquote from outside only ever makes a code span of what it encloses, which stays literal."""
    text = escaped_line(str(value)).replace("\x00", "")
    spans = MARKED.findall(text)
    # Each span stands as one placeholder character while the text is split into words.
    words = MARKED.sub("\x00", text).split()
    out: List[str] = []
    unmarked: List[str] = []
    wrap = functools.partial(code, table=table)
    for index, word in enumerate(words):
        if "\x00" not in word:
            unmarked.append(word)
            continue
        out += word_runs(unmarked, wrap, line_start and index == len(unmarked))
        unmarked = []
        pieces = word.split("\x00")
        marked = len(pieces) == 2 and all(not piece or is_plain(piece) for piece in pieces) and not (
            index == 0 and line_start and BLOCK_START.match(pieces[0]))
        out.append(pieces[0] + code(spans.pop(0), table) + pieces[1] if marked else code(restore(word, spans), table))
    out += word_runs(unmarked, wrap, line_start and len(unmarked) == len(words))
    return " ".join(out)


def restore(word: str, spans: List[str]) -> str:
    """WORD with each placeholder given back its `span` (taken from SPANS), backquotes included."""
    while "\x00" in word:
        word = word.replace("\x00", "`%s`" % spans.pop(0), 1)
    return word


def html_prose(value: str) -> str:
    """VALUE as prose inside an HTML block (a <summary>), where Markdown is not parsed: plain words as they are,
    every other run of words HTML-escaped in a <code> element, which GitHub's mention and reference filters skip."""
    return " ".join(literal_runs(value, lambda run: "<code>%s</code>" % html.escape(run, quote=True)))


# Punctuation that opens or closes a phrase around a value: kept outside its code span, as prose.
LEADING, TRAILING = "(\"'", ".,;:)\"'?"


CLOSING = {")": "(", "]": "[", "}": "{"}


def closes_inside(run: str, closing: str) -> bool:
    """Whether CLOSING closes a bracket opened inside RUN."""
    return run.count(CLOSING[closing]) > run.count(closing)


def literal_runs(value: str, wrap: Callable[[str], str], line_start: bool = False) -> List[str]:
    """The words of VALUE (one line, control characters escaped): plain ones as they are, each run of the others
    joined by spaces and passed to WRAP, with the brackets and punctuation around a run left outside it."""
    return word_runs(escaped_line(str(value)).split(), wrap, line_start)


def word_runs(words: List[str], wrap: Callable[[str], str], line_start: bool = False) -> List[str]:
    """literal_runs() of WORDS already escaped and split; LINE_START when the first of them begins a line."""
    out: List[str] = []
    pending: List[str] = []
    opening = ""

    def flush(closing: str = "") -> None:
        nonlocal pending, opening
        if pending:
            out.append(opening + wrap(" ".join(pending)) + closing)
        pending, opening = [], ""

    for index, word in enumerate(words):
        first = index == 0 and line_start
        if is_plain(word) and not (first and BLOCK_START.match(word)):
            flush()
            out.append(word)
            continue
        lead = 0 if first else len(word) - len(word.lstrip(LEADING))
        trail = len(word) - len(word.rstrip(TRAILING))
        # A closing bracket that closes one inside the run ("is_available()") belongs to the run.
        while trail and word[len(word) - trail] in CLOSING and closes_inside(word[lead:len(word) - trail], word[len(word) - trail]):
            trail -= 1
        if lead + trail >= len(word):
            lead = trail = 0
        if lead:
            flush()
            opening = word[:lead]
        pending.append(word[lead:len(word) - trail])
        if trail:
            flush(word[len(word) - trail:])
    flush()
    return out


def fence(body: str, info: str = "") -> List[str]:
    """BODY in a fenced code block whose fence is longer than any backtick run inside it (CommonMark 4.5): the
    lines of a block that no line of BODY can end."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks + info, body, ticks]


def table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> List[str]:
    """A GFM table: HEADER (the doctor's words) and ROWS of cells already built with code() or prose(table=True)."""
    header = list(header)
    return ["| %s |" % " | ".join(header), "|" + " --- |" * len(header)] + \
        ["| %s |" % " | ".join(row) for row in rows]
