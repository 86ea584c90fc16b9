"""The one-way data flow, read from the package's imports with ast (every import, also those inside functions).

Rule (docs/architecture.md, "Data flows one way"): each module belongs to one layer, in the order
foundation < inputs < checks < report < remedies < render < cli, and a module imports only from its own layer or
lower ones. The modules, whatever their layers, form no import cycle. `child/` runs inside the target interpreter
and stands apart: it imports nothing from the doctor, only the standard library, torch and its own modules.
"""

import ast
import importlib.util
import os
import sys
import sysconfig

import pytest

from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
PACKAGE = "mps_doctor"
CHILD = PACKAGE + ".child"

# Module name (or package prefix) -> layer. The longest matching prefix decides; a new module must be placed here.
LAYER_ORDER = ("foundation", "inputs", "checks", "report", "remedies", "render", "cli")
PLACEMENT = {
    # Frozen facts, errors, data tables and pure readers of the environment: no doctor imports above them.
    "mps_doctor": "foundation",
    "mps_doctor.errors": "foundation",
    "mps_doctor.exit_codes": "foundation",
    "mps_doctor.facts": "foundation",
    "mps_doctor.environment": "foundation",
    "mps_doctor.secrets": "foundation",
    "mps_doctor.inputs": "foundation",
    "mps_doctor.ci": "foundation",
    "mps_doctor.devices": "foundation",
    "mps_doctor.env_summary": "foundation",
    "mps_doctor.versions": "foundation",
    "mps_doctor.known_errors": "foundation",
    "mps_doctor.data": "foundation",
    # What produces facts: the probes of this machine (and the bench, which runs the child), and triage's reading
    # of pasted text.
    "mps_doctor.probe": "inputs",
    "mps_doctor.bench": "inputs",
    "mps_doctor.triage.text": "inputs",
    "mps_doctor.triage.model": "inputs",
    "mps_doctor.triage.parsers": "inputs",
    # Checks of the facts, their machinery, the release choice they share with the fix plan, and the team policy
    # whose skip/accept entries name them.
    "mps_doctor.checks": "checks",
    "mps_doctor.checking": "checks",
    "mps_doctor.release_choice": "checks",
    "mps_doctor.policy": "checks",
    # Running the checks into a report: report.run_checks, and triage's engine, which runs them on pasted facts.
    "mps_doctor.report": "report",
    "mps_doctor.triage.engine": "report",
    "mps_doctor.triage": "report",
    "mps_doctor.diagnosis": "report",
    # Many reports into one summary (summarize): reports in, a Summary value out.
    "mps_doctor.fleet": "report",
    "mps_doctor.remedies": "remedies",
    "mps_doctor.render": "render",
    "mps_doctor.policy_init": "render",
    # `mps-doctor model` (issue 22): its facts and prediction are data, its run a probe, its results checks, its
    # verdict a report, and its command renders.
    "mps_doctor.model": "foundation",
    "mps_doctor.model.facts": "foundation",
    "mps_doctor.model.predict": "foundation",
    "mps_doctor.model.target": "inputs",
    "mps_doctor.model.run": "inputs",
    "mps_doctor.model.dtypes": "checks",
    "mps_doctor.model.results": "checks",
    "mps_doctor.model.measured": "checks",
    "mps_doctor.model.report": "report",
    "mps_doctor.model.command": "render",
    "mps_doctor.cli": "cli",
    "mps_doctor.commands": "cli",
    "mps_doctor.output": "cli",
    "mps_doctor.__main__": "cli",
}


def package_modules(root=ROOT):
    """{module name: file path} of every module of the package, the child's included."""
    modules = {}
    base = os.path.join(root, PACKAGE)
    for folder, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, root).split(os.sep)
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            parts = rel + ([] if name == "__init__.py" else [name[:-3]])
            modules[".".join(parts)] = os.path.join(folder, name)
    return modules


def imports_of(name, path, modules):
    """(imported name, line) for every import statement of module NAME, relative imports resolved; `from X import Y`
    names the module X.Y when it is one."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module
            for alias in node.names:
                full = "%s.%s" % (base, alias.name)
                found.append((full if full in modules else base, node.lineno))
    return found


def layer_of(name):
    """The layer of doctor module NAME, by its longest placed prefix."""
    candidates = [p for p in PLACEMENT if name == p or name.startswith(p + ".")]
    return PLACEMENT[max(candidates, key=len)] if candidates else None


def doctor_graph(root=ROOT):
    """{module: {imported doctor module: first line}} for the doctor's modules (the child left out)."""
    modules = package_modules(root)
    graph = {}
    for name, path in modules.items():
        if name == CHILD or name.startswith(CHILD + "."):
            continue
        edges = {}
        for target, line in imports_of(name, path, modules):
            if target in modules and not (target == CHILD or target.startswith(CHILD + ".")):
                edges.setdefault(target, line)
        graph[name] = edges
    return graph


def cycles(graph):
    """The strongly connected components with more than one module (or a module importing itself), each sorted."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_doctor_module_has_a_layer():
    unplaced = sorted(name for name in doctor_graph() if layer_of(name) is None)
    assert not unplaced, "place these modules in PLACEMENT: %s" % unplaced


def test_no_module_imports_from_a_higher_layer():
    rank = {layer: number for number, layer in enumerate(LAYER_ORDER)}
    back_edges = []
    for name, edges in sorted(doctor_graph().items()):
        for target, line in sorted(edges.items()):
            if rank[layer_of(target)] > rank[layer_of(name)]:
                back_edges.append("%s:%d (%s) imports %s (%s)" % (name, line, layer_of(name), target, layer_of(target)))
    assert not back_edges, "imports against the flow:\n" + "\n".join(back_edges)


def test_no_import_cycle_between_modules():
    found = cycles(doctor_graph())
    assert not found, "import cycles: %s" % found


# The check modules are found by the registry (checking/registry.py), never imported by the rest of the doctor: the
# fix plan shares the release choice (release_choice.py), not the checks.
CHECKS = PACKAGE + ".checks"


def test_only_the_checks_import_the_checks():
    importers = ["%s:%d imports %s" % (name, line, target) for name, edges in sorted(doctor_graph().items())
                 if not (name == CHECKS or name.startswith(CHECKS + "."))
                 for target, line in sorted(edges.items()) if target == CHECKS or target.startswith(CHECKS + ".")]
    assert not importers, importers


def test_the_fix_plan_imports_nothing_from_the_checks():
    edges = doctor_graph()[PACKAGE + ".remedies.plan"]
    assert PACKAGE + ".release_choice" in edges
    assert not [target for target in edges if target == CHECKS or target.startswith(CHECKS + ".")]


def stdlib_module(top):
    """Whether the top-level module TOP comes with this Python (built in, frozen, or under its stdlib folders)."""
    if top in sys.builtin_module_names:
        return True
    spec = importlib.util.find_spec(top)
    if spec is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    places = {os.path.realpath(sysconfig.get_paths()[key]) for key in ("stdlib", "platstdlib")}
    location = os.path.realpath(spec.origin or next(iter(spec.submodule_search_locations or ()), ""))
    site = {os.path.realpath(sysconfig.get_paths()[key]) for key in ("purelib", "platlib")}
    return any(location.startswith(p + os.sep) for p in places) and not any(location.startswith(s + os.sep) for s in site)


def test_the_child_imports_only_the_standard_library_torch_and_itself():
    modules = package_modules()
    child_files = {name.rpartition(".")[2] for name in modules if name.startswith(CHILD + ".")}
    offenders = []
    for name, path in sorted(modules.items()):
        if not (name == CHILD or name.startswith(CHILD + ".")):
            continue
        for target, line in imports_of(name, path, modules):
            top = target.split(".")[0]
            # The torchvision built-ins of `mps-doctor model` import torchvision when they are asked for.
            allowed = top == "torchvision" and name == CHILD + ".mpsd_builtins"
            if top == PACKAGE or not (top == "torch" or allowed or top in child_files or stdlib_module(top)):
                offenders.append("%s:%d imports %s" % (name, line, target))
    assert not offenders, offenders


@pytest.mark.parametrize("source, expected", [
    ({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}, [["a", "b", "c"]]),
    ({"a": {"b": 1}, "b": {}, "c": {"c": 1}}, [["c"]]),
    ({"a": {"b": 1}, "b": {"c": 1}, "c": {}}, []),
])
def test_cycle_finder(source, expected):
    assert cycles(source) == expected


def test_import_reader_sees_imports_inside_functions_and_relative_ones(tmp_path):
    package = tmp_path / PACKAGE
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "low.py").write_text("")
    (package / "sub" / "high.py").write_text("def f():\n    from ..low import thing\n    from . import other\n")
    (package / "sub" / "other.py").write_text("")
    modules = package_modules(str(tmp_path))
    found = imports_of("mps_doctor.sub.high", str(package / "sub" / "high.py"), modules)
    assert found == [("mps_doctor.low", 2), ("mps_doctor.sub.other", 3)]
