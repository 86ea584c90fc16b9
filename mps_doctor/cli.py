"""The click CLI: parse options, call the library, render, exit with a documented code. No check logic here."""

import errno
import json
import math
import os
import stat
import sys

import click

from mps_doctor import __version__, exit_codes
from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.render.safe import one_line

DEVICES = ("auto", "mps", "cpu", "cuda")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def policy_options(fn):
    """--config, --select, --skip and --require-device, shared by check and fix."""
    fn = click.option("--require-device", "required", multiple=True, type=click.Choice(DEVICES[1:]),
                      help="Insist on this device (repeatable): on a hosted CI runner MPS is otherwise skipped.")(fn)
    fn = click.option("--skip", "skip_ids", multiple=True, metavar="ID", help="Skip this check (repeatable).")(fn)
    fn = click.option("--select", "select_ids", multiple=True, metavar="ID", help="Run only these checks (repeatable).")(fn)
    fn = click.option("--config", metavar="FILE", help="Policy file (default: the nearest pyproject.toml with a "
                      "[tool.mps-doctor] table, searched upwards from the working directory to the repository's root).")(fn)
    return fn


def fail(error: DoctorError) -> "NoReturn":  # noqa: F821
    """Print ERROR as one line on stderr and exit with its code."""
    click.echo("mps-doctor: error: %s" % one_line(str(error)), err=True)
    sys.exit(error.exit_code)


def use_color(no_color: bool) -> bool:
    """Whether stdout gets colour. --no-color, then a non-empty NO_COLOR (https://no-color.org: "present and not an
    empty string") say no; then a non-empty FORCE_COLOR (https://force-color.org) says yes, even in a pipe or CI;
    else only on a terminal that is not TERM=dumb, and never in CI. NO_COLOR wins over FORCE_COLOR, as in CPython's
    _colorize (FORCE_COLOR=1 NO_COLOR=1 is no colour there): whoever asked for none gets none."""
    from mps_doctor.ci import ci_name

    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb" or ci_name(os.environ):
        return False
    return sys.stdout is not None and sys.stdout.isatty()


def to_stdout(output) -> bool:
    """Whether --output OUTPUT is stdout (not given, or -)."""
    return output in (None, "-")


def local_doctor(which=None):
    """This mps-doctor as typed in a shell here once it has exited: `mps-doctor` when that name on PATH is this very
    console script, and not only because an ephemeral runner (uvx) put its cache first on PATH; else its absolute
    path, or `<python> -m mps_doctor` (plan.doctor_command())."""
    import shutil

    from mps_doctor.probe.target import ephemeral_environment
    from mps_doctor.remedies.plan import doctor_command

    command = doctor_command()
    found = (which or shutil.which)("mps-doctor")
    if len(command) == 1 and found and os.path.abspath(found) == command[0] and not ephemeral_environment(
            os.path.dirname(os.path.dirname(command[0]))):
        return ("mps-doctor",)
    return command


def given(ctx, names) -> tuple:
    """The options NAMES of this command as its command line gave them, as words for a command that repeats them."""
    words = []
    for param in ctx.command.params:
        if param.name not in names or ctx.get_parameter_source(param.name).name != "COMMANDLINE":
            continue
        flag, value = max(param.opts, key=len), ctx.params[param.name]
        for one in (value if param.multiple else (value,)):
            if param.is_flag:
                words += [flag] if one else []
            else:
                words += [flag, "%g" % one if isinstance(one, float) else str(one)]
    return tuple(words)


class Seconds(click.ParamType):
    """A finite number of seconds within [low, high]: nan, inf, 0 and negatives are usage errors."""

    name = "seconds"

    def __init__(self, low: float, high: float):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail("%r is not a number of seconds" % value, param, ctx)
        if not math.isfinite(number) or not self.low <= number <= self.high:
            self.fail("%s is not a number of seconds from %g to %g" % (value, self.low, self.high), param, ctx)
        return number


COLOR_HELP = ("No colour. Otherwise colour only on a terminal, never in CI or in --output FILE; a non-empty NO_COLOR "
              "turns it off, FORCE_COLOR on (NO_COLOR wins).")
OUTPUT_HELP = ("Write to FILE instead of stdout. A regular file is replaced atomically (never left half-written); "
               "a symlink is written through to its target; a device or FIFO is written directly; - is stdout.")


def write_output(text: str, output) -> None:
    """TEXT to stdout, or to OUTPUT: regular files atomically, symlinks through to their target, devices and FIFOs
    directly. A file that cannot be written is a UsageError (exit 2); a reader that closed the pipe is not an error."""
    if output is None or output == "-":
        write_stdout(text)
        return
    if not output:
        raise UsageError("--output: empty file name")
    try:
        os.fsencode(output)
    except UnicodeEncodeError:
        raise UsageError("--output %s: not a file name this system can encode" % ascii(output))
    try:
        mode = os.stat(output).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError("--output %s: %s" % (output, exc.strerror or exc))
    if mode is not None and stat.S_ISDIR(mode):
        raise UsageError("--output %s: is a directory" % output)
    try:
        if mode is not None and not stat.S_ISREG(mode):
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            replace_file(os.path.realpath(output), text, mode)
    except OSError as exc:
        raise UsageError("--output %s: %s" % (output, exc.strerror or exc))


def replace_file(path: str, text: str, mode) -> None:
    """Write PATH atomically: a temporary file beside it, renamed over it (keeping an existing file's permissions)."""
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise OSError(errno.ENOENT, "folder %s does not exist" % folder)
    temporary = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        if mode is not None:
            os.chmod(temporary, stat.S_IMODE(mode))
        os.replace(temporary, path)
    except OSError:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_stdout(text: str) -> None:
    """TEXT on stdout. A reader that went away (EPIPE, `| head`) is not an error: the rest is dropped. A closed stdout
    or a full disk is a UsageError (exit 2)."""
    if sys.stdout is None:
        raise UsageError("stdout is closed; pass --output FILE to write the report to a file")
    try:
        # Colour codes are in TEXT only when use_color asked for them (FORCE_COLOR in a pipe too): kept, not stripped.
        click.echo(text, nl=False, color=True)
    except BrokenPipeError:
        discard_stdout()
    except OSError as exc:
        discard_stdout()
        raise UsageError("cannot write to stdout: %s" % (exc.strerror or exc))


def discard_stdout() -> None:
    """Point stdout at the null device, so that Python's flush at exit cannot fail again (the recipe of
    https://docs.python.org/3/library/signal.html#note-on-sigpipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        pass


def print_version(ctx, _param, value) -> None:
    """--version: the tool's version and its release table's date and newest row."""
    if not value or ctx.resilient_parsing:
        return
    from mps_doctor.versions import version_line

    click.echo(version_line(__version__))
    ctx.exit()


class DoctorGroup(click.Group):
    """The command group; a reader that closes the pipe early (`| head`) ends a command with its own code, not 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            discard_stdout()
            return exit_codes.READY


@click.group(cls=DoctorGroup, context_settings=CONTEXT, epilog=exit_codes.help_text())
@click.option("-V", "--version", is_flag=True, expose_value=False, is_eager=True, callback=print_version,
              help="Show the version and the release table's date and newest row, and exit.")
def main() -> None:
    """Diagnose PyTorch on Apple Silicon (MPS), CUDA and the CPU, and print the exact fix."""


@main.command(context_settings=CONTEXT, epilog=exit_codes.help_text())
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Device to diagnose: auto is mps on macOS, cuda where torch sees a GPU, else cpu.")
@click.option("--python", "python", metavar="PATH", help="Diagnose this interpreter (e.g. .venv/bin/python). "
              "Default: the active venv or conda env, a .venv here or above, else the Python running mps-doctor "
              "(python3 on PATH when that is pipx's or uv's private one).")
@click.option("--format", "fmt", type=click.Choice(("text", "json", "markdown")), default="text", show_default=True)
@click.option("--output", "-o", metavar="FILE", help=OUTPUT_HELP)
@click.option("--from", "from_report", metavar="REPORT.json|FILE|-", help="Re-run every check on a saved JSON report's "
              "facts, without probing this machine; or diagnose pasted text as `triage` does (- for stdin).")
@click.option("--quick", is_flag=True, help="Skip the training smoke step (the last layer).")
@click.option("--strict", is_flag=True, help="Warnings make the exit code 1 too.")
@click.option("--timeout", type=Seconds(1, 3600), default=180.0, show_default=True, metavar="SECONDS",
              help="Seconds the target interpreter may take (torch import, parity and smoke).")
@click.option("-v", "--verbose", is_flag=True, help="Show details, reasons and the data rows used.")
@click.option("--no-color", is_flag=True, help=COLOR_HELP)
@click.option("--no-redact", is_flag=True, help="Keep the home folder and user name in --format markdown.")
@policy_options
@click.pass_context
def check(ctx, device, python, fmt, output, from_report, quick, strict, timeout, verbose, no_color, no_redact, config,
          select_ids, skip_ids, required):
    """Check whether PyTorch can train on the device from this Python, layer by layer."""
    from mps_doctor.diagnosis import diagnose
    from mps_doctor.render.progress import status_line
    from mps_doctor.render.text import fix_command

    try:
        pasted, data = read_from(from_report, python, device)
        if pasted is not None:
            from mps_doctor.render.triage import render_triage

            fix = fix_command(pasted, local_doctor(), from_report, given(ctx, ("device",)))
            write_output(render_triage(pasted, fmt, verbose, to_stdout(output) and use_color(no_color),
                                       stdout_is_unicode(), not no_redact, fix), output)
            # check's 0 means ready: the work on the device ran and passed, which a paste can never show.
            sys.exit(exit_codes.NOT_READY)
        with status_line(sys.stderr, os.environ, enabled=not from_report) as progress:
            report = diagnose(diagnosis_request(ctx, device=device, python=python, from_report=from_report,
                                                from_data=data, quick=quick, timeout=timeout, config=config,
                                                select_ids=select_ids, skip_ids=skip_ids, required=required,
                                                strict=strict, on_frame=progress))
        fix = fix_command(report, local_doctor(), extra=given(ctx, ("timeout",)))
        write_output(render(report, fmt, verbose, to_stdout(output) and use_color(no_color), not no_redact, fix), output)
    except DoctorError as error:
        fail(error)
    sys.exit(report.exit_code())


def diagnosis_request(ctx, **fields):
    """A DiagnosisRequest from a command's options (keywords named as its fields); a --device or --quick left at its
    default is None, so that a replayed report's own value applies."""
    from mps_doctor.diagnosis import DiagnosisRequest

    for name in ("device", "quick"):
        if ctx.get_parameter_source(name).name == "DEFAULT":
            fields[name] = None
    return DiagnosisRequest(**fields)


def render(report, fmt: str, verbose: bool, color: bool, redacted: bool, fix: str) -> str:
    """The report in FMT; the text names FIX as the command that prints the fix plan."""
    if fmt == "json":
        from mps_doctor.render.commands import report_document

        return json.dumps(report_document(report), indent=2) + "\n"
    if fmt == "markdown":
        from mps_doctor.render.markdown import render_markdown

        return render_markdown(report, redacted=redacted)
    from mps_doctor.render.text import render_text

    return render_text(report, verbose=verbose, color=color, unicode=stdout_is_unicode(), fix=fix)


def stdout_is_unicode() -> bool:
    """Whether stdout can print the check marks."""
    return is_unicode(sys.stdout)


def stderr_is_unicode() -> bool:
    """Whether stderr can print the check marks."""
    return is_unicode(sys.stderr)


def is_unicode(stream) -> bool:
    """Whether STREAM's encoding is a Unicode one."""
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    return encoding in ("utf8", "utf16", "utf32")


@main.command("list-checks", context_settings=CONTEXT)
@click.option("--format", "fmt", type=click.Choice(("text", "json", "markdown")), default="text", show_default=True)
def list_checks(fmt):
    """List every check id, its title, and the layers it belongs to per device (markdown: docs/checks.md's table)."""
    from mps_doctor.checks.registry import check_rows

    if fmt == "markdown":
        from mps_doctor.render.checks_doc import checks_table

        click.echo(checks_table(), nl=False)
        return
    rows = check_rows()
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    where = [", ".join("%s %d" % item for item in row["layers"].items()) or row["kind"] for row in rows]
    id_width, where_width = max(len(r["id"]) for r in rows), max(len(w) for w in where)
    for row, place in zip(rows, where):
        click.echo("%-*s  %-*s  %s" % (id_width, row["id"], where_width, place, row["title"]))


@main.command(context_settings=CONTEXT, epilog=exit_codes.bench_help_text())
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Accelerator to compare with the CPU (auto, as in check: mps on macOS, cuda where torch sees a GPU, "
              "else the CPU alone).")
@click.option("--python", "python", metavar="PATH", help="Run the benchmark in this interpreter.")
@click.option("--batch", type=click.IntRange(1, 8192), default=64, show_default=True)
@click.option("--steps", type=click.IntRange(1, 100000), default=20, show_default=True, help="Steps per timed window.")
@click.option("--windows", type=click.IntRange(1, 1000), default=5, show_default=True, help="Timed windows (median reported).")
@click.option("--warmup", type=click.IntRange(0, 100000), default=10, show_default=True, help="Untimed steps after the cold one.")
@click.option("--epochs", type=click.IntRange(0, 1000), default=0, help="Train like pytorch/examples' MNIST: N "
              "epochs of 60,000 images (or of --data-dir's training set) per device.")
@click.option("--data-dir", metavar="DIR", type=click.Path(exists=True, file_okay=False),
              help="Your MNIST, e.g. torchvision's root (DIR/MNIST/raw/*-idx?-ubyte[.gz]).")
@click.option("--pipeline", type=click.Choice(("resident", "loader")), default=None,
              help="resident: data on the device; loader: a DataLoader like pytorch/examples'. Default: resident, loader with --epochs.")
@click.option("--workers", type=click.IntRange(0, 64), default=0, show_default=True, help="DataLoader num_workers.")
@click.option("--no-cpu", is_flag=True, help="Measure the accelerator alone.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--output", "-o", metavar="FILE", help=OUTPUT_HELP)
@click.option("--timeout", type=Seconds(1, 86400), default=1800.0, show_default=True, metavar="SECONDS",
              help="Seconds the whole benchmark may take.")
@click.option("--no-progress", is_flag=True, help="No progress line on stderr (also off in CI or when stderr is not a "
              "terminal).")
def bench(device, python, batch, steps, windows, warmup, epochs, data_dir, pipeline, workers, no_cpu, fmt, output, timeout,
          no_progress):
    """Time the MNIST network of pytorch/examples on the CPU vs the accelerator, measured correctly."""
    import platform

    from mps_doctor.bench import BenchOptions, BenchUnavailable, bench_to_dict, run_bench
    from mps_doctor.probe.target import default_python
    from mps_doctor.render.progress import status_line

    try:
        if data_dir:
            check_data_dir(data_dir)
        options = BenchOptions(device=device, batch=batch, warmup=warmup, windows=windows, steps=steps, epochs=epochs,
                               pipeline=pipeline, workers=workers, data_dir=data_dir, include_cpu=not no_cpu, timeout=timeout)
        target, why = default_python() if python is None else (python, "--python")
        with status_line(sys.stderr, os.environ, enabled=not no_progress) as progress:
            report = run_bench(target, options, platform.system(), progress, chosen_because=why)
        if fmt == "json":
            text = json.dumps(bench_to_dict(report), indent=2) + "\n"
        else:
            from mps_doctor.render.bench_text import render_bench_text

            text = render_bench_text(report, unicode=stdout_is_unicode())
        write_output(text, output)
    except BenchUnavailable as error:
        fail(explained(error))
    except DoctorError as error:
        fail(error)
    sys.exit(report.exit_code())


def explained(error: DoctorError) -> DoctorError:
    """ERROR after printing, on stderr, the root cause and remedy that `check` finds in what the bench's child
    found (the same classification and commands); the error names that root cause. Where check finds none (or its
    policy does not load), ERROR itself, which names the check to run."""
    from mps_doctor.bench import BenchUnavailable
    from mps_doctor.diagnosis import stopped_by
    from mps_doctor.render.text import fix_command, render_root_cause

    try:
        report = stopped_by(error.target, error.device) if error.target is not None else None
    except DoctorError:
        report = None
    if report is None:
        return error
    click.echo(render_root_cause(report, unicode=stderr_is_unicode(), fix=fix_command(report, local_doctor())), err=True)
    return BenchUnavailable("%s: %s" % (error.what, report.result(report.verdict.root_cause).summary))


@main.command(context_settings=CONTEXT, epilog="\b\nExit codes: 0 a plan was printed, or nothing to fix; 2 usage error "
              "or unreadable input; 3 the doctor failed.\nmps-doctor never runs these commands itself.")
@click.option("--print-commands", is_flag=True, help="Print only the commands, as a script with # comments.")
@click.option("--shell", type=click.Choice(("zsh", "bash", "fish")), help="Shell to write for (default: from $SHELL).")
@click.option("--manager", type=click.Choice(("pip", "uv", "conda")), help="Package manager (default: detected).")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--python", "python", metavar="PATH", help="Plan for this interpreter.")
@click.option("--from", "from_report", metavar="REPORT.json|FILE|-", help="Plan for a saved report (e.g. a teammate's), "
              "or for pasted text (as `triage` reads it; - for stdin).")
@click.option("--torch", "torch_pin", metavar="VERSION", help="Install exactly this torch (torchvision is paired from "
              "the release table) instead of the newest that fits; it must meet the team's policy.")
@click.option("--index-url", metavar="URL", help="Package index for torch, instead of the one mps-doctor picks.")
@click.option("--pypi", is_flag=True, help="Install torch from the default index (no --index-url).")
@click.option("--quick", is_flag=True, help="Skip the training smoke step while diagnosing.")
@click.option("--timeout", type=Seconds(1, 3600), default=180.0, show_default=True, metavar="SECONDS",
              help="Seconds the target interpreter may take while diagnosing (torch import, parity and smoke).")
@click.option("--strict", is_flag=True, help="Warnings make the verdict not ready, as with check --strict; the "
              "plan's closing check is strict too.")
@click.option("--output", "-o", metavar="FILE", help=OUTPUT_HELP)
@policy_options
@click.pass_context
def fix(ctx, print_commands, shell, manager, device, python, from_report, torch_pin, index_url, pypi, quick, timeout,
        strict, output, config, select_ids, skip_ids, required):
    """The exact, ordered, safe commands that fix what `check` finds, for this setup."""
    from mps_doctor.diagnosis import diagnose
    from mps_doctor.remedies.plan import build_plan, pinned_release
    from mps_doctor.render.progress import status_line
    from mps_doctor.render.script import render_explained, render_script
    from mps_doctor.render.text import fix_command

    try:
        if index_url and pypi:
            raise UsageError("--index-url and --pypi cannot be combined")
        if torch_pin is not None:
            pinned_release(torch_pin)
        report, data = read_from(from_report, python, device)
        if report is None:
            with status_line(sys.stderr, os.environ, enabled=not from_report) as progress:
                report = diagnose(diagnosis_request(ctx, device=device, python=python, from_report=from_report,
                                                    from_data=data, quick=quick, timeout=timeout, config=config,
                                                    select_ids=select_ids, skip_ids=skip_ids, required=required,
                                                    strict=strict, on_frame=progress))
        plan = build_plan(report, manager=manager, shell=shell, torch_pin=torch_pin,
                          index="" if pypi else index_url)
        plan_options = ("shell", "manager", "torch_pin", "index_url", "pypi", "timeout")
        again = fix_command(report, local_doctor(), from_report, given(ctx, plan_options + (
            ("device",) if report.source is not None else ())) + ("--print-commands",))
        write_output(render_script(plan) if print_commands else render_explained(plan, again), output)
    except DoctorError as error:
        fail(error)
    sys.exit(exit_codes.READY)


def read_from(from_report, python, device):
    """(the triage report, None) when --from names pasted text, (None, the bytes read) when it names a JSON report
    (stdin, '-', is read once, here), (None, None) without --from or with --python (which --from excludes)."""
    if not from_report or python:
        return None, None
    from mps_doctor.inputs import embedded_report, is_json_document, read_input

    data = read_input(from_report, sys.stdin, "--from %s" % from_report)
    if is_json_document(data):
        return None, data
    text = data.decode("utf-8", errors="replace")
    report = embedded_report(text)
    if report is not None:
        return None, report
    from mps_doctor.triage.engine import triage

    try:
        return triage(text, device), None
    except UsageError:
        raise UsageError("--from %s: neither an mps-doctor JSON report nor pasted text it recognizes (collect_env, an "
                         "environment dump, an install log, a known error message)" % from_report)


@main.command("triage", context_settings=CONTEXT, epilog="\b\nExit codes: 0 no problem found in the text, 1 a problem "
              "found, 2 usage error or nothing recognizable in the text, 3 the doctor failed.")
@click.argument("file", required=False, metavar="[FILE|-]")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Device the report is about: auto is inferred from the text (its OS and messages).")
@click.option("--format", "fmt", type=click.Choice(("text", "json", "markdown")), default="text", show_default=True,
              help="markdown: a reply to post on the issue (home folders redacted).")
@click.option("--output", "-o", metavar="FILE", help="Write the result to FILE instead of stdout.")
@click.option("-v", "--verbose", is_flag=True, help="Show details, reasons and the data rows used.")
@click.option("--no-color", is_flag=True, help=COLOR_HELP)
@click.option("--no-redact", is_flag=True, help="Keep user names in home-folder paths in --format markdown.")
@click.pass_context
def triage_command(ctx, file, device, fmt, output, verbose, no_color, no_redact):
    """Diagnose pasted text from a machine you cannot touch: collect_env, environment dumps, install logs, errors.

    Reads FILE, or stdin with - or no argument (a GitHub issue body as it is: Markdown, <details>, prompts).
    """
    from mps_doctor.render.text import fix_command
    from mps_doctor.render.triage import render_triage
    from mps_doctor.triage.engine import exit_code, read_text, triage

    try:
        if file in (None, "-") and sys.stdin.isatty():
            click.echo("mps-doctor: reading pasted text from stdin (end with Ctrl-D)", err=True)
        report = triage(read_text(file, sys.stdin), device)
        fix = fix_command(report, local_doctor(), file or "-", given(ctx, ("device",)))
        write_output(render_triage(report, fmt, verbose, use_color(no_color) and to_stdout(output), stdout_is_unicode(),
                                   not no_redact, fix), output)
    except DoctorError as error:
        fail(error)
    sys.exit(exit_code(report))


@main.group(context_settings=CONTEXT)
def policy():
    """The team policy in [tool.mps-doctor] of the project's pyproject.toml (docs/policy.md)."""


@policy.command("show", context_settings=CONTEXT)
@click.option("--config", metavar="FILE", help="Policy file (default: the nearest pyproject.toml with a "
              "[tool.mps-doctor] table, upwards to the repository's root).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
def policy_show(config, fmt):
    """Print the effective policy and where each value came from."""
    from mps_doctor.policy import KNOWN_KEYS, load_policy, policy_to_dict

    try:
        effective = load_policy(config)
    except DoctorError as error:
        fail(error)
    if fmt == "json":
        click.echo(json.dumps(dict(policy_to_dict(effective), origins=dict(effective.origins)), indent=2))
        return
    origins = dict(effective.origins)
    click.echo(one_line("policy from %s" % effective.source) if effective.source else
               "no team policy: no pyproject.toml with a [tool.mps-doctor] table here or above; the defaults apply")
    values = {"device": ", ".join(effective.devices), "torch": effective.torch, "torchvision": effective.torchvision,
              "python": effective.python, "min-macos": effective.min_macos,
              "skip": "; ".join("%s (%s)" % item for item in effective.skip),
              "accept": "; ".join("%s (%s)" % item for item in effective.accept),
              "strict": "true" if effective.strict else "false"}
    defaults = {"device": "any device mps-doctor picks", "strict": "false", "skip": "none", "accept": "none"}
    for key in KNOWN_KEYS:
        shown = values[key] if key in origins else "(%s)" % defaults.get(key, "any")
        click.echo(one_line("  %-12s %-40s %s" % (key, shown, origins.get(key, "default"))))


@policy.command("init", context_settings=CONTEXT)
@click.option("--python", "python", metavar="PATH", help="Describe this interpreter instead of the current one.")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True)
@click.option("--timeout", type=Seconds(1, 3600), default=180.0, show_default=True, metavar="SECONDS")
@click.pass_context
def policy_init(ctx, python, device, timeout):
    """Print a commented starting policy for this machine's current state (paste it into pyproject.toml)."""
    from mps_doctor.diagnosis import DiagnosisRequest, diagnose
    from mps_doctor.policy_init import render_policy
    from mps_doctor.render.progress import status_line

    try:
        with status_line(sys.stderr, os.environ) as progress:
            report = diagnose(DiagnosisRequest(device=device, python=python, quick=True, timeout=timeout,
                                               on_frame=progress))
    except DoctorError as error:
        fail(error)
    click.echo(render_policy(report), nl=False)


@main.command("model", context_settings=CONTEXT, epilog="\b\nExit codes: 0 ready (observed on the device, or "
              "predicted: every operator and dtype has a kernel), 1 runs only with CPU fallbacks, will fail, the TARGET "
              "failed, torch does not import, or --timeout; 2 usage error; 3 the doctor failed.")
@click.argument("target", metavar="TARGET")
@click.option("--device", type=click.Choice(DEVICES), default="auto", show_default=True,
              help="Device to judge: mps is predicted from the kernel table where MPS is not available (Linux too).")
@click.option("--python", "python", metavar="PATH", help="Run the model in this interpreter (default: as check).")
@click.option("--format", "fmt", type=click.Choice(("text", "json", "markdown")), default="text", show_default=True)
@click.option("--torch", "torch_release", metavar="VERSION", help="Predict the operators and dtypes for this torch "
              "release (what-if) instead of the installed one.")
@click.option("--batch", type=click.IntRange(1, 1 << 20), help="Batch size, passed to a factory that takes batch=.")
@click.option("--timeout", type=Seconds(1, 86400), default=900.0, show_default=True, metavar="SECONDS",
              help="Seconds the target interpreter may take (each run of the model).")
@click.option("--output", "-o", metavar="FILE", help=OUTPUT_HELP)
@click.option("-v", "--verbose", is_flag=True, help="Show every operator, details and measurements.")
@click.option("--no-color", is_flag=True, help=COLOR_HELP)
@click.option("--no-redact", is_flag=True, help="Keep the home folder and user name in --format markdown.")
@click.option("--no-progress", is_flag=True, help="No progress line on stderr.")
def model_command(target, device, python, fmt, torch_release, batch, timeout, output, verbose, no_color, no_redact,
                  no_progress):
    """Will this model train on the device, and on which torch? Operators, dtypes, memory, speed, parity.

    TARGET is path/to/file.py:factory, package.module:factory, or a built-in that needs no download:
    torchvision:resnet18, torchvision:vit_b_16 (weights=None), mps-doctor:transformer-block, mps-doctor:mnist.
    factory() returns (model, example_inputs) or (model, example_inputs, loss_fn), like torch.export's convention;
    a factory that takes batch= gets --batch.

    TARGET is code you choose to run: mps-doctor imports it and calls its factory in the target Python, as python
    would, so name only code you trust. It never runs a TARGET named in a saved report or pasted text.
    """
    from mps_doctor.bench import BenchUnavailable
    from mps_doctor.model.command import model_request, progress_callback, run_command
    from mps_doctor.render.progress import status_line

    try:
        with status_line(sys.stderr, os.environ, enabled=not no_progress) as line:
            request = model_request(target, device, python, batch, torch_release, timeout, progress_callback(line))
            text, code = run_command(request, fmt, verbose, to_stdout(output) and use_color(no_color),
                                     stdout_is_unicode(), not no_redact)
        write_output(text, output)
    except BenchUnavailable as error:
        fail(explained(error))
    except DoctorError as error:
        fail(error)
    sys.exit(code)


def check_data_dir(data_dir: str) -> None:
    """Fail early, as a usage error, when --data-dir holds no readable MNIST training split."""
    from mps_doctor.child.mpsd_idx import IdxError, load_split

    try:
        load_split(data_dir, train=True)
    except IdxError as exc:
        raise UsageError("--data-dir: %s" % exc)


# click 8.2+ raises this for a group called without a command; older versions print the help themselves.
NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


def run() -> None:
    """Console-script entry: bad usage is one line and exit 2; anything unexpected is one line and exit 3."""
    try:
        code = main(standalone_mode=False)
    except NO_ARGS_IS_HELP as error:
        click.echo(error.format_message())
        sys.exit(exit_codes.USAGE)
    except click.UsageError as error:
        where = error.ctx.command_path if error.ctx is not None else "mps-doctor"
        click.echo(one_line("mps-doctor: error: %s (see: %s --help)" % (error.format_message(), where)), err=True)
        sys.exit(exit_codes.USAGE)
    except click.ClickException as error:
        click.echo(one_line("mps-doctor: error: %s" % error.format_message()), err=True)
        sys.exit(exit_codes.USAGE)
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            internal_error(error)
        discard_stdout()
        click.echo(one_line("mps-doctor: error: cannot write the output: %s" % (error.strerror or error)), err=True)
        sys.exit(exit_codes.USAGE)
    except (KeyboardInterrupt, click.Abort):
        click.echo("mps-doctor: interrupted", err=True)
        sys.exit(exit_codes.INTERRUPTED)
    except SystemExit:
        raise
    except Exception as exc:  # the doctor itself failed
        internal_error(exc)
    sys.exit(code if isinstance(code, int) else exit_codes.READY)


def internal_error(exc: BaseException) -> "NoReturn":  # noqa: F821
    """One line for a failure of the doctor itself, and exit 3."""
    click.echo(one_line("mps-doctor: internal error: %s: %s (please report it)" % (type(exc).__name__, exc)), err=True)
    sys.exit(exit_codes.DOCTOR_FAILED)
