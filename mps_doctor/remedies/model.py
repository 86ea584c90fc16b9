"""The fix plan's types: shell-neutral commands, steps with reasons, the plan."""

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Cmd:
    """One shell-neutral command; renderers spell it for zsh, bash or fish.

    kind: run (argv, with optional VAR=value prefixes in env), export (name=value), unset (name),
    activate (a venv folder in value, or a conda env name in name), note (value is printed as a comment only).
    """

    kind: str = "run"
    argv: Tuple[str, ...] = ()
    env: Tuple[Tuple[str, str], ...] = ()
    name: str = ""
    value: str = ""


class InCondaBase(str):
    """A path under the conda installation's base folder when the report does not say where that is: shells spell
    it with `conda info --base` ("Display base environment path", docs.conda.io conda info), never a quoted $VAR."""

    relative: str

    def __new__(cls, relative: str) -> "InCondaBase":
        word = super().__new__(cls, "$(conda info --base)/" + relative)
        word.relative = relative
        return word


def run(*argv: str, env: Tuple[Tuple[str, str], ...] = ()) -> Cmd:
    return Cmd("run", tuple(argv), env)


def export(name: str, value: str) -> Cmd:
    return Cmd("export", name=name, value=value)


def unset(name: str) -> Cmd:
    return Cmd("unset", name=name)


def activate_venv(folder: str) -> Cmd:
    return Cmd("activate", value=folder)


def activate_conda(name: str) -> Cmd:
    return Cmd("activate", name=name)


def note(text: str) -> Cmd:
    return Cmd("note", value=text)


@dataclass(frozen=True)
class Step:
    """One step of the plan: why it is needed and the commands that do it."""

    key: str
    title: str
    reason: str
    commands: Tuple[Cmd, ...]


@dataclass(frozen=True)
class Plan:
    """The ordered steps for one machine, and the setup they were chosen for."""

    steps: Tuple[Step, ...]
    shell: str
    manager: str
    setup_summary: str
    verdict: str
    target_python: str
    new_python: Optional[str] = None

    @property
    def empty(self) -> bool:
        return not self.steps
