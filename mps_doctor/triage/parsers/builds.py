"""Which build of torch a paste shows: conda's build strings, the index a pip install used, and the torch another
library reports ("you have 2.1.0+cpu", Ultralytics' banner)."""

import re
from typing import List, Sequence

from mps_doctor.triage.model import Finding
from mps_doctor.triage.parsers.collect_env import package_finding
from mps_doctor.triage.parsers.common import SENTENCE_END, WINDOWS_SHOWN, Result, python_version, sentence_at
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import cuda_of_label

# `conda list` rows: Anaconda's `_pytorch_select 0.1 cpu_0` (or gpu_0) picks the variant; pytorch's own build string
# names it ("cpu_py37h...", "py3.7_cpu_0", "py3.10_cuda11.8_cudnn8.7.0_0", conda-forge's "cuda118_py310h..."). collect_env
# prints the same rows after "[conda] " (get_conda_packages: "[conda] pytorch 1.10.2 py3.7_cuda10.2_cudnn7.6.5_0 pytorch",
# pytorch#72957).
CONDA_ROW = re.compile(r"^(?:\[conda\]\s+)?(_pytorch_select|pytorch|torch|torchvision|torchaudio)\s+(\d[\w.]*)\s+(\S+)")
CONDA_CUDA = re.compile(r"cuda(\d{2})\.?(\d)")
# PyTorch's indexes, one per build: https://download.pytorch.org/whl/cpu, .../whl/cu121 (pytorch.org/get-started).
INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/)?(cpu|cu(\d{2,3}))\b")
# xFormers' warning: "xFormers was built for: PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cpu)".
YOU_HAVE = re.compile(r"\bPyTorch \S+ with CUDA \d+ \(you have (\d+\.\d+(?:\.\d+)?(?:\+\w+)?)\)")
# The banner Ultralytics prints at every run (ultralytics/utils/torch_utils.py select_device, and YOLOv5's
# utils/torch_utils.py): "Ultralytics YOLOv8.1.3 🚀 Python-3.10.11 torch-2.1.0+cpu CPU (...)", then "CUDA:0 (NVIDIA
# GeForce RTX 3060, 12288MiB)" for each GPU torch sees, or "MPS (Apple M1 Pro)"; YOLOv5 before 6.2 printed no Python:
# "YOLOv5 🚀 2022-4-22 torch 1.11.0+cpu CPU".
ULTRALYTICS = re.compile(r"(?:Ultralytics|YOLOv5)\b.{0,60}? (?:Python-(3\.\d+\.\d+) torch-|torch )(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)"
                         r"(?: (?:CUDA:\d+ \(([^,()]{1,80}), \d+MiB\)|(MPS)\b|(CPU)\b))?")
# A conda command that asks for a CUDA build: `conda install pytorch cudatoolkit=11.3 -c pytorch`, `pytorch-cuda=12.1
# -c nvidia` (pytorch.org's conda commands): the device the user sets up, whichever build conda then resolves.
CONDA_CUDA_REQUEST = re.compile(r"\b(?:conda|mamba|micromamba) (?:install|create)\b[^\n]*?[\s\"'](cudatoolkit|pytorch-cuda)"
                                r"={1,2}(\d+(?:\.\d+)?)\b")
# A conda transaction names each package it installs as `channel/subdir::name-version-build` ("pytorch/linux-64::
# pytorch-nightly-1.2.0.dev20190805+cpu-py3.7_cpu_0") and downloads as `name-version | build` ("pytorch-2.0.0.dev20221216
# |  py3.8_cpu_0"); PyTorch's channel selects the CPU variant with `cpuonly` (once `cpu-only`) and `pytorch-mutex`'s cpu
# build (pytorch.org's conda commands; the pytorch-mutex package of the pytorch channel).
CONDA_PLANNED = re.compile(r"::(pytorch(?:-nightly)?|pytorch-mutex|cpuonly|cpu-only)-(\d[\w.+]*)-(\S+)|"
                           r"(?:^|\s)(pytorch(?:-nightly)?|pytorch-mutex)-(\d[\w.+]*)\s*\|\s*(\S+)")
# People telling that the CPU build is what got installed: "installs CPU version even from a clean environment",
# "observe cpuonly version being installed", "pip installed the cpu-only build", "Torch cpu installed on nvidia system"
# (pytorch#65338, whisperX#983, SD.Next#3476).
CPU_BUILD_TOLD = re.compile(r"\b(?:install(?:s|ed|ing)?|got|gets|getting|pulls|pulled|downloads|downloaded|observe|"
                            r"defaults? to) (?:only )?(?:the |a |only )?\[?(?:cpu|cpu-only|cpuonly|cpu only)\]?[- ]"
                            r"(?:version|build|variant|wheel)s?\b|"
                            # "installed Torch without the CUDA version" (pyTranscriber#56)
                            r"\binstall(?:s|ed|ing)? (?:torch|pytorch) without (?:the )?cuda\b|"
                            # "running the program on my CPU, since I had the wrong version of torch installed"
                            # (whisper-local-transcribe#8): the CPU run blamed on the torch installed
                            r"\bCPU\b[^.\n]{0,40}\b(?:since|because|as) I (?:had|have|installed) (?:the |a )?wrong "
                            r"(?:version of )?(?:py)?torch\b|"
                            r"\b(?:(?:torch|pytorch)[- ](?:cpu|cpu-only|cpuonly) (?:version |build |variant )?|"
                            r"(?:cpu|cpu-only|cpuonly) (?:version|build|variant) )(?:is |was |being |gets |got )?installed\b|"
                            # "the node downloaded a none cuda Torch" (ComfyUI_EchoMimic#4)
                            r"\b(?:install(?:s|ed)?|downloaded|pulled|got) (?:a |the )?(?:non|none)[- ]?cuda "
                            r"(?:torch|pytorch|version|build)\b",
                            re.I)
# A sentence that denies what it tells ("no CPU build got installed", "it wasn't the cpu version that got installed"),
# a line that undoes it ("at first pip installed the CPU version. Then I reinstalled", "a VPS without a GPU, so I
# installed torch without CUDA on purpose"), and a CUDA build shown anywhere (a +cu label, a cuXYZ index) but in an
# install command, which people paste as the fix they found (kyutai-labs/delayed-streams-modeling#131): then a CPU
# build told is no fact. Only the telling's own sentence can deny it: "... downloaded a none cuda Torch and replaced
# the one installed... never good." (ComfyUI_EchoMimic#4). A question tells nothing ("Did pip install the cpu version?").
CLAUSE_BREAK = re.compile(r",? but\b|;", re.I)
DENIED = re.compile(r"\?$|\b(?:no|not|never|n't|instead of|rather than)\b|n't\b", re.I)
# People telling that the install left CUDA out, in a negated sentence DENIED cannot judge: "This installs just fine,
# but doesn't pull in the CUDA dependencies correctly" (sleap-nn#307); not one that a fix or a choice undoes.
CUDA_LEFT_OUT_TOLD = re.compile(r"\b(?:doesn'?t|does not|didn'?t|did not|won'?t|will not) (?:pull|install|get|bring|"
                                r"download)s?(?: in| down)? (?:the |any )?CUDA(?: dependencies| version| build| wheels?| "
                                r"packages?)?\b", re.I)
# A denial in the words just before a telling ("the update has not downgraded my torch to cpu"), where the rest of its
# sentence may deny something else ("... dumbed down torch to no cuda, and check_cuda.py says no cuda", TTS-WebUI#356).
DENIED_JUST_BEFORE = re.compile(r"(?:\b(?:no|not|never)\b|n't\b)[\w ]{0,20}$", re.I)
# The user telling an install of their own ("I installed", "I've used", "I ran").
FIRST_PERSON_INSTALL = re.compile(r"\bI(?: have|'ve)? (?:installed|reinstalled|ran|used)\b")
# People telling that an update swapped their CUDA torch for one without it: "it has dumbed down torch to no cuda"
# (TTS-WebUI#356: the old installer's update replaced the CUDA build).
CUDA_TAKEN_TOLD = re.compile(r"\b(?:dumbed down|downgraded|reverted|replaced|swapped|changed) (?:my |the )?(?:py)?torch "
                             r"(?:back )?to (?:a |the )?(?:no[- ]cuda|cpu(?:[- ]only)?)\b", re.I)
# A fix step that removes a CPU build tells that one was there: "1.2 Uninstall the CPU-only version of PyTorch:"
# (fluxgym#430's own solution), "I uninstalled the cpu version of torch and ...". Read on fix lines too (parser
# UNINSTALLED): what a fix removes is the state before it.
CPU_BUILD_UNINSTALLED = re.compile(r"\buninstall(?:s|ed|ing)?\b[^.\n]{0,30}?\b(?:cpu|cpu-only|cpuonly|cpu only)[- ]"
                                   r"(?:version|build|variant|wheel)s?\b", re.I)
UNINSTALLED = "before-fix"
# A torch without CUDA named as people name it: "torch cpu", "CPU torch", "Torch without CUDA", "a non-CUDA version of
# Torch", conda's `pytorch_cpu` (pyannote-audio#1675, StoryToolkitAI#170, ComfyUI_image2prompt#79); not a file of every
# torch build (Windows' torch\lib\torch_cpu.dll, libtorch_cpu.so).
NO_CUDA_TORCH = (r"(?:(?<![\\/])\b(?:py)?torch[-_ ](?:cpu|cpu-only|cpuonly)\b(?!\.(?:dll|so|dylib|lib|pyd)\b)|"
                 r"\bcpu[- ](?:only )?(?:(?:version|build) of )?(?:py)?torch\b|"
                 r"\b(?:py)?torch (?:version |build )?without (?:the )?cuda\b|"
                 r"\b(?:non|none)[- ]?cuda (?:version |build |variant )?(?:of )?(?:py)?torch\b)")
# An install that replaced a CUDA torch by one without CUDA, the torch without CUDA being what came in: "the torch with
# cuda is removed and torch cpu is installed", "removes Torch with CUDA ... and replaces it with Torch without CUDA",
# "forcing a non-CUDA version of Torch to be installed", "Forcing Downgrade to Non-CUDA Torch"; not "I replaced the CPU
# torch with the CUDA build" nor "swapped the cpu-only torch for the cu118 one". The CUDA build it names, or installed
# first, is the state before it.
REPLACED_BY_CPU_TOLD = re.compile(
    r"\b(?:replac|swapp?|overwr|downgrad)\w*\b[^.\n?]{0,60}?\b(?:with|by|for|to|into) (?:a |an |the )?" + NO_CUDA_TORCH + "|"
    r"\b(?:forc|reinstall)\w* (?:a |an |the )?(?:downgrade to )?" + NO_CUDA_TORCH + "|"
    r"\b(?:remov|uninstall)\w*\b[^.\n?]{0,60}?\band (?:then )?(?:" + NO_CUDA_TORCH + r" (?:is|was|gets|got) installed|"
    r"install\w* (?:a |an |the )?" + NO_CUDA_TORCH + ")", re.I)
# What a replacement told is not: one the user avoided or prevented ("To avoid pip replacing my CUDA torch with torch
# cpu I pinned it").
AVOIDED = re.compile(r"\b(?:avoid|prevent|stop|keep|without)\w*\b[^.\n]{0,30}$", re.I)
# An install verb before a torch without CUDA: "installs CPU torch", "I installed `pytorch_cpu` rather than
# `pytorch_cuda`" (GaussianPretrain#4), "I have the cpu version of pytorch"; not what they had ("I had"), another
# machine's ("we had"), a question without its mark ("How do I know if I have ...") nor "got torch cpu working".
INSTALLED_NO_CUDA_TORCH = re.compile(r"(?<!\bif )(?<!\bwhether )\b(?:install(?:s|ed)?|resolves|resolved|pulls|pulled|downloads|"
                                     r"downloaded|I have) (?:only )?(?:the |a |an )?`?" + NO_CUDA_TORCH, re.I)
# "X rather than Y" denies Y, not X.
CONTRAST_AFTER = re.compile(r"""[`'"]?\s*,?\s*(?:rather than|instead of)\b""", re.I)
UNDONE = re.compile(r"\b(?:at first|earlier|previously|used to|reinstall\w*|fixed|solved|on purpose|intentional\w*|"
                    r"deliberate\w*|without (?:a |any )?GPU)\b", re.I)
CUDA_LABEL = re.compile(r"\+cu\d{2,3}\b|\bcu\d{3}\b", re.I)
INSTALL_COMMAND = re.compile(r"\b(?:pip3?|uv|uvx|conda|mamba|poetry) (?:pip )?(?:install|add|--with)\b|--(?:extra-)?index-url\b")
BUILD_LINE = re.compile(r"^(?:\[conda\]\s+)?(?:_pytorch_select|pytorch|torch(?:vision|audio)?)\s|download\.pytorch\.org/whl/|\(you have "
                        r"| Python-3\.\d+\.\d+ torch-|YOLOv5|"
                        r"::(?:pytorch|cpu)|(?:^|\s)pytorch(?:-nightly|-mutex)?-\d|cpu|without (?:the )?cuda|\bcuda\b", re.M | re.I)


def parse_builds(lines: Sequence[Line]) -> Result:
    """The torch build that conda lists, that a pip install's index gives, or that a library says is installed."""
    out: List[Finding] = []
    p = "build"
    cuda_label_shown = any(CUDA_LABEL.search(line.text) and not INSTALL_COMMAND.search(line.text) for line in lines)
    on_windows = WINDOWS_SHOWN.search(joined(lines)) is not None
    # A CUDA build that an install then replaced is the state before it, not the torch the paste ends with.
    replaced_on = {line.number for line in lines if replaced_by_cpu(line.text)}
    for _, line in matching(lines, BUILD_LINE):
        text = line.text
        row = CONDA_ROW.match(text)
        # Anaconda's `_pytorch_select` row names the variant (its own version, 0.1 or 0.2, is not torch's); a pytorch
        # row names both; a torchvision or torchaudio row names its own version only.
        # Only a row whose third field is a build string ("py_3", "py39_cu113", "pypi_0"), not a sentence that begins
        # with the name ("torchvision 0.15.2 came from requirements.txt", "torch 2.0 introduced compile").
        row = row if row and not line.prompt and re.search(r"[\d_]", row.group(3)) else None
        if row and row.group(1).startswith("torch") and row.group(1) != "torch":
            out += package_finding(row.group(1), row.group(2), line.number, p)
        elif row:
            out += package_finding("torch", row.group(2), line.number, p) if row.group(1) != "_pytorch_select" else []
            cuda = CONDA_CUDA.search(row.group(3))
            if cuda:
                out.append(Finding("torch.cuda_version", "%s.%s" % (cuda.group(1), cuda.group(2)), line.number, p))
            elif re.search(r"(?:^|_)cpu(?:_|$)", row.group(3)):
                out.append(Finding("torch.cuda_version", None, line.number, p))
            elif row.group(3).startswith("pypi") and "+" not in row.group(2) and on_windows:
                # conda lists a pip-installed torch as "pypi_0 pypi": on Windows one without a +cuXYZ label is PyPI's,
                # a CPU build (its win_amd64 wheels' torch/version.py has cuda = None; DiffRhythm#86).
                out.append(Finding("torch.cuda_version", None, line.number, p))
        cpu_told = CPU_BUILD_TOLD.search(text) or INSTALLED_NO_CUDA_TORCH.search(text)
        taken = CUDA_TAKEN_TOLD.search(text)
        replaced = line.number in replaced_on
        told = (cpu_told and not denied(text, cpu_told) or
                taken and not DENIED_JUST_BEFORE.search(text, max(0, taken.start() - 30), taken.start()) or
                CUDA_LEFT_OUT_TOLD.search(text) and on_windows) and not UNDONE.search(text) or replaced
        index = INDEX.search(text)
        if told and index and index.group(1) != "cpu" and FIRST_PERSON_INSTALL.search(text):
            # "I installed with ... --index-url .../cu121 since plain pip installs the cpu version": the CUDA build is
            # the user's, the CPU build what they avoided.
            told = None
        # pip prints "Looking in indexes: https://pypi.org/simple, https://download.pytorch.org/whl/cu121" as it
        # installs from them (pip/_internal/cli/req_command.py). Beside a CPU build told, a CUDA index is the way out
        # ("install ... --index-url .../cu117 before `pip install nougat-ocr` (which otherwise installs only the CPU
        # versions)", nougat#21), not the build installed.
        # An extra index beside PyPI with torch unpinned gives the highest version of either: PyPI's newer torch (a CPU
        # build on Windows) wins over the index's older +cuXYZ (pip's PackageFinder sorts candidates by version across
        # every index; h2ogpt#890: "-r requirements.txt --extra-index-url .../cu117" left "No GPU", a pinned
        # torch==2.0.0+cu117 worked), so the index does not tell the build.
        unpinned_extra = "--extra-index-url" in text and not re.search(r"\btorch==", text)
        if index and re.search(r"\binstall\b|^Looking in indexes:", text) and not (told and index.group(1) != "cpu") and \
                not unpinned_extra and not (replaced_on and index.group(1) != "cpu"):
            out.append(Finding("torch.cuda_version", None if index.group(1) == "cpu" else cuda_of_label(index.group(2)),
                               line.number, p))
            pinned = re.search(r"\btorch==(\d+\.\d+(?:\.\d+)?)(?![\w.+])", text)
            out += package_finding("torch", pinned.group(1), line.number, p) if pinned else []
        asked = CONDA_CUDA_REQUEST.search(text)
        if asked:
            out.append(Finding("request.cuda_build", "%s=%s" % asked.group(1, 2), line.number, p))
        have = YOU_HAVE.search(text)
        if have:
            out += [Finding("torch.version", have.group(1), line.number, p),
                    Finding("torch.installed", True, line.number, p)]
        planned = CONDA_PLANNED.search(text)
        if planned:
            out += planned_findings(*(planned.group(1, 2, 3) if planned.group(1) else planned.group(4, 5, 6)), line.number)
        # PyPI's Linux torch is a CUDA build whose CUDA libraries come as dependencies: there, CUDA left out of an install
        # (`--no-deps`) is a broken CUDA build, not a CPU one; on Windows PyPI's torch has no CUDA at all.
        if replaced and not line.prompt:
            out += [Finding("torch.cuda_version", None, line.number, p), Finding("torch.cuda_replaced", True, line.number, p)]
        elif told and not line.prompt and not cuda_label_shown:
            out.append(Finding("torch.cuda_version", None, line.number, "prose"))
        uninstalled = CPU_BUILD_UNINSTALLED.search(text)
        if uninstalled and not told and not DENIED.search(sentence_at(text, uninstalled)) and not cuda_label_shown:
            out.append(Finding("torch.cuda_version", None, line.number, UNINSTALLED))
        banner = ULTRALYTICS.search(text)
        if banner:
            out += banner_findings(banner, line.number)
    return out, []


def banner_findings(banner: "re.Match", number: int) -> List[Finding]:
    """The facts of Ultralytics' banner: the Python, the installed torch, and the device it chose (a GPU torch sees
    means CUDA is available; MPS means an Apple Silicon Mac)."""
    p = "build"
    out = [Finding("interpreter.version", python_version(banner.group(1)), number, p)] if banner.group(1) else []
    out += [Finding("torch.version", banner.group(2), number, p), Finding("torch.installed", True, number, p)]
    gpu, mps = banner.group(3), banner.group(4)
    if gpu:
        out += [Finding("nvidia_smi.gpu", gpu.strip(), number, p), Finding("torch.cuda_available", True, number, p)]
    if mps:
        out += [Finding("host.system", "Darwin", number, p), Finding("host.hw_arm64", True, number, p),
                Finding("torch.mps_available", True, number, p)]
    return out


def planned_findings(name: str, version: str, build: str, number: int) -> List[Finding]:
    """The torch build of a package a conda transaction installs: pytorch's version and build string (cpu, or the
    CUDA it names), or the CPU variant that cpuonly and pytorch-mutex's cpu build select."""
    p = "build"
    if name in ("cpuonly", "cpu-only") or (name == "pytorch-mutex" and re.match(r"cpu\b", build)):
        return [Finding("torch.cuda_version", None, number, p)]
    if name == "pytorch-mutex":
        return []
    out = package_finding("torch", version.split("+")[0], number, p)
    cuda = CONDA_CUDA.search(build) or re.search(r"\+cu(\d{2})(\d)\b", version)
    if cuda:
        out.append(Finding("torch.cuda_version", "%s.%s" % (cuda.group(1), cuda.group(2)), number, p))
    elif re.search(r"(?:^|_)cpu(?:_|$)", build) or version.endswith("+cpu"):
        out.append(Finding("torch.cuda_version", None, number, p))
    return out


def replaced_by_cpu(text: str) -> bool:
    """Whether the line TEXT tells that an install replaced torch by a build without CUDA, in a sentence that neither
    asks nor denies it."""
    found = REPLACED_BY_CPU_TOLD.search(text)
    return bool(found) and not DENIED_JUST_BEFORE.search(text, max(0, found.start() - 30), found.start()) and \
        not AVOIDED.search(text, max(0, found.start() - 40), found.start()) and \
        not sentence_at(text, found).endswith("?") and not re.search(r"\b(?:fixed|solved|on purpose)\b", text, re.I)


def denied(text: str, told: "re.Match") -> bool:
    """Whether the sentence of the telling TOLD denies it; "X rather than Y" contrasts what follows, not X."""
    if CONTRAST_AFTER.match(text, told.end()):
        start = max((end.end() for end in SENTENCE_END.finditer(text, 0, told.start())), default=0)
        return bool(DENIED.search(text[start:told.start()]))
    # A denial in another clause, before a "but", is of something else: "So this doesn't happen to everyone, but for
    # some people ... it installs the cpu only version" (deforum#132).
    start = max((end.end() for end in SENTENCE_END.finditer(text, 0, told.start())), default=0)
    clause = max((but.end() for but in CLAUSE_BREAK.finditer(text, start, told.start())), default=start)
    rest = text[clause:]
    return bool(DENIED.search(sentence_at(rest, told.re.search(rest) or told)))
