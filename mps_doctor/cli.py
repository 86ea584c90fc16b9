"""The click CLI: the command group, its global options and its commands (each in mps_doctor/commands/), and the
entry point that turns every way a command can end into one line and a documented exit code."""

import errno
import sys

import click

from mps_doctor import __version__, exit_codes
from mps_doctor.commands.bench import bench
from mps_doctor.commands.check import check
from mps_doctor.commands.fix import fix
from mps_doctor.commands.list_checks import list_checks
from mps_doctor.commands.model import model
from mps_doctor.commands.options import CONTEXT
from mps_doctor.commands.policy import policy
from mps_doctor.commands.summarize import summarize
from mps_doctor.commands.triage import triage
from mps_doctor.output import discard_stdout
from mps_doctor.render.safe import escaped_line


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


for command in (check, list_checks, bench, fix, triage, summarize, model, policy):
    main.add_command(command)

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
        click.echo(escaped_line("mps-doctor: error: %s (see: %s --help)" % (error.format_message(), where)), err=True)
        sys.exit(exit_codes.USAGE)
    except click.ClickException as error:
        click.echo(escaped_line("mps-doctor: error: %s" % error.format_message()), err=True)
        sys.exit(exit_codes.USAGE)
    except OSError as error:
        if error.errno not in (errno.ENOSPC, errno.EDQUOT):
            internal_error(error)
        discard_stdout()
        click.echo(escaped_line("mps-doctor: error: cannot write the output: %s" % (error.strerror or error)), err=True)
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
    click.echo(escaped_line("mps-doctor: internal error: %s: %s (please report it)" % (type(exc).__name__, exc)), err=True)
    sys.exit(exit_codes.DOCTOR_FAILED)
