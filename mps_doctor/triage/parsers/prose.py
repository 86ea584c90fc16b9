"""Prose: the chip, the macOS, the torch version people write, and wrong results they report."""

import re
from typing import List, Sequence

from mps_doctor.known_errors import intents
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import Result
from mps_doctor.triage.text import Line, joined, matching

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
    return out, wrong_results(lines)


# How people report silent wrong results: "gives the wrong answer on MPS", "random numbers", "# NOT same!",
# "is broken on MPS backend" (pytorch#111634, #81567, #118115, #90635).
WRONG_RESULTS = re.compile(r"\b(?:wrong|incorrect) (?:answer|result|output|value|number)s?\b|\bsome random numbers\b|"
                           r"#\s*NOT same\b|\b(?:is|are) broken on (?:the )?(?:MPS|CUDA)\b|"
                           r"\bdiffer(?:s|ent)? from (?:the )?CPU\b", re.I)


def wrong_results(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against device.parity when the paste reports results on an accelerator that are wrong."""
    text = joined(lines)
    device = next((d for d, pattern in (("mps", r"\bmps\b"), ("cuda", r"\bcuda\b")) if re.search(pattern, text, re.I)), None)
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
