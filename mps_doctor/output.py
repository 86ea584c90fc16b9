"""Where a command's output goes and what it may hold: stdout or --output FILE (written safely), colour, and
whether the terminal's encoding can show the check marks."""

import errno
import os
import stat
import sys

import click

from mps_doctor.errors import UsageError


def write_output(text: str, output) -> None:
    """TEXT to stdout, or to OUTPUT: regular files atomically, symlinks through to their target, devices and FIFOs
    directly. A file that cannot be written is a UsageError (exit 2); a reader that closed the pipe is not an error."""
    if to_stdout(output):
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


def to_stdout(output) -> bool:
    """Whether --output OUTPUT is stdout (not given, or -)."""
    return output in (None, "-")


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
