"""Every command exits through the named codes of exit_codes.py, and bench's are the ones its help and the README
document."""

import ast
import os

import pytest

from mps_doctor import bench, cli, exit_codes, output
from mps_doctor import commands as commands_package
from mps_doctor.bench import BenchOptions, BenchReport, BenchUnavailable, DeviceRun
from mps_doctor.errors import UsageError
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
EXITS = ("exit", "SystemExit")


def bare_exit_codes(source):
    """(line, call) of every exit (sys.exit, ctx.exit, exit, SystemExit) whose argument holds an integer literal,
    and how many exits there are."""
    bare, exits = [], 0
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if callee not in EXITS:
            continue
        exits += 1
        arguments = list(node.args) + [keyword.value for keyword in node.keywords]
        if any(isinstance(sub, ast.Constant) and type(sub.value) is int for arg in arguments for sub in ast.walk(arg)):
            bare.append((node.lineno, ast.get_source_segment(source, node)))
    return bare, exits


def test_the_reader_finds_bare_codes_wherever_they_hide():
    source = "sys.exit(1 if failed else 0)\nsys.exit(exit_codes.READY)\nraise SystemExit(130)\nctx.exit(code or 2)\n"
    bare, exits = bare_exit_codes(source)
    assert exits == 4
    assert [line for line, _ in bare] == [1, 3, 4]


def cli_modules():
    """The files of the CLI: cli.py, every command module and the output writer."""
    commands = os.path.dirname(commands_package.__file__)
    return [cli.__file__, output.__file__] + sorted(
        os.path.join(commands, name) for name in os.listdir(commands) if name.endswith(".py"))


def test_the_cli_passes_no_bare_integer_to_an_exit():
    bare, exits = [], 0
    for path in cli_modules():
        with open(path, encoding="utf-8") as handle:
            found, counted = bare_exit_codes(handle.read())
        bare += ["%s:%d %s" % (os.path.basename(path), line, call) for line, call in found]
        exits += counted
    assert exits >= 10
    assert not bare, "use a name from mps_doctor/exit_codes.py: %s" % bare


def test_the_reader_covers_every_command_module():
    names = {os.path.basename(path) for path in cli_modules()}
    assert {"cli.py", "check.py", "fix.py", "bench.py", "triage.py", "policy.py"} <= names


def test_every_code_has_its_own_number():
    codes = [exit_codes.READY, exit_codes.NOT_READY, exit_codes.USAGE, exit_codes.DOCTOR_FAILED, exit_codes.INTERRUPTED]
    assert len(set(codes)) == len(codes)
    assert exit_codes.INTERRUPTED == 130  # what shells report for Ctrl-C: 128 + SIGINT (2)


def bench_report(*runs):
    return BenchReport(options=BenchOptions(), python="python", torch_version="2.13.0", runs=tuple(runs), data="data")


CPU = DeviceRun(device="cpu", window_ms=(10.0, 10.0))


@pytest.mark.parametrize(("outcome", "expected"), [
    (bench_report(CPU, DeviceRun(device="cuda", window_ms=(2.0, 2.0))), exit_codes.READY),
    (bench_report(CPU, DeviceRun(device="cuda", window_ms=(20.0, 20.0))), exit_codes.READY),  # slower: a warning
    (bench_report(CPU, DeviceRun(device="cuda", error="RuntimeError: boom")), exit_codes.NOT_READY),
    (BenchUnavailable("cuda is not available to torch"), exit_codes.NOT_READY),
    (UsageError("--no-cpu with --device cpu leaves nothing to measure"), exit_codes.USAGE),
])
def test_bench_exits_with_its_documented_codes(cli, monkeypatch, outcome, expected):
    def run_bench(*args, **kwargs):
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    monkeypatch.setattr(bench, "run_bench", run_bench)
    done = cli("bench", "--python", "python", "--format", "json", "--no-progress")
    assert done.exit_code == expected, done.output
    documented = dict(exit_codes.BENCH_TABLE)
    assert expected in documented
    assert "%d %s" % (expected, documented[expected]) in " ".join(cli("bench", "--help").output.split())


def test_the_readme_documents_bench_and_interrupted_codes():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = " ".join(handle.read().split())
    assert exit_codes.bench_help_text().replace("\b\n", "") in readme
    assert "| %d |" % exit_codes.INTERRUPTED in readme
