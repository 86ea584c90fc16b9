"""Render Markdown as GitHub does and list what in it is live: the judge of every reply and report.

Pass 1 is a real CommonMark + GFM renderer (markdown-it-py: tables, strikethrough, autolinks via linkify, raw HTML).
Pass 2 is what GitHub's filters do to text nodes outside `code`, `pre` and `a` after rendering (GitHub's "Autolinked
references and URLs" and "Basic writing and formatting syntax"): mentions, issue and cross-repository references,
GH- references, commit SHAs and emoji shortcodes. Anything live that the doctor did not write is a problem.
"""

import glob
import html.parser
import json
import os
import re

from markdown_it import MarkdownIt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The elements the doctor's own Markdown produces.
OWN_ELEMENTS = {"p", "strong", "code", "pre", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "details",
                "summary", "a"}
SKIPPED_BY_FILTERS = {"code", "pre", "a"}
GITHUB_TEXT_FILTERS = (
    ("mention", re.compile(r"(?:^|[^\w`])@[A-Za-z0-9]")),
    ("reference", re.compile(r"(?:^|[^\w&/])#\d")),
    ("cross-repository reference", re.compile(r"[\w.-]+/[\w.-]+#\d")),
    ("GH- reference", re.compile(r"(?i)\bGH-\d")),
    ("commit SHA", re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")),
    ("emoji shortcode", re.compile(r":[a-z0-9_+-]+:")),
    ("URL", re.compile(r"(?i)\b(?:https?|ftp)://|\bwww\.")),
)
RENDERER = MarkdownIt("gfm-like")


def own_links():
    """Every https link written in the package's code and data: the only ones a reply may make live."""
    links = set()
    for path in glob.glob(os.path.join(ROOT, "mps_doctor", "**", "*.py"), recursive=True) + \
            glob.glob(os.path.join(ROOT, "mps_doctor", "data", "*.json")):
        with open(path, encoding="utf-8") as handle:
            links.update(re.findall(r"https://[A-Za-z0-9._~/#%?=&+-]+", handle.read()))
    return links


OWN_LINKS = own_links()


class LiveParts(html.parser.HTMLParser):
    """Collects the problems of rendered HTML: foreign elements, foreign links, and text that GitHub would turn live."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in OWN_ELEMENTS:
            self.problems.append("element <%s>" % tag)
        if tag == "a":
            href = dict(attrs).get("href") or ""
            if href not in OWN_LINKS:
                self.problems.append("link to %r" % href)
        if tag not in ("br", "img", "hr", "input"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if SKIPPED_BY_FILTERS & set(self.stack):
            return
        for name, pattern in GITHUB_TEXT_FILTERS:
            found = pattern.search(data)
            if found:
                self.problems.append("%s %r in %r" % (name, found.group(), data[:120]))


def live_problems(markdown: str):
    """What in MARKDOWN GitHub would render live that the doctor did not write (empty when it is safe)."""
    parser = LiveParts()
    parser.feed(RENDERER.render(markdown))
    parser.close()
    return parser.problems


def secrets_in(text: str, secrets) -> list:
    """The SECRETS that TEXT (or its JSON-unescaped form) still holds."""
    try:
        decoded = json.dumps(json.loads(text))
    except ValueError:
        decoded = text
    return [secret for secret in secrets if secret in text or secret in decoded]
