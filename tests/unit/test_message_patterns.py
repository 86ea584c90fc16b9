"""Message patterns live in the known-error catalogue (data/known_errors.json), not in code: a phrase of torch's, pip's,
uv's or NVIDIA's written into a regular expression, or looked for with `in`, `find` or `startswith`, is a catalogue
entry that the code reaches by its kind (known_errors.search, first_of_kind, captured, trigger). What stays in code is
a format (a label, a header) or the doctor's own words, each with its reason below. Docstrings and comments, which
name sources, are not read."""

import ast
import glob
import os
import re

from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
# A message is prose: words in a row. A regular expression of four words, or a searched-for string of three.
PATTERN_PHRASE = re.compile(r"[A-Za-z']+ [A-Za-z']+ [A-Za-z']+ [A-Za-z']+")
SEARCHED_PHRASE = re.compile(r"[A-Za-z']+ [A-Za-z']+ [A-Za-z']+")
REGEX_FUNCTIONS = {"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "split"}
SEARCH_METHODS = {"find", "rfind", "index", "count", "startswith", "endswith"}

FORMAT = "a format that a tool prints (a label or a header), not a message that names a cause"
OWN = "mps-doctor's own words, which it matches in its own output"
# (file, the phrase's start) -> why it may stay in code.
ALLOWED = {
    ("mps_doctor/triage/paste.py", "^Traceback"): "Python's traceback header: " + FORMAT,
    ("mps_doctor/triage/parsers/platform.py", "Darwin Kernel Version"): "uname -a's form on macOS: " + FORMAT,
    ("mps_doctor/probe/host.py", "No such file"): "sysctl's stderr for a key that does not exist, read by the probe",
    ("mps_doctor/fleet/collect.py", "the input is larger than"): OWN,
    ("mps_doctor/render/triage.py", "not in the pasted text"): OWN,
}


def strings_in(node):
    """The string constants within NODE, joined (an f-string or a concatenation reads as one)."""
    return "".join(n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def message_literals(path):
    """(line, text) of each string in PATH that a regular expression is built from with PATTERN_PHRASE in it, or that
    is looked for in text with SEARCHED_PHRASE in it."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr in REGEX_FUNCTIONS and isinstance(node.func.value, ast.Name) and node.func.value.id == "re":
                text = strings_in(node.args[0])
                if PATTERN_PHRASE.search(text.replace("\\", "")):
                    found.append((node.lineno, text))
            elif node.func.attr in SEARCH_METHODS:
                found += [(n.lineno, n.value) for n in ast.walk(node.args[0]) if isinstance(n, ast.Constant)
                          and isinstance(n.value, str) and SEARCHED_PHRASE.search(n.value)]
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            found += [(n.lineno, n.value) for n in ast.walk(node.left) if isinstance(n, ast.Constant)
                      and isinstance(n.value, str) and SEARCHED_PHRASE.search(n.value)]
    return found


def package_files():
    """The doctor's modules; the child runs in the user's interpreter without the catalogue."""
    paths = glob.glob(os.path.join(ROOT, "mps_doctor", "**", "*.py"), recursive=True)
    return sorted(p for p in paths if os.sep + "child" + os.sep not in p)


def allowed(relative, text):
    return any(file == relative and text.startswith(start) for file, start in ALLOWED)


def test_no_message_pattern_is_written_in_code():
    written = []
    for path in package_files():
        relative = os.path.relpath(path, ROOT).replace(os.sep, "/")
        written += ["%s:%d %r" % (relative, line, text[:80]) for line, text in message_literals(path)
                    if not allowed(relative, text)]
    assert not written, "message patterns belong in data/known_errors.json: %s" % written


def test_every_allowed_phrase_is_still_there():
    """An exception that no longer matches anything is removed, so the list stays the debt it names."""
    present = set()
    for path in package_files():
        relative = os.path.relpath(path, ROOT).replace(os.sep, "/")
        present |= {(file, start) for file, start in ALLOWED for _, text in message_literals(path)
                    if file == relative and text.startswith(start)}
    assert set(ALLOWED) == present, set(ALLOWED) - present


def test_the_scanner_finds_a_message_written_in_code(tmp_path):
    module = tmp_path / "module.py"
    module.write_text('import re\nPIP = re.compile(r"Could not find a version that satisfies")\n'
                      'def f(text):\n    return "No matching distribution found" in text\n', encoding="utf-8")
    assert [line for line, _ in message_literals(str(module))] == [2, 4]
