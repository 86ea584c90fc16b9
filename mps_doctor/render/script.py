"""The fix plan as a script for one shell, or explained step by step in words."""

import re
import shlex
import textwrap
from typing import List

from mps_doctor import __version__
from mps_doctor.remedies.model import Cmd, InCondaBase, Plan

SAFE = re.compile(r"^[A-Za-z0-9_./:=@%+,-]+$")
SHEBANG = {"zsh": "#!/usr/bin/env zsh", "bash": "#!/usr/bin/env bash", "fish": "#!/usr/bin/env fish"}


def fish_quote(word: str) -> str:
    """WORD quoted for fish: bare when safe, else single quotes with \\\\ and \\' escaped."""
    if word and SAFE.match(word):
        return word
    return "'" + word.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quote(word: str, shell: str) -> str:
    if isinstance(word, InCondaBase):
        base = "(conda info --base)" if shell == "fish" else '"$(conda info --base)"'
        return base + "/" + quote(word.relative, shell)
    return fish_quote(word) if shell == "fish" else shlex.quote(word)


def spell(cmd: Cmd, shell: str) -> str:
    """One command in SHELL's syntax."""
    if cmd.kind == "note":
        return "# " + cmd.value
    if cmd.kind == "export":
        if shell == "fish":
            return "set -gx %s %s" % (cmd.name, quote(cmd.value, shell))
        return "export %s=%s" % (cmd.name, quote(cmd.value, shell))
    if cmd.kind == "unset":
        return "set -e %s" % cmd.name if shell == "fish" else "unset %s" % cmd.name
    if cmd.kind == "activate":
        if cmd.name:
            return "conda activate %s" % quote(cmd.name, shell)
        if shell == "fish":
            return "source %s" % quote(cmd.value.rstrip("/") + "/bin/activate.fish", shell)
        # The directive tells shellcheck that the file is created by an earlier step.
        return "# shellcheck source=/dev/null\n. %s" % quote(cmd.value.rstrip("/") + "/bin/activate", shell)
    prefix = "".join("%s=%s " % (name, quote(value, shell)) for name, value in cmd.env)
    return prefix + " ".join(quote(word, shell) for word in cmd.argv)


def comment_block(text: str, indent: str = "# ") -> List[str]:
    return [indent + line for line in textwrap.wrap(text, 100 - len(indent))] or [indent.rstrip()]


def render_script(plan: Plan) -> str:
    """Only commands and # comments: safe to read, paste, or save and run with the chosen shell."""
    shell = plan.shell
    lines = [SHEBANG[shell], "# mps-doctor %s fix plan for %s" % (__version__, plan.target_python)]
    lines += comment_block(plan.verdict)
    lines += comment_block("setup: %s. Review before running: nothing here uses sudo or deletes an environment." %
                           plan.setup_summary)
    if plan.empty:
        lines.append("# nothing to fix")
        return "\n".join(lines) + "\n"
    for number, step in enumerate(plan.steps, start=1):
        lines.append("")
        lines.append("# %d/%d %s" % (number, len(plan.steps), step.title))
        lines += comment_block(step.reason, "#   ")
        lines += [spell(cmd, shell) for cmd in step.commands]
    return "\n".join(lines) + "\n"


def render_explained(plan: Plan) -> str:
    """The plan in words, commands indented under each step."""
    lines = ["mps-doctor fix: %s" % plan.verdict, "Setup: %s" % plan.setup_summary, ""]
    if plan.empty:
        lines.append("Nothing to fix.")
        return "\n".join(lines) + "\n"
    for number, step in enumerate(plan.steps, start=1):
        lines.append("%d. %s" % (number, step.title))
        lines += comment_block(step.reason, "   ")
        lines += ["      %s" % spell(cmd, plan.shell) for cmd in step.commands]
        lines.append("")
    lines.append("Print these as a %s script: mps-doctor fix --print-commands" % plan.shell)
    return "\n".join(lines) + "\n"
