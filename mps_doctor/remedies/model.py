"""The fix plan's types: steps (commands from the checks' remedies, with the checks they fix) and the plan."""

from dataclasses import dataclass
from typing import Optional, Tuple

from mps_doctor.checking.model import Cmd


class InCondaBase(str):
    """A path under the conda installation's base folder when the report does not say where that is: shells spell
    it with `conda info --base` ("Display base environment path", docs.conda.io conda info), never a quoted $VAR."""

    relative: str

    def __new__(cls, relative: str) -> "InCondaBase":
        word = super().__new__(cls, "$(conda info --base)/" + relative)
        word.relative = relative
        return word


@dataclass(frozen=True)
class Step:
    """One step of the plan: why it is needed, the commands that do it, and the ids of the results it fixes."""

    key: str
    title: str
    reason: str
    commands: Tuple[Cmd, ...]
    fixes: Tuple[str, ...] = ()


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
    # A check failed that no step can fix (a CUDA-only package on a Mac): the plan is empty, but not "nothing to fix".
    unfixable: bool = False

    @property
    def empty(self) -> bool:
        return not self.steps

    def steps_fixing(self, result_id: str) -> Tuple[Step, ...]:
        """The steps that fix the result RESULT_ID, in plan order."""
        return tuple(step for step in self.steps if result_id in step.fixes)
