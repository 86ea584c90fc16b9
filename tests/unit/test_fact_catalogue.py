"""mps_doctor/fact_catalogue.py: one declaration per fact, and every reader and writer of facts held to it."""

import ast
import dataclasses
import glob
import os

import pytest

from mps_doctor import fact_catalogue
from mps_doctor.checking.registry import all_checks
from mps_doctor.facts import Host, Interpreter, NvidiaSmi, Target, TorchInfo
from mps_doctor.triage.paste import build_facts, read_paste
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
CONTAINERS = {"host": Host, "host.nvidia_smi": NvidiaSmi, "target": Target, "target.interpreter": Interpreter,
              "target.torch": TorchInfo}


def pastes():
    """The text of every pasted case and recorded collect_env."""
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "pasted", "*.txt")) +
                   glob.glob(os.path.join(ROOT, "tests", "triage", "**", "*.txt"), recursive=True))
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            yield os.path.relpath(path, ROOT), handle.read()


PASTES = list(pastes())


def emitted_literals():
    """'file:line: path' for each `Finding(...)` path written in the triage parsers: a literal, or the literal head of
    a family (`"packages." + name`)."""
    found = []
    for path in glob.glob(os.path.join(ROOT, "mps_doctor", "triage", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding" and node.args:
                first = node.args[0]
                head = first.left if isinstance(first, ast.BinOp) else first
                if isinstance(head, ast.Constant) and isinstance(head.value, str):
                    found.append((os.path.relpath(path, ROOT), node.lineno, head.value, isinstance(first, ast.BinOp)))
    return found


def test_the_parsers_write_findings_the_catalogue_declares():
    literals = emitted_literals()
    assert len(literals) > 40
    undeclared = []
    for name, line, path, is_head in literals:
        declared = any(p.startswith(path) for p in fact_catalogue.iter_paths()) if is_head else fact_catalogue.lookup(path)
        if not declared:
            undeclared.append("%s:%d: %s" % (name, line, path))
    assert not undeclared


@pytest.mark.per_case
@pytest.mark.parametrize("name,text", PASTES, ids=[name for name, _ in PASTES])
def test_every_fact_read_from_a_paste_is_declared_and_lands_where_the_catalogue_says(name, text):
    paste = read_paste(text)
    undeclared = sorted(path for path in paste.known if fact_catalogue.lookup(path) is None)
    assert not undeclared
    unlisted = sorted("%s by %s" % (path, known.parser) for path, known in paste.known.items()
                      if known.parser not in fact_catalogue.lookup(path).suppliers + ("derived",))
    assert not unlisted, "the catalogue lists who supplies each fact"
    facts = build_facts(paste, "cpu")
    for path, known in paste.known.items():
        fact = fact_catalogue.lookup(path)
        if fact.field is None or not fact.copied:
            continue
        expected = tuple(known.value) if fact.kind in ("version", "texts") else known.value
        assert fact_catalogue.read(facts, path) == expected, path


def test_every_fact_a_check_requires_is_declared():
    requirements = [(spec.id, path) for spec in all_checks() for requirement in spec.facts
                    for path in fact_catalogue.requirement_paths(requirement)]
    assert len(requirements) > 15
    assert [r for r in requirements if fact_catalogue.lookup(r[1]) is None] == []


def test_every_field_named_is_a_field_of_its_container():
    wrong = []
    for fact in fact_catalogue.FACTS:
        for field in (fact.field or "").split("|") if fact.field else ():
            container, _, attribute = field.rpartition(".")
            names = {f.name for f in dataclasses.fields(CONTAINERS[container])} if container in CONTAINERS else set()
            if attribute.rstrip("[]") not in names:
                wrong.append((fact.path, field))
    assert wrong == []


def test_kinds_suppliers_and_labels_are_complete():
    kinds = set(fact_catalogue.KINDS)
    for fact in fact_catalogue.FACTS:
        assert fact.kind in kinds, fact.path
        assert fact.label and fact.suppliers, fact.path
        assert fact.field is not None or fact.note, "a fact outside Facts says what triage reads it for: " + fact.path
    assert len(fact_catalogue.BY_PATH) == len(fact_catalogue.FACTS)


def test_a_family_member_reads_through_its_family():
    assert fact_catalogue.lookup("env.CUDA_VISIBLE_DEVICES").path == "env.*"
    assert fact_catalogue.label("env.CUDA_VISIBLE_DEVICES") == "CUDA_VISIBLE_DEVICES"
    assert fact_catalogue.label("packages.torch") == "the package's version"
    assert fact_catalogue.label("torch.installed|torch.import_failed") == "whether torch imports"
    assert fact_catalogue.lookup("nothing.here") is None


def test_read_follows_the_field_and_says_none_for_unknown():
    host = Host(system="Darwin", env={"CUDA_VISIBLE_DEVICES": "0"})
    facts = type("F", (), {"host": host, "target": Target(python="python3", device="mps")})()
    assert fact_catalogue.read(facts, "host.system") == "Darwin"
    assert fact_catalogue.read(facts, "env.CUDA_VISIBLE_DEVICES") == "0"
    assert fact_catalogue.read(facts, "env.OTHER") is None
    assert fact_catalogue.read(facts, "torch.version") is None
    with pytest.raises(KeyError):
        fact_catalogue.read(facts, "collect_env.format")


def test_the_report_format_doc_carries_the_generated_table():
    with open(os.path.join(ROOT, "docs", "report-format.md"), encoding="utf-8") as handle:
        doc = handle.read()
    assert fact_catalogue.markdown_table() in doc
