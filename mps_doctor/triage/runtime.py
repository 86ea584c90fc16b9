"""Where the program runs and what its torch sees there: a hosted notebook started without a GPU, and a GPU that the
user's own torch sees and the program's does not."""

import re
from typing import Dict, List, Sequence, Tuple

from mps_doctor.checking.registry import all_checks
from mps_doctor.known_errors import CUDA_REQUIRED, CUDA_UNAVAILABLE_REPORTED, DRIVER_TOO_OLD, NO_GPU_FOR_THE_PROGRAM, Match
from mps_doctor.triage.model import Evidence, Known, value_of
from mps_doctor.triage.text import Line, joined

# A hosted notebook whose runtime has no GPU unless one is chosen: Colab ("Runtime > Change runtime type", Colab's FAQ)
# and Kaggle ("Accelerator", Kaggle's notebook docs), also as people misspell it ("Runtime Error on Google Collab",
# PlantCaduceus#7). Its torch is a CUDA build, so CUDA missing there is the runtime's.
HOSTED_RUNTIME = re.compile(r"\b(Colab|Kaggle)\b|\bGoogle (Collab)\b", re.I)
# "It works on Colab" contrasts the hosted runtime with the machine that fails: that one is not the runtime.
WORKS_THERE = re.compile(r"\b(?:works?|worked|working|fine|runs?)\b[^.\n]{0,30}\b(?:on|in) (?:Google )?(?:Colab|Kaggle)\b|"
                         r"\b(?:on|in) (?:Google )?(?:Colab|Kaggle)\b[^.\n]{0,30}\b(?:works?|worked|fine|runs?)\b", re.I)
HOSTED_KIND = "hosted-runtime-without-gpu"
# "Runtime type is obviously GPU" (colabtools#1685), "(even when GPU runtime is selected)" (DALLE-pytorch#111), "I
# selected the GPU runtime"; not "I forgot to select the GPU runtime".
GPU_RUNTIME_TOLD = re.compile(r"\bruntime(?: type)? (?:is|was) (?:set to |obviously |definitely |already )*(?:a )?GPU\b|"
                              r"(?<!not )(?<!n't )(?<!forgot to )(?<!forget to )\bGPU runtime (?:is |was )?(?:already )?"
                              r"(?:selected|chosen|enabled|on)\b|"
                              r"(?<!not )(?<!n't )(?<!forgot to )(?<!forget to )\b(?:selected|chose|chosen|enabled) "
                              r"(?:a |the )?GPU runtime\b", re.I)
# The source of the evidence below: a verdict that rests on it is one the title may settle.
HOSTED_SOURCE = "hosted"


# An instruction or a question is no telling: the notebook's "Make sure the GPU runtime is selected", "is the GPU
# runtime selected?".
ASKED_TO = re.compile(r"\b(?:make sure|ensure|please|check (?:that|if|whether)|whether|if|should)\b", re.I)


def gpu_runtime_told(text: str) -> bool:
    """Whether TEXT (one line) tells that the hosted runtime has a GPU."""
    found = GPU_RUNTIME_TOLD.search(text)
    return bool(found) and not text.rstrip().endswith("?") and not ASKED_TO.search(text, 0, found.start())


def availability_layers() -> Tuple[str, ...]:
    """The layers that read torch.cuda.is_available() itself."""
    return tuple(s.id for s in all_checks() if "torch.cuda_available" in s.facts)


def cuda_missing_layers() -> Tuple[str, ...]:
    """The layers whose failure means CUDA is missing: the one that reads is_available(), and the one this evidence
    fails."""
    return availability_layers() + tuple(s.id for s in all_checks() if HOSTED_KIND in s.evidence)


def cuda_missing(lines: Sequence[Line], known: Dict[str, Known], matches: Sequence[Match]) -> bool:
    """Whether the paste says torch sees no GPU: is_available() False (as a fact, or `False` printed after a line that
    calls it), or a message that fails a layer meaning CUDA is missing; a job whose GPU works is not one without."""
    printed = "is_available" in joined(lines) and any(
        line.text.strip() == "False" and "is_available" in before.text for before, line in zip(lines, lines[1:]))
    return printed or value_of(known, "torch.cuda_available") is False or any(
        m.error.layer in cuda_missing_layers() or m.error.kind in (CUDA_REQUIRED, CUDA_UNAVAILABLE_REPORTED) for m in matches)


def hosted_runtime_evidence(lines: Sequence[Line], known: Dict[str, Known], matches: Sequence[Match]) -> List[Evidence]:
    """Evidence against the driver layer when the paste runs in a hosted notebook and says CUDA is missing there (a
    runtime started without a GPU: the notebook's own setting, not an install, fixes it)."""
    hosted = next((line for line in lines if HOSTED_RUNTIME.search(line.text) and not WORKS_THERE.search(line.text)), None)
    if hosted is None or not cuda_missing(lines, known, matches):
        return []
    # A runtime told to have a GPU ("Runtime type is obviously GPU"), or a driver torch found too old, has one
    # (colabtools#1685: torch from pip newer than the runtime's driver).
    if any(gpu_runtime_told(line.text) for line in lines) or any(m.error.kind == DRIVER_TOO_OLD for m in matches):
        return []
    name = "Colab" if HOSTED_RUNTIME.search(hosted.text).group(2) else HOSTED_RUNTIME.search(hosted.text).group(1).capitalize()
    return [Evidence(
        (), "the %s runtime has no GPU: CUDA is missing there" % name,
        "The paste runs in a %s notebook and says CUDA is missing." % name,
        "A hosted notebook runtime has a GPU only when one is chosen for it (Colab: Runtime > Change runtime type > a "
        "GPU; Kaggle: Settings > Accelerator > a GPU), and a free quota can run out. Its torch is a CUDA build already: "
        "choose a GPU runtime and restart it, rather than reinstalling torch.",
        (), "https://research.google.com/colaboratory/faq.html", hosted.number, HOSTED_SOURCE, devices=("cuda",),
        kind=HOSTED_KIND)]


def hidden_from_the_program(lines: Sequence[Line], known: Dict[str, Known], matches: Sequence[Match]) -> List[Evidence]:
    """Evidence against CUDA_VISIBLE_DEVICES when the user's own torch sees the GPU (is_available() True, as told or
    run) and the program's message says its torch does not (superpixel_fcn#45: "But my torch.cuda.is_available() is
    True"; the demo script set CUDA_VISIBLE_DEVICES='1' on a one-GPU machine)."""
    if value_of(known, "torch.cuda_available") is not True or "env.CUDA_VISIBLE_DEVICES" in known:
        return []
    said = next((m for m in matches if m.error.kind in (NO_GPU_FOR_THE_PROGRAM, CUDA_UNAVAILABLE_REPORTED) or
                 m.error.layer in cuda_missing_layers()), None)
    if said is None:
        return []
    return [Evidence(
        (), "torch sees the GPU in your own session but not in the program: the program hides it",
        "torch.cuda.is_available() is True where you ran it, and the program's torch finds no GPU.",
        "The same machine's GPU disappears for one process when that process sets CUDA_VISIBLE_DEVICES (research code "
        "often does, e.g. os.environ['CUDA_VISIBLE_DEVICES'] = '1', which hides a machine's only GPU, numbered 0), or when "
        "the program runs another Python, whose torch has no CUDA. Search the program and its launcher for "
        "CUDA_VISIBLE_DEVICES and remove or correct it, and compare `python -c \"import sys; print(sys.executable)\"` "
        "with the Python the program runs.", (), None, lines[said.line - 1].number, HIDDEN_SOURCE, devices=("cuda",),
        kind=HIDDEN_KIND)]


HIDDEN_SOURCE = "hidden-from-the-program"
HIDDEN_KIND = "gpu-hidden-from-the-program"
