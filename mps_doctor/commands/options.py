"""The options that several commands share, each declared once: its name, type, validation, default and help. A
command applies the decorators of the options it takes (a group of them at once: diagnosis_options,
report_options); where an option means something narrower for one command, that command passes its own help."""

import math

import click

from mps_doctor.devices import AUTO, DEVICE_CHOICES, DEVICES
from mps_doctor.timeouts import (
    BENCH_TIMEOUT_DEFAULT,
    BENCH_TIMEOUT_MAX,
    CHECK_TIMEOUT_DEFAULT,
    CHECK_TIMEOUT_MAX,
    TIMEOUT_MIN,
)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

DEVICE_HELP = "Device to diagnose: auto is mps on macOS, cuda where torch sees a GPU, else cpu."
PYTHON_HELP = ("Diagnose this interpreter (e.g. .venv/bin/python). Default: the active venv or conda env, a .venv here "
               "or above, else the Python running mps-doctor (python3 on PATH when that is pipx's or uv's private one).")
TIMEOUT_HELP = "Seconds the target interpreter may take (torch import, parity and smoke)."
OUTPUT_HELP = ("Write to FILE instead of stdout. A regular file is replaced atomically (never left half-written); "
               "a symlink is written through to its target; a device or FIFO is written directly; - is stdout.")
COLOR_HELP = ("No colour. Otherwise colour only on a terminal, never in CI or in --output FILE; a non-empty NO_COLOR "
              "turns it off, FORCE_COLOR on (NO_COLOR wins).")
FROM_HELP = ("A saved JSON report (e.g. a teammate's) whose facts are checked again instead of probing this machine; or "
             "pasted text, read as `triage` reads it (- for stdin).")
TITLE_HELP = ("The issue's title, for pasted text: read (as line 1) only when the text names no cause, or leaves open "
              "the Mac's chip that the title names, as a maintainer reads an issue.")
CONFIG_HELP = ("Policy file (default: the nearest pyproject.toml with a [tool.mps-doctor] table, searched upwards from "
               "the working directory to the repository's root).")


class Seconds(click.ParamType):
    """A finite number of seconds within [low, high]: nan, inf, negatives and (with low above 0) 0 are usage errors."""

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


def together(*decorators):
    """One decorator applying DECORATORS, whose options --help lists in this order."""

    def apply(fn):
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn

    return apply


def device_option(help: str = DEVICE_HELP):
    """--device auto|mps|cpu|cuda (default auto)."""
    return click.option("--device", type=click.Choice(DEVICE_CHOICES), default=AUTO, show_default=True, help=help)


def python_option(help: str = PYTHON_HELP):
    """--python PATH: the target interpreter (default: probe.default_target.default_python's choice)."""
    return click.option("--python", "python", metavar="PATH", help=help)


def check_timeout_option():
    """--timeout SECONDS for the probe of the target interpreter (check, fix, policy init)."""
    return click.option("--timeout", type=Seconds(TIMEOUT_MIN, CHECK_TIMEOUT_MAX), default=CHECK_TIMEOUT_DEFAULT,
                        show_default=True, metavar="SECONDS", help=TIMEOUT_HELP)


def bench_timeout_option():
    """--timeout SECONDS for a whole benchmark."""
    return click.option("--timeout", type=Seconds(TIMEOUT_MIN, BENCH_TIMEOUT_MAX), default=BENCH_TIMEOUT_DEFAULT,
                        show_default=True, metavar="SECONDS", help="Seconds the whole benchmark may take.")


def format_option(*formats: str, help=None):
    """--format FORMATS (the first is the default), into the parameter `fmt`."""
    return click.option("--format", "fmt", type=click.Choice(formats), default=formats[0], show_default=True, help=help)


def output_option():
    """-o/--output FILE (output.write_output writes it)."""
    return click.option("--output", "-o", metavar="FILE", help=OUTPUT_HELP)


def config_option():
    """--config FILE: the team policy file."""
    return click.option("--config", metavar="FILE", help=CONFIG_HELP)


def title_option():
    """--title TEXT: the issue's title, for pasted text (triage, and check/fix --from a paste)."""
    return click.option("--title", metavar="TEXT", help=TITLE_HELP)


def diagnosis_options(strict_help: str):
    """The options of a diagnosis (check and fix; commands.shared.diagnosis_request reads them): the device, the
    target, --from (and --title for a paste), --quick, --timeout, --strict (STRICT_HELP: what it changes for this
    command) and the policy's."""
    return together(
        device_option(), python_option(),
        click.option("--from", "from_report", metavar="REPORT.json|FILE|-", help=FROM_HELP), title_option(),
        click.option("--quick", is_flag=True, help="Skip the training smoke step (the last layer)."),
        check_timeout_option(), click.option("--strict", is_flag=True, help=strict_help), policy_options)


def policy_options(fn):
    """--config, --select, --skip and --require-device, shared by check and fix."""
    return together(
        config_option(),
        click.option("--select", "select_ids", multiple=True, metavar="ID", help="Run only these checks (repeatable)."),
        click.option("--skip", "skip_ids", multiple=True, metavar="ID", help="Skip this check (repeatable)."),
        click.option("--require-device", "required", multiple=True, type=click.Choice(DEVICES),
                     help="Insist on this device (repeatable): on a hosted CI runner MPS is otherwise skipped."))(fn)


REPORT_FORMATS = ("text", "json", "markdown")


def report_options(format_help=None, formats=REPORT_FORMATS):
    """How a report is shown (check and triage): --format FORMATS (FORMAT_HELP: what it means for this command),
    --output, --verbose, --no-color and --no-redact."""
    return together(
        format_option(*formats, help=format_help), output_option(),
        click.option("-v", "--verbose", is_flag=True, help="Show details, reasons and the data rows used."),
        click.option("--no-color", is_flag=True, help=COLOR_HELP),
        click.option("--no-redact", is_flag=True, help="Keep home folders and user names in --format markdown."))
