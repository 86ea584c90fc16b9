"""Results people report as wrong: silent correctness bugs on an accelerator, and the GTX 16 series' half precision."""

import re
from typing import List, Sequence

from mps_doctor.known_errors import intents
from mps_doctor.triage.model import Evidence
from mps_doctor.triage.parsers.common import MAC_BY_NAME
from mps_doctor.triage.text import Line, joined

# How people report silent wrong results: "gives the wrong answer on MPS", "random numbers", "# NOT same!",
# "is broken on MPS backend" (pytorch#111634, #81567, #118115, #90635); in image generation, an image that is only
# noise or black, shapes instead of a picture, and "a bug ... with the mps backend" without an error (ComfyUI#4263,
# #3346, #3076).
WRONG_RESULTS = re.compile(r"\b(?:wrong|incorrect|bad|garbage|nonsense|different) (?:answer|result|output|value|number|"
                           r"prediction|key ?point|detection|mask|embedding|logit)s?\b|\bsome random numbers\b|"
                           r"#\s*NOT same\b|\b(?:is|are) broken on (?:the )?(?:MPS|CUDA)\b|"
                           r"\bdiffer(?:s|ent)? from (?:the )?CPU\b|"
                           r"\b(?:image|images|output|picture)s? (?:is|are) (?:just |only |all |pure )?(?:colou?r(?:ed)? |random )?noise\b|"
                           r"\b(?:bug|problem) with (?:torch (?:with|on) )?(?:the )?mps backend\b|"
                           # "now I can only render strange shapes", "odd, blob-like images" (ComfyUI#3076)
                           r"\b(?:strange|odd|weird|garbled|distorted|blob-like) (?:shapes|blobs|images|pictures)\b|"
                           # "'mps' showed the different losses from those of 'cpu'" (LLMs-from-scratch#791), "it
                           # starts creating gibberish" (pytorch#95448)
                           r"\b(?:different|wrong) (?:loss(?:es)?|accuracy|accuracies) (?:\w+ ){0,3}?(?:from|than)\b|"
                           r"\b(?:creat|generat|produc|output|print|spitt?)\w* (?:only |just )?(?:gibberish|garbage|nonsense)\b|"
                           # "produces completely corrupted output" (pytorch#187280)
                           r"\bcorrupt(?:ed)? (?:output|image|result|picture)s?\b",
                           re.I)
# The accelerator's result against the CPU's: "the result is noisy point if use GPU, it is normal if use CPU"
# (easydiffusion#1187). Each word is tied to its device within one clause (no comma or full stop between), so "wrong on
# CPU, on MPS it is correct" and "the MPS result is identical, nothing wrong there" are not it.
BAD = r"(?<!nothing )(?<!not )(?<!no )\b(?:noisy|noise|black|garbage|garbled|wrong|incorrect|nonsense|gibberish|corrupt\w*)\b"
GOOD = r"(?<!not )\b(?:normal|correct|fine|right|good)\b"
CLAUSE = r"[^.,;\n]{0,30}"
ACCELERATOR_BAD = re.compile(r"\b(?:GPU|MPS|CUDA)\b%s%s|%s%s\b(?:GPU|MPS|CUDA)\b" % (CLAUSE, BAD, BAD, CLAUSE), re.I)
CPU_GOOD = re.compile(r"\bCPU\b%s%s|%s%s\bCPU\b" % (CLAUSE, GOOD, GOOD, CLAUSE), re.I)


def accelerator_worse_than_cpu(text: str) -> bool:
    """Whether the line TEXT says the accelerator's result is bad where the CPU's is right."""
    return bool(ACCELERATOR_BAD.search(text)) and bool(CPU_GOOD.search(text))


# A line about running on the CPU alone, whose "bad result" is the slow CPU, not a wrong number ("I can use pytorch just
# with CPU features but is a bad result", pytorch#14681); not one that names the accelerator's result beside it ("Only
# on CPU the output is correct, on MPS I get wrong results", review14 H8).
CPU_ALONE = re.compile(r"^(?!.*\b(?:MPS|CUDA|GPU)\b).*(?:\b(?:only|just)\b[^.\n]{0,20}\bCPU\b|\bCPU[- ]only\b)", re.I)
# Wrong results that are past ("the weird images ... are gone since I upgraded to 2.3.0").
GONE = re.compile(r"\b(?:(?:are|is|were|was) gone|went away|no longer|not anymore|(?:got |been )?(?:fixed|resolved|solved))\b",
                  re.I)


# The GeForce GTX 16 series (Turing without tensor cores: GTX 1650, 1660, 1660 Ti, 1660 Super) gives NaN in half
# precision under torch's CUDA 11 builds while CUDA 10.2's were right ("FP16 inference with Cuda 11.1 returns NaN on
# Nvidia GTX 1660", pytorch#58123; 1.10.0+cu113 wrong and +cu102 right on a GTX 1650 and a 1660 Super, #69449): AMP
# and FP16 inference give NaN losses, no detections or black images (ultralytics/yolov5#5924, #7908).
GTX_16 = re.compile(r"\bGTX ?16(?:50|60|xx)(?: ?(?:Ti|Super))?\b", re.I)
HALF_PRECISION_SIGN = re.compile(r"\b(?:are|is|become|becomes|became|gives?|returns?|got|get|all|of) NaNs?\b|\bNaN (?:loss|losses|"
                                 r"values?|outputs?|tensors?|results?)\b|\(?no detections\)?|\bblack (?:images?|outputs?|"
                                 r"pictures?)\b", re.I)
HALF_PRECISION_NAMED = re.compile(r"\b(?:fp16|float16|half(?:[- ]precision)?|amp|autocast|mixed[- ]precision)\b|--half\b", re.I)
# The GPU against the CPU: "when I use CPU ... everything works fine", "only happens on GTX1660ti devices".
GPU_ALONE_WRONG = re.compile(r"\bCPU\b[^.\n]{0,80}\b(?:works?|worked|fine|correct|right|no problem)\b|"
                             r"\bonly (?:happens )?(?:on|with) (?:the |my )?(?:GTX|GPU)", re.I)
# Not the GPU's half precision: full precision told, the CPU wrong too, the user's own hyperparameters.
NOT_HALF_PRECISION = re.compile(r"\bFP32\b|\bfloat32\b|\bno AMP\b|\bwithout AMP\b|(?:same|also)[^.\n]{0,30}\bon (?:the )?CPU\b|"
                                r"\bon the CPU (?:too|as well)\b|\blearning rate\b", re.I)
PROGRAM_ERROR = re.compile(r"\bTraceback\b|\b\w+(?:Error|Exception):")


def half_precision_on_gtx16(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against device.parity when a paste names a GTX 16 GPU and NaN, no detections or black images in half
    precision, or on the GPU alone, or with no error beside them; never where full precision or the CPU is wrong too."""
    text = joined(lines)
    gpu = next((line for line in lines if GTX_16.search(line.text)), None)
    sign = next((line for line in lines if HALF_PRECISION_SIGN.search(line.text) and not GONE.search(line.text)), None)
    if gpu is None or sign is None or NOT_HALF_PRECISION.search(text):
        return []
    if not (HALF_PRECISION_NAMED.search(text) or GPU_ALONE_WRONG.search(text)) and PROGRAM_ERROR.search(text):
        return []
    return [Evidence(
        (), "the %s gives NaN or empty results in half precision: a known fault of the GTX 16 series" %
        GTX_16.search(gpu.text).group(0),
        "The GTX 16 series returns NaN in half precision (FP16, AMP) under torch's CUDA 11 builds, so losses become NaN, "
        "detections disappear or images come out black, while the CPU and other GPUs are right.",
        "Run the model in full precision (FP32) on this GPU: turn AMP and half precision off in the program (YOLOv5: "
        "amp=False, no --half; Stable Diffusion web UIs: --precision full --no-half). pytorch#58123 and #69449 report it under "
        "the CUDA 11 builds (CUDA 10.2's were right).", (), "https://github.com/pytorch/pytorch/issues/58123",
        sign.number, "prose", devices=("cuda",), kind="wrong-results")]


def wrong_results(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against device.parity when the paste reports results on an accelerator that are wrong."""
    text = joined(lines)
    device = next((d for d, pattern in (("mps", r"\bmps\b"), ("cuda", r"\bcuda\b")) if re.search(pattern, text, re.I)), None)
    # The Apple GPU is the accelerator of a paste that names a Mac without naming a device.
    device = device or ("mps" if MAC_BY_NAME.search(text) else None)
    # Wrong results are silent: a line that carries an exception ("RuntimeError: incorrect number of dimensions") is
    # a failure, not one.
    claim = next((line for line in lines if (WRONG_RESULTS.search(line.text) or accelerator_worse_than_cpu(line.text)) and
                  not GONE.search(line.text) and not PROGRAM_ERROR.search(line.text) and not CPU_ALONE.search(line.text)),
                 None) if device else None
    if claim is None:
        return []
    return [Evidence(
        (), "the paste reports wrong results on %s: a silent correctness bug" % device,
        "Results computed on %s differ from what the CPU gives." % device,
        "Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and are fixed in "
        "later ones: upgrade torch (and macOS), compare with the CPU, and until then compute that operation on the CPU.",
        intents({"install_torch": {}}, {"check_again": {"device": device}}),
        "https://docs.pytorch.org/docs/stable/notes/mps.html", claim.number, "prose", devices=(device,), kind="wrong-results")]
