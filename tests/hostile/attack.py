"""What the hostile-input suite attacks with, and how it judges the doctor's answer.

Every case must end with exit 0, 1 or 2, print no traceback, emit no control character in text output, and
carry no planted secret in any format.
"""

import collections
import copy
import json
import math
import re

from hypothesis import strategies as st

from mps_doctor.checking.model import Options
from mps_doctor.report import report_to_dict, run_checks
from tests.machines import load_machine, machine_names, replay_facts
from tests.rendered import live_problems

# How many generated and corpus cases ran, by target; printed at the end of the run (tests/conftest.py).
TALLY = collections.Counter()
EXITS = collections.Counter()

# Pieces that attacked terminals, shells and Markdown in the review of issue 10.
PAYLOADS = (
    "\x1b]0;owned title\x07", "\x1b]52;c;dG91Y2ggUFdORUQ=\x07", "\x1b[2J\x1b[H", "\x1b[32;1mready to train\x1b[0m",
    "\x9b31m", "\x07", "\x00", "\r", "\x7f", "\u202e", "\u2028", "\x85",
    "\ntouch PWNED\n", "\n`touch PWNED`\n", "$(touch PWNED)", "`touch PWNED`", "'; touch PWNED; '",
    "\"; touch PWNED #", "(touch PWNED)", "\\", "'", "\"", "|", "&&", ";", "#", "$HOME", "~", "*", "{a,b}",
    "<script>alert(1)</script>", "```", "</details>", "[x](https://example.invalid)", "![p](https://example.invalid/p.png)",
    "jöhn", "日本語", "\ud800", "-rf", "--index-url", " ", "\t", "\u200b", "\u061c", "\ufeff", "\U000e0041", "=ls", "%self",
    # What GitHub turns live in a comment (issue 19): mentions, references, autolinks, emoji, entities, SHAs.
    "@octocat", "@pytorch/team", "owner/repo#3", " #4", "GH-7", "https://example.invalid/t.gif", "www.example.invalid",
    ":smile:", "~~s~~", "__b__", "&lt;img src=x&gt;", "&#60;h1&#62;", "deadbeef1234", "<h3>x</h3>", "$x$",
)
# Planted in credential-named variables and URLs: none of these may appear in any output.
SECRETS = ("s3cr3t-token-0", "s3cr3t-pass-1", "s3cr3t-pat-2", "s3cr3t-key-3")
SECRET_ENV = {
    "UV_INDEX_URL": "https://alice:s3cr3t-pass-1@pypi.example.invalid/simple",
    "UV_PUBLISH_TOKEN": "s3cr3t-token-0",
    "CONDA_TOKEN": "s3cr3t-token-0",
    "RUNNER_TOKEN": "s3cr3t-token-0",
    "PYENV_GITHUB_TOKEN": "s3cr3t-pat-2",
    "JENKINS_URL": "https://bob:s3cr3t-pass-1@jenkins.example.invalid/",
    "AWS_SECRET_ACCESS_KEY": "s3cr3t-key-3",
    "PIP_INDEX_URL": "https://carol:s3cr3t-pass-1@index.example.invalid/simple",
    "CONDA_PREFIX": "/opt/conda/envs/x",
}
# Any C0 control but tab and newline, DEL, C1, the Unicode line separators, bidi marks, overrides and isolates, the
# zero-width and other invisible format characters (soft hyphen, U+061C, BOM, tags), lone surrogates.
ESCAPE_BYTES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e"
                          "\u2060-\u206f\ufeff\ud800-\udfff\U000e0000-\U000e007f]")

ABSOLUTE_PATHS = ("python", "executable", "executable_realpath", "prefix", "base_prefix")
hostile_text = st.lists(st.one_of(st.sampled_from(PAYLOADS), st.text(max_size=6)), min_size=1, max_size=4).map("".join)
odd_value = st.one_of(
    hostile_text, st.integers(-2 ** 70, 2 ** 70), st.sampled_from([0, -1, 1, 3, True, False, None, math.nan, math.inf,
                                                                   -0.0, 1e308, [], {}, [3], [None], [[]], "", [""]]),
    st.lists(st.integers(-5, 300), max_size=4), st.dictionaries(hostile_text, hostile_text, max_size=2),
)


def base_reports():
    """The JSON report of every recorded machine, as the doctor writes it."""
    reports = {}
    for name in machine_names():
        machine = load_machine(name)
        device = machine["expect"].get("requested", "auto")
        report = run_checks(replay_facts(machine), Options(device=device, requested_device=device))
        reports[name] = json.loads(json.dumps(report_to_dict(report)))
    return reports


BASES = base_reports()


def paths(node, prefix=()):
    """Every path (tuple of keys and indexes) in a JSON document, containers included."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, prefix + (index,))


def get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def put(doc, path, value):
    """DOC with the value at PATH replaced (a copy)."""
    doc = copy.deepcopy(doc)
    if not path:
        return value
    parent = get(doc, path[:-1])
    parent[path[-1]] = value
    return doc


@st.composite
def hostile_reports(draw):
    """A recorded machine's report with one to three values replaced: strings by hostile text (mostly), anything
    by an odd value of any type (sometimes)."""
    name = draw(st.sampled_from(sorted(BASES)))
    doc = BASES[name]
    for _ in range(draw(st.integers(1, 3))):
        candidates = [p for p in paths(doc) if p[:1] in (("facts",), ("options",))]
        strings = [p for p in candidates if isinstance(get(doc, p), str)]
        if strings and draw(st.integers(0, 9)) < 7:
            path = draw(st.sampled_from(strings))
            value = draw(hostile_text)
            # Interpreter paths must be absolute (exit 2 otherwise): mostly keep them so, to reach the renderers.
            if path[-1] in ABSOLUTE_PATHS and draw(st.integers(0, 3)):
                value = "/" + value
            doc = put(doc, path, value)
        else:
            path = draw(st.sampled_from(candidates))
            doc = put(doc, path, draw(odd_value))
    try:
        env = get(doc, ("facts", "host", "env"))
    except (KeyError, IndexError, TypeError):
        env = None
    if isinstance(env, dict) and draw(st.booleans()):
        doc = put(doc, ("facts", "host", "env"), dict(env, **SECRET_ENV))
    return name, doc


def judge(result, text_output=True, what="", markdown=False):
    """Assert the contract on one CliRunner result (and, for MARKDOWN output, that nothing in it renders live that
    the doctor did not write); return its output."""
    output = result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (what, repr(result.exception))
    assert result.exit_code in (0, 1, 2), (what, result.exit_code, output[-2000:])
    # A report may quote the target's own traceback; the doctor's would be on stderr.
    assert "Traceback" not in result.stderr, (what, result.stderr[-2000:])
    EXITS[result.exit_code] += 1
    if text_output:
        bad = ESCAPE_BYTES.search(output)
        assert bad is None, (what, repr(bad.group()), output[max(0, bad.start() - 200):bad.end() + 200])
    for secret in SECRETS:
        assert secret not in output, (what, secret)
    if markdown and result.exit_code in (0, 1):
        problems = live_problems(output)
        assert not problems, (what, problems[:5])
    return output
