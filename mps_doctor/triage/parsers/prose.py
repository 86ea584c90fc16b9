"""Prose: the chip, the macOS, the torch version people write, and wrong results they report."""

import re
from typing import List, Sequence

from mps_doctor.known_errors import intents
from mps_doctor.nvidia import capability_of
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.parsers.people import NVIDIA_NAME, gpu_name
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import version_tuple

PROSE_LINE = re.compile(r"m[1-5]|intel|i386|mac ?os|torch", re.I)
PROSE_TORCH = re.compile(r"\b(?:PyTorch|torch)\s*(?:version\s*)?(?::\s*)?(?:stable\s*\()?v?(\d+\.\d+\.\d+)\b")


def parse_prose(lines: Sequence[Line]) -> Result:
    """What people write about their machine: 'MacBook M1 Pro', 'Apple M2', 'my mac is intel', 'PyTorch 2.5.1',
    'reports platform i386'. Weakest source: any dump or log wins over it."""
    out: List[Finding] = []
    p = "prose"
    for _, line in matching(lines, PROSE_LINE):
        text = line.text
        if re.search(r"\b(?:Apple |MacBook(?: Pro| Air)? |Mac ?mini |iMac |Mac Studio )?M[1-5](?: Pro| Max| Ultra)?\b", text) and \
                re.search(r"\b(?:Apple|Mac|MacBook|macOS|mac)\b|\bM[1-5] (?:Pro|Max|Ultra)\b", text, re.I):
            out += [Finding("host.hw_arm64", True, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:mac(?:book)?(?: \w+)? is (?:an )?intel|intel[- ](?:based )?mac)", text, re.I):
            out += [Finding("host.hw_arm64", False, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:platform|processor)\b[^.]{0,20}\bi386\b", text, re.I):
            out.append(Finding("interpreter.machine", "x86_64", line.number, p))
        if re.search(r"\bOS\W{0,4}:\W{0,4}mac ?OS\b", text, re.I):
            out.append(Finding("host.system", "Darwin", line.number, p))
        torch = PROSE_TORCH.search(text)
        if torch:
            out.append(Finding("packages.torch", torch.group(1), line.number, p))
    return out, wrong_results(lines) + capability_claims(lines)


# How people report silent wrong results: "gives the wrong answer on MPS", "random numbers", "# NOT same!",
# "is broken on MPS backend" (pytorch#111634, #81567, #118115, #90635); in image generation, an image that is only
# noise or black, and "a bug ... with the mps backend" without an error (ComfyUI#4263, #3346).
WRONG_RESULTS = re.compile(r"\b(?:wrong|incorrect|bad|garbage|nonsense|different) (?:answer|result|output|value|number|"
                           r"prediction)s?\b|\bsome random numbers\b|"
                           r"#\s*NOT same\b|\b(?:is|are) broken on (?:the )?(?:MPS|CUDA)\b|"
                           r"\bdiffer(?:s|ent)? from (?:the )?CPU\b|"
                           r"\b(?:image|images|output|picture)s? (?:is|are) (?:just |only |all |pure )?(?:colou?r(?:ed)? |random )?noise\b|"
                           r"\b(?:bug|problem) with (?:torch (?:with|on) )?(?:the )?mps backend\b", re.I)
# The Apple GPU is the accelerator of a paste that names macOS without naming a device.
MAC_NAMED = re.compile(r"\bmac ?os\b|\bsonoma\b|\bsequoia\b|\bventura\b|\bApple M[1-5]\b", re.I)


def wrong_results(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against device.parity when the paste reports results on an accelerator that are wrong."""
    text = joined(lines)
    device = next((d for d, pattern in (("mps", r"\bmps\b"), ("cuda", r"\bcuda\b")) if re.search(pattern, text, re.I)), None)
    device = device or ("mps" if MAC_NAMED.search(text) else None)
    claim = next((line for _, line in matching(lines, WRONG_RESULTS) if WRONG_RESULTS.search(line.text)), None) if device else None
    if claim is None:
        return []
    return [Evidence(
        (), "the paste reports wrong results on %s: a silent correctness bug" % device,
        "Results computed on %s differ from what the CPU gives." % device,
        "Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and are fixed in "
        "later ones: upgrade torch (and macOS), compare with the CPU, and until then compute that operation on the CPU.",
        intents({"install_torch": {}}, {"check_again": {"device": device}}),
        "https://docs.pytorch.org/docs/stable/notes/mps.html", claim.number, "prose", devices=(device,), kind="wrong-results")]


# People retelling a capability limit they were shown: "nothing under CUDA Compute 7.0 can be used" (vLLM#774),
# "requires compute capability 7.0 or higher", "GPUs below compute capability 8.0 are not supported".
CAPABILITY_CLAIM = re.compile(r"\b(?:under|below|less than|lower than|older than|at least|minimum(?: of)?|requires?)\s+"
                              r"(?:(?:CUDA|NVIDIA)\s+)?compute(?:\s+capability)?\s+(\d{1,2}\.\d)\b|"
                              r"\bcompute capability\s+(\d{1,2}\.\d)\s+(?:or (?:higher|above|newer)|is (?:not supported|required))",
                              re.I)


def capability_claims(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against cuda.capability when the paste retells a compute-capability limit the GPU does not meet."""
    claim = next((line for line in lines if "ompute" in line.text and CAPABILITY_CLAIM.search(line.text)), None)
    if claim is None:
        return []
    found = CAPABILITY_CLAIM.search(claim.text)
    needed = found.group(1) or found.group(2)
    # A GPU the paste names that meets the limit is not below it.
    named = [capability_of(gpu_name(m.group(0))) for m in NVIDIA_NAME.finditer(joined(lines))]
    if any(c and version_tuple(c) >= version_tuple(needed) for c in named):
        return []
    return [Evidence(
        (), "the paste says the software needs compute capability %s or newer" % needed,
        "The paste says the software needs a GPU of compute capability %s or newer." % needed,
        "A GPU below the compute capability a build targets cannot run its kernels, whatever the driver. "
        "`nvidia-smi --query-gpu=name,compute_cap --format=csv` prints the GPU's capability: below %s, use a build "
        "or release that still targets it, or another GPU." % needed,
        intents({"run": ["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv"]}),
        "https://developer.nvidia.com/cuda-gpus", claim.number, "prose", devices=("cuda",), kind="capability-limit-retold")]
