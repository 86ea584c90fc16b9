"""The fix plan as a script for one shell, or explained step by step in words."""

import re
from typing import List

from mps_doctor import __version__
from mps_doctor.checking.model import Cmd
from mps_doctor.remedies.model import InCondaBase, Plan
from mps_doctor.render.safe import UNSAFE_IN_LINE, escaped_line
from mps_doctor.words import wrap

# Words that need no quotes in bash, zsh and fish. A leading = is zsh's =command expansion (`=ls` becomes /bin/ls,
# zshexpn(1) "= expansion") and a leading % is fish's %self (its PID); an = in the command word makes an assignment.
SAFE = re.compile(r"^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@%+,-]*$")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SHEBANG = {"zsh": "#!/usr/bin/env zsh", "bash": "#!/usr/bin/env bash", "fish": "#!/usr/bin/env fish",
           "powershell": "#!/usr/bin/env pwsh"}
# Words PowerShell passes on as they are: no @ (splatting), no comma (arrays), no $ ` ; & | ( ) { } < > ' " # %.
POWERSHELL_SAFE = re.compile(r"^[A-Za-z0-9_./:\\=+-]+$")


def shell_escape(char: str) -> str:
    """One control character as a backslash escape that bash's $'...' and fish both expand to exactly it."""
    code = ord(char)
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char) or (
        "\\x%02x" % code if code < 0x80 else "\\u%04x" % code if code < 0x10000 else "\\U%08x" % code)


def fish_quote(word: str, command: bool = False) -> str:
    """WORD quoted for fish: bare when safe, else single quotes with \\\\ and \\' escaped; a control character is
    written as a backslash escape between the quoted pieces (fish expands \\n and \\xHH outside quotes). COMMAND:
    WORD is the command name, where an = would make it an assignment."""
    if word and SAFE.match(word) and not (command and "=" in word):
        return word
    pieces = []
    for index, piece in enumerate(re.split("(%s)" % UNSAFE_IN_LINE.pattern, word)):
        if index % 2:
            pieces.append(shell_escape(piece))
        elif piece or index == 0:
            pieces.append("'" + piece.replace("\\", "\\\\").replace("'", "\\'") + "'")
    return "".join(pieces)


def posix_quote(word: str, command: bool = False) -> str:
    """WORD quoted for bash or zsh: bare when safe, else single quotes, or ANSI-C $'...' when it holds a control or
    invisible character, so that the exact value reaches the command while the printed line stays one visible line.
    COMMAND: WORD is the command name, where an = would make it an assignment."""
    if word and SAFE.match(word) and not (command and "=" in word):
        return word
    if not UNSAFE_IN_LINE.search(word):
        return "'" + word.replace("'", "'\"'\"'") + "'"
    body = UNSAFE_IN_LINE.sub(lambda m: shell_escape(m.group()), word.replace("\\", "\\\\").replace("'", "\\'"))
    # ! is escaped too, so that no interactive shell's history expansion can touch a pasted line.
    return "$'" + body.replace("!", "\\x21") + "'"


def powershell_quote(word: str) -> str:
    """WORD quoted for PowerShell: bare when safe, else single quotes ('' for a quote), or double quotes with every
    $, backquote and double quote escaped and a control or invisible character written as $([char]0xHHHH), so the
    exact value reaches the command while the printed line stays one visible line (about_Quoting_Rules)."""
    if word and POWERSHELL_SAFE.match(word):
        return word
    if not UNSAFE_IN_LINE.search(word):
        return "'" + word.replace("'", "''") + "'"
    body = word.replace("`", "``").replace("$", "`$").replace('"', '`"')
    return '"' + UNSAFE_IN_LINE.sub(lambda m: "$([char]0x%04x)" % ord(m.group()), body) + '"'


def powershell_string(value: str) -> str:
    """VALUE as a PowerShell string literal, quoted even when it is a safe word (a bare word is a command there)."""
    quoted = powershell_quote(value)
    return quoted if quoted[:1] in "'\"" else "'%s'" % quoted


def quote(word: str, shell: str, command: bool = False) -> str:
    if isinstance(word, InCondaBase):
        base = "(conda info --base)" if shell == "fish" else '"$(conda info --base)"'
        return base + "/" + quote(word.relative, shell)
    if shell == "powershell":
        return powershell_quote(word)
    if word.startswith("~/") and len(word) > 2:
        # A home-relative path (a redacted report's) stays one: bash, zsh and fish expand a bare leading ~/ only.
        return "~/" + quote(word[2:], shell)
    return fish_quote(word, command) if shell == "fish" else posix_quote(word, command)


def comment(text: str, prefix: str = "# ") -> str:
    """TEXT as one comment line: a newline or any control character in it is escaped, so it cannot end the comment."""
    return prefix + escaped_line(text)


def variable(name: str) -> str:
    """NAME when it is a shell variable name; anything else could be syntax and is refused."""
    if not NAME.match(name):
        raise ValueError("not a variable name: %r" % name)
    return name


def spell(cmd: Cmd, shell: str) -> str:
    """One command in SHELL's syntax."""
    if cmd.kind == "note":
        return comment(cmd.value)
    if shell == "powershell":
        return spell_powershell(cmd)
    if cmd.kind == "export":
        if shell == "fish":
            return "set -gx %s %s" % (variable(cmd.name), quote(cmd.value, shell))
        return "export %s=%s" % (variable(cmd.name), quote(cmd.value, shell))
    if cmd.kind == "unset":
        return "set -e %s" % variable(cmd.name) if shell == "fish" else "unset %s" % variable(cmd.name)
    if cmd.kind == "activate":
        if cmd.name:
            return "conda activate %s" % quote(cmd.name, shell)
        if shell == "fish":
            return "source %s" % quote(cmd.value.rstrip("/") + "/bin/activate.fish", shell)
        # The directive tells shellcheck that the file is created by an earlier step.
        return "# shellcheck source=/dev/null\n. %s" % quote(cmd.value.rstrip("/") + "/bin/activate", shell)
    prefix = "".join("%s=%s " % (variable(name), quote(value, shell)) for name, value in cmd.env)
    return prefix + " ".join(quote(word, shell, command=index == 0) for index, word in enumerate(cmd.argv))


def spell_powershell(cmd: Cmd) -> str:
    """One command for PowerShell (Windows' shell): variables through $env:, a venv's Activate.ps1 (the venv module's
    documentation), a VAR=value prefix as its own $env: assignment first."""
    if cmd.kind == "export":
        return "$env:%s = %s" % (variable(cmd.name), powershell_string(cmd.value))
    if cmd.kind == "unset":
        return "Remove-Item Env:%s" % variable(cmd.name)
    if cmd.kind == "activate":
        if cmd.name:
            return "conda activate %s" % powershell_quote(cmd.name)
        return "& %s" % powershell_quote(cmd.value.rstrip("/\\") + "\\Scripts\\Activate.ps1")
    prefix = "".join("$env:%s = %s; " % (variable(name), powershell_string(value)) for name, value in cmd.env)
    words = [quote(word, "powershell") for word in cmd.argv]
    # A quoted program name is a string to PowerShell until the call operator runs it.
    return prefix + ("& " if words and words[0][:1] in "'\"" else "") + " ".join(words)


# The plan of a failure that no command fixes: what to do is prose, in the report's cause and fix.
UNFIXABLE = "No command fixes it: what to do instead is in the report's cause and fix (mps-doctor check, or triage for pasted text)."


def comment_block(text: str, indent: str = "# ") -> List[str]:
    """TEXT wrapped at 100 columns, each line a comment (or indented prose) that no character in TEXT can end; a
    path or a `command` is never split (words.wrap)."""
    return wrap(escaped_line(text), 100, indent) or [indent.rstrip()]


def run_hint(what: str, command: str) -> str:
    """'WHAT, run: COMMAND', saying that a command reading stdin (--from -) needs the same input again."""
    stdin = " --from - " in command + " "
    return "%s, run: %s%s" % (what, command, " (with the same input on stdin)" if stdin else "")


def render_script(plan: Plan) -> str:
    """Only commands and # comments: safe to read, paste, or save and run with the chosen shell."""
    shell = plan.shell
    lines = [SHEBANG[shell], comment("mps-doctor %s fix plan for %s" % (__version__, plan.target_python))]
    lines += comment_block(plan.verdict)
    lines += comment_block("setup: %s. Review before running: nothing here uses sudo or deletes an environment." %
                           plan.setup_summary)
    if plan.empty:
        lines += comment_block(UNFIXABLE) if plan.unfixable else ["# nothing to fix"]
        return "\n".join(lines) + "\n"
    for number, step in enumerate(plan.steps, start=1):
        lines.append("")
        lines.append(comment("%d/%d %s" % (number, len(plan.steps), step.title)))
        lines += comment_block(step.reason, "#   ")
        lines += [spell(cmd, shell) for cmd in step.commands]
    return "\n".join(lines) + "\n"


def render_explained(plan: Plan, again: str = "mps-doctor fix --print-commands") -> str:
    """The plan in words, commands indented under each step, ending with AGAIN: the command that prints it as a
    script."""
    lines = [escaped_line("mps-doctor fix: %s" % plan.verdict), escaped_line("Setup: %s" % plan.setup_summary), ""]
    if plan.empty:
        lines.append(UNFIXABLE if plan.unfixable else "Nothing to fix.")
        return "\n".join(lines) + "\n"
    for number, step in enumerate(plan.steps, start=1):
        lines.append(escaped_line("%d. %s" % (number, step.title)))
        lines += comment_block(step.reason, "   ")
        lines += ["      %s" % spell(cmd, plan.shell) for cmd in step.commands]
        lines.append("")
    lines.append(escaped_line(run_hint("Print these as a %s script" % plan.shell, again)))
    return "\n".join(lines) + "\n"
