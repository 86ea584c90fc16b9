"""Every check id that the package, docs/checks.md, the known-error catalogue, the fixes and the recorded machines
name is one the registry has (documentation of every registered check: test_quality; the pasted cases' expected
root causes: test_known_errors)."""

import ast
import dataclasses
import glob
import json
import os
import re

import pytest

from mps_doctor import fact_catalogue
from mps_doctor.checking.registry import REGISTRY, all_checks
from mps_doctor.facts import Host, Interpreter, TorchInfo
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
ID_SHAPE = re.compile(r"^[a-z]+\.[a-z0-9-]+$")
# Dotted names in the check ids' namespaces that name something else, each with what it names.
NOT_CHECK_IDS = {
    "python.org": "the python.org installer, a kind of Python installation (remedies/setup.py)",
    "python.exe": "a Windows interpreter's file name (probe/target.py)",
    "torch.egg-info": "torch's legacy install metadata folder, which tells an installed torch from a shadow (child)",
}


def registered():
    """The registry's check ids, every check module loaded."""
    all_checks()
    return set(REGISTRY)


def catalogue_ids():
    """The ids of the known-error catalogue (a namespace of its own that shares prefixes such as cuda.)."""
    with open(os.path.join(ROOT, "mps_doctor", "data", "known_errors.json"), encoding="utf-8") as handle:
        return {entry["id"] for entry in json.load(handle)["errors"]}


def fact_paths():
    """Fact paths such as host.system or torch.version: the fact catalogue's, and the fields of the facts."""
    paths = {"%s.%s" % (prefix, f.name) for prefix, cls in (("host", Host), ("torch", TorchInfo),
                                                           ("interpreter", Interpreter)) for f in dataclasses.fields(cls)}
    return paths | set(fact_catalogue.iter_paths())


def looks_like_check_id(text, namespaces, elsewhere):
    """Whether TEXT has a check id's shape and namespace and names nothing else (a catalogue id, a fact path, a
    file name, or one of NOT_CHECK_IDS)."""
    return bool(ID_SHAPE.match(text)) and text.split(".")[0] in namespaces and text not in elsewhere \
        and text not in NOT_CHECK_IDS and not text.endswith(".py")


def unknown_ids_in_source(source, name, namespaces, elsewhere, known):
    """'NAME:line: id' for each string literal of Python SOURCE that looks like a check id the registry lacks."""
    found = []
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and looks_like_check_id(node.value, namespaces, elsewhere) and node.value not in known:
            found.append("%s:%d: %s" % (name, node.lineno, node.value))
    return found


@pytest.fixture(scope="module")
def ids():
    """(registered ids, their namespaces, names in those namespaces that are not check ids)."""
    known = registered()
    return known, {i.split(".")[0] for i in known}, catalogue_ids() | fact_paths()


def test_the_namespaces_do_not_overlap(ids):
    known, _, _ = ids
    assert not known & catalogue_ids()
    assert not known & fact_paths()
    assert not known & set(NOT_CHECK_IDS)


def test_every_id_named_in_the_package_code_is_registered(ids):
    known, namespaces, elsewhere = ids
    unknown = []
    for path in sorted(glob.glob(os.path.join(ROOT, "mps_doctor", "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            unknown += unknown_ids_in_source(handle.read(), os.path.relpath(path, ROOT), namespaces, elsewhere, known)
    assert not unknown, unknown


def test_the_finder_flags_a_fix_for_an_id_the_registry_lacks(ids):
    known, namespaces, elsewhere = ids
    source = ('FIXES = {"torch.mps-available": 1, "torch.mps-avaliable": 2, "host.system": 3,\n'
              '         "cuda.no-kernel-image": 4, "policy.py": 5, "python.org": 6, "mps.other": 7}\n')
    assert unknown_ids_in_source(source, "plan.py", namespaces, elsewhere, known) == ["plan.py:1: torch.mps-avaliable"]


def test_every_id_docs_checks_md_names_is_registered(ids):
    """Ids named in docs/checks.md's prose and headings exist (its table is the registry: the test below)."""
    known, namespaces, elsewhere = ids
    with open(os.path.join(ROOT, "docs", "checks.md"), encoding="utf-8") as handle:
        text = handle.read()
    named = set(re.findall(r"`([^`\s]+)`", text))
    named |= {word for line in text.splitlines() if line.startswith("#") for word in re.findall(r"[\w.-]+", line)}
    unknown = sorted(n for n in named if looks_like_check_id(n, namespaces, elsewhere) and n not in known)
    assert not unknown, unknown


def test_every_layer_the_catalogue_implicates_is_registered(ids):
    known, _, _ = ids
    with open(os.path.join(ROOT, "mps_doctor", "data", "known_errors.json"), encoding="utf-8") as handle:
        layers = {entry["id"]: entry.get("layer") for entry in json.load(handle)["errors"]}
    assert any(layers.values())
    unknown = {entry: layer for entry, layer in layers.items() if layer is not None and layer not in known}
    assert not unknown, unknown


def test_every_id_a_recorded_machine_expects_is_registered(ids):
    known, _, _ = ids
    unknown = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "machines", "*", "machine.json"))):
        with open(path, encoding="utf-8") as handle:
            expect = json.load(handle)["expect"]
        named = [expect.get("root_cause")] + list(expect.get("warnings", ())) + list(expect.get("skipped_layers", ()))
        unknown += ["%s: %s" % (os.path.basename(os.path.dirname(path)), n) for n in named if n and n not in known]
    assert not unknown, unknown


def test_docs_checks_md_table_is_the_registry():
    from mps_doctor.render.checks_doc import BEGIN, END, checks_table

    with open(os.path.join(ROOT, "docs", "checks.md"), encoding="utf-8") as handle:
        text = handle.read()
    block = text[text.index(BEGIN):text.index(END) + len(END)] + "\n"
    assert block == checks_table(), "docs/checks.md is stale: regenerate its table with mps-doctor list-checks --format markdown"


def test_no_check_id_is_written_in_the_package_outside_its_registration(ids):
    """Layer order, fixes, policy, triage and rendering read the registry; the only place an id is written in the
    package is its @check (data files that name layers, such as the known-error catalogue, are checked above)."""
    known, _, _ = ids
    written = []
    for path in glob.glob(os.path.join(ROOT, "mps_doctor", "**", "*.py"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
        registrations = {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call)
                         and getattr(node.func, "id", None) == "check" and node.args}
        written += ["%s:%d: %s" % (os.path.relpath(path, ROOT), node.lineno, node.value) for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in known and id(node) not in registrations]
    assert not written, written


def test_every_kind_of_pasted_message_implicates_a_registered_layer():
    from mps_doctor.checking.registry import implicated_by

    kinds = set()
    for path in glob.glob(os.path.join(ROOT, "mps_doctor", "triage", "parsers", "*.py")):
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        constants = {node.targets[0].id: node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Constant)}
        for node in ast.walk(tree):
            for keyword in getattr(node, "keywords", ()):
                if keyword.arg == "kind" and isinstance(keyword.value, (ast.Constant, ast.Name)):
                    value = keyword.value
                    kinds.add(value.value if isinstance(value, ast.Constant) else constants.get(value.id, value.id))
    assert kinds >= {"container-on-mac", "x86_64-python-on-mac", "cuda-build-off-linux", "no-wheel-for-python"}
    assert all(implicated_by(kind) for kind in kinds), [k for k in kinds if not implicated_by(k)]
