"""Facts as people write them: issue-template fields ("### OS" then "Windows", "- OS (e.g., Linux): Windows 10"),
and versions in their own words ("macOS 14.6.1", "Mac OS Sonoma 14.5", "Macosx M1 14.6.1 (23G93)", "Python 3.10.11",
"Windows 11", "CentOS 7")."""

import re
from typing import Iterator, List, Optional, Sequence, Tuple

from mps_doctor.nvidia import capability_of
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.collect_env import package_finding
from mps_doctor.triage.parsers.common import LINUX_WORDS, Result, python_version
from mps_doctor.triage.parsers.install import x86_64_python_on_mac
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.words import shorten

# The fields of the issue templates of PyTorch (`- OS (e.g., Linux):`, bug-report.yml), InvokeAI, ComfyUI,
# LLaMA-Factory and others (GitHub issue forms print each field as `### Label`, a blank line, then the answer).
FIELD_KINDS = (
    ("os", re.compile(r"(?:OS|Operating system|Platform|OS version|System)(?: and version| version)?|"
                      r"System info(?:rmation)?|(?:系统平台|操作系统|系统)(?:版本号?)?", re.I)),
    ("python", re.compile(r"Python(?: version| ?版本)?", re.I)),
    ("torch", re.compile(r"(?:PyTorch|torch)(?: version| ?版本)?", re.I)),
    ("gpu", re.compile(r"GPU(?: vendor| type| models?| models and configuration| ?型号)?|Graphics card|Device|Accelerator|"
                       r"CUDA/cuDNN version|显卡(?:型号)?", re.I)),
    # "- PyTorch CUDA build: None", "- NVIDIA driver: 580.88" (lerobot#4093's hand-made environment list).
    ("torch_cuda", re.compile(r"(?:PyTorch|torch) CUDA(?: build| version)?", re.I)),
    ("driver", re.compile(r"(?:NVIDIA |GPU )?driver(?: version)?", re.I)),
)
HEADING = re.compile(r"^#{2,4} +([^\n#]{1,60}?)\s*$", re.M)
# "- OS (e.g., Linux): Windows 10 2004": the key, an example in parentheses the template gives, the answer.
BULLET = re.compile(r"^[-*] +([A-Za-z][\w /]{0,40}?)(?: *\([^)\n]{0,40}\))? *: *(\S[^\n]*)$", re.M)


TEMPLATE_EXAMPLE = re.compile(r"[\[(]?\s*(?:e\.g\.|eg\.|e\.g,|for example|example:)", re.I)


def field_kind(label: str) -> Optional[str]:
    """Which field a template LABEL is (os, python, torch, gpu), or None."""
    return next((kind for kind, pattern in FIELD_KINDS if pattern.fullmatch(label.strip())), None)


def template_fields(lines: Sequence[Line]) -> Iterator[Tuple[str, str, Line]]:
    """(kind, answer, line) of every template field the paste fills: an issue form's heading and the first line under
    it, and a bullet `- Key (e.g., ...): answer`."""
    for index, line in matching(lines, HEADING):
        kind = field_kind(HEADING.match(line.text).group(1))
        answer = next((later for later in lines[index + 1:index + 4] if later.text), None) if kind else None
        if answer is not None and not answer.text.startswith("#"):
            yield kind, answer.text, answer
    for _, line in matching(lines, BULLET):
        bullet = BULLET.match(line.text)
        kind = field_kind(bullet.group(1)) if bullet else None
        answer = bullet.group(2).strip().strip("`'\"").strip() if kind else ""
        # An answer in inline code or quotes ("- Python: `3.12.13`") is the same answer; the template's own example
        # left unfilled ("- OS: [e.g. Windows 10]", chaiNNer#794) is none.
        if kind and not TEMPLATE_EXAMPLE.match(answer):
            yield kind, answer, line


MAC_NAMES = r"mac ?os ?x?|osx|os x|darwin|sonoma|ventura|sequoia|monterey|big sur|tahoe|catalina"
MAC_WORD = re.compile(r"\b(?:%s)\b" % MAC_NAMES, re.I)
# "macOS 14.6.1", "Mac OS Sonoma 14.5", "Macosx M1 14.6.1", "macOS: 15.1": up to three words between the name and the
# version. macOS numbers its releases 10.x to 15.x, then 26 (Apple, macOS Tahoe 26).
MAC_VERSION = re.compile(r"\b(?:%s)\b(?:[ ,]+[^\W\d]\w*){0,3}?[ :：,]*v?(1[0-5]|26)\.(\d{1,2})(?:\.(\d{1,2}))?\b(?![.\d]*\+)"
                         % MAC_NAMES, re.I)
# A requirement (torch's "supported on MacOS 13.0+", "requires macOS 14 or later"), not the user's macOS.
REQUIREMENT = re.compile(r"\+|\bor (?:newer|later|above|higher)\b|\brequires?\b|\bsupported on\b|\bonly\b", re.I)
WINDOWS = re.compile(r"\bWindows(?: (?:1[01]|7|8(?:\.1)?|Server)\b|\b)|\bwin(?:10|11|32|64)\b", re.I)
LINUX = re.compile(LINUX_WORDS, re.I)
# "Python 3.10.11", "Python版本：3.10.11", "Python version: 3.11", "I have Python 3.11": a bare "Python 3.11" in a
# sentence may be any Python, so two numbers need a label or a verb of having.
PYTHON = re.compile(r"\bPython ?(?:version|版本)? ?[:：=] ?(3\.\d{1,2}(?:\.\d{1,2})?)\b|\bPython version (3\.\d{1,2}(?:\.\d{1,2})?)\b|"
                    r"\b(?:using|have|with|running|on|use|installed) Python ?(3\.\d{1,2}(?:\.\d{1,2})?)\b|"
                    r"\bPython +(3\.\d{1,2}\.\d{1,2})\b|"
                    # SD.Next's and kohya_ss's setup logs: "Python: version=3.12.7 platform=Windows", "Python version is
                    # 3.11.2 (main, ...)" (installer.py, setup_common.py).
                    r"\bPython: version=(3\.\d{1,2}\.\d{1,2})\b|\bPython version is (3\.\d{1,2}\.\d{1,2})\b", re.I)
# A 32-bit Python or Windows in people's words ("Windows10 32bit", "32-bit Python 3.7", "python 3.8 (32 bit)"): a
# 32-bit Windows runs only 32-bit Pythons, and torch publishes no 32-bit wheels (pytorch#149823, #27815).
THIRTY_TWO_BIT = re.compile(r"\b(?:Windows ?(?:7|8|8\.1|10|11)?|Python ?(?:3(?:\.\d{1,2}){0,2})?) ?[(,]? ?32[- ]?bits?\b"
                            r"(?![- ]?(?:precision|float|floating|int|integer|tensor|weights|mode|colou?r|audio|depth))|"
                            r"\b32[- ]?bits? (?:Windows|Python|version of Python|OS)\b", re.I)
# A system named as a line of its own in a list of one's setup ("Windows 11", "- Ubuntu 22.04") or after a word for
# the machine ("My setup: Windows 10, NVidia RTX 2070").
SYSTEM_LINE = re.compile(r"(?:^\W{0,4}|\b(?:setup|system|machine|PC|laptop|computer|server|OS)\s*[:：]\s*)"
                         r"(?:Windows (?:1[01]|7|8(?:\.1)?)\b|(?:Ubuntu|Debian|CentOS|Fedora) ?\d[\d.]*\b)[^\w\n]{0,3}(?:[,;(]|$)", re.I)
# A user who writes from a Mac: "on my Mac", "is mac actually supported?", "from a MacBook".
ON_A_MAC = re.compile(r"\b(?:on|using|from|with|my) (?:my |an? )?mac(?:book\w*)?\b|\bis mac (?:actually |really )?supported\b",
                      re.I)
# A report's own fields (QGIS AI Segmentation's error report: "OS: darwin (Darwin 25.2.0)", "Architecture: x86_64",
# AI-Segmentation#166): the system, and the machine its Python runs as (platform.machine(), x86_64 under Rosetta).
OS_FIELD_DARWIN = re.compile(r"^\W{0,4}(?:OS|System|Platform)[ \t]*[:：][ \t]*(?:darwin|macOS)\b", re.I | re.M)
MACHINE_FIELD = re.compile(r"^\W{0,4}(?:Architecture|Arch|Machine|platform\.machine\(\))\s*[:=]\s*`?(x86_64|arm64)`?\s*$",
                           re.I | re.M)
# A CUDA build people name ("no .whl packages for torch 1.12.1+cu113"): the build they want.
CUDA_BUILD = re.compile(r"\b(?:torch|pytorch)[ =]=?v?(\d+\.\d+(?:\.\d+)?\+cu\d{2,3})\b", re.I)
# An NVIDIA GPU as people name it ("RTX 4090", "GeForce GTX 1060", "RTX 3080 Ti", "A100"); kept only when NVIDIA's
# table knows it (data/nvidia.json), so "RTX" alone or a model number that is not a GPU is no fact.
# Bounded by what is not a Latin letter or digit, so that a name beside CJK text ("8张A100") is read.
# Not a series ("RTX 5000 series" is the GeForce 50 series, not the RTX 5000 workstation card). People write the prefix
# in lower case too ("I have mobile rtx 3060 (6gb)", Retrieval-based-Voice-Conversion-WebUI#618).
NVIDIA_NAME = re.compile(r"(?<![A-Za-z0-9])(?:(?:NVIDIA )?(?:GeForce )?(?:RTX|GTX|rtx|gtx) ?\d{3,4}(?: Ti| SUPER)?|"
                         r"GeForce \d{3,4}(?:M| ?T[iI])?|(?:Tesla |NVIDIA )?[AHLTV]\d{2,3})(?![A-Za-z0-9])(?![- ]?[Ss](?:eries|ERIES)\b)")
# A GeForce named by its number alone beside a word for a GPU or its memory, or as what someone has ("有4080显卡", "my
# 3060 card", "My gpu in this setup is a 1060 6gb", "I have a 3060 and a core i9"): NVIDIA sells the 10 and 16 series
# as GTX and the 20 series on as RTX.
GEFORCE_NUMBER = r"((?:10[5-8]|16[56]|20[6-8]|30[5-9]|40[6-9]|50[6-9])0)( ?Ti| SUPER)?(?! ?(?:MB|MiB|GB|GiB|MHz|x\d|p\b))"
BARE_GEFORCE = re.compile(r"(?<![A-Za-z0-9.])%s(?=\s?(?:显卡|(?:graphics |video )?card\b|GPU\b|\d{1,2} ?GB\b))|"
                          r"\b(?:GPU|graphics card|video card)\b[^.\n]{0,24}?\b(?:is|:) (?:an? |the )?%s(?![A-Za-z0-9.])|"
                          r"\b(?:I have|I've got|I got|I'm using|I am using|I use|with) an? %s(?![A-Za-z0-9.])|"
                          # "Where can I activate GPU 0? (4090)" (diamond#9)
                          r"\b(?:GPU|graphics card|video card)\b[^.\n(]{0,12}\(%s\)"
                          % (GEFORCE_NUMBER, GEFORCE_NUMBER, GEFORCE_NUMBER, GEFORCE_NUMBER), re.I)
PEOPLE_LINE = re.compile(r"rtx|gtx|geforce|nvidia|tesla|gpu|card|显卡|\ban? [1-5]0[5-9]0\b|(?<![A-Za-z0-9])[AHLTV]\d{2,3}(?![A-Za-z0-9])|"
                         r"torch|mac|osx|os x|darwin|sonoma|ventura|sequoia|monterey|big sur|tahoe|catalina|windows|win\d|"
                         r"linux|ubuntu|debian|centos|fedora|rhel|rocky|alma|suse|manjaro|wsl|python", re.I)


def gpu_name(text: str) -> str:
    """A GPU's name as NVIDIA writes it: "RTX3080" or "rtx 3080", as people often write it, is "RTX 3080", and a GeForce of the 10
    series on named without its prefix ("GeForce 4070TI") is its GTX or RTX ("RTX 4070 Ti")."""
    series = re.fullmatch(r"GeForce " + GEFORCE_NUMBER, text, re.I)
    if series:
        number, suffix = series.group(1), (series.group(2) or "").strip()
        return "%s %s%s" % ("GTX" if number[:2] in ("10", "16") else "RTX", number, " Ti" if suffix.lower() == "ti" else
                            " SUPER" if suffix else "")
    return re.sub(r"\b(RTX|GTX|rtx|gtx) ?(?=\d)", lambda prefix: prefix.group(1).upper() + " ", text)


# A GeForce series as people name it: "all RTX 50 Series card have same issues" (ultimatevocalremovergui#1752), "SM_120
# error on RTX 5000 series" (Applio#969).
GEFORCE_SERIES = re.compile(r"\b(RTX|GTX) ?([1-5]0)(?:00)?[- ]?series\b", re.I)
# A GPU that is not the person's own now: one they had before ("I upgraded from a RTX 3090", "I sold my RTX 5090",
# "我之前用的是 RTX 5090") or someone else's ("on my friend's RTX 5090").
# Another person's: "my friend's", "a colleague's".
SOMEONE_ELSES = r"(?:friend|colleague|coworker|co-worker|teammate|brother|sister|wife|husband|son|daughter)'?s"
FORMER_GPU = re.compile(r"(?:\b(?:upgrad\w* from|switch\w* from|replac\w*|previous(?:ly)?|old|former|used to have|sold|"
                        r"" + SOMEONE_ELSES + r")\s+(?:an? |my |the |our |his |her )?|"
                        r"(?:之前|以前|原来)(?:用的是|的|是)?\s*)$", re.I)


def named_gpu(text: str) -> str:
    """The NVIDIA GPU that a person's TEXT names as theirs (a name, a GeForce number, a series in a statement), or ''."""
    start = 0
    for gpu in NVIDIA_NAME.finditer(text):
        if not FORMER_GPU.search(text[start:gpu.start()]):
            return gpu_name(gpu.group(0))
        start = gpu.end()
    if NVIDIA_NAME.search(text):
        return ""
    series = GEFORCE_SERIES.search(text) if "?" not in text else None
    return bare_geforce(text) or ("%s %s series" % (series.group(1).upper(), series.group(2)) if series else "")


def bare_geforce(text: str) -> str:
    """The GeForce that TEXT names by its number alone ("4080显卡" is "RTX 4080"), or ''."""
    found = BARE_GEFORCE.search(text)
    if not found:
        return ""
    groups = found.groups()
    number, suffix = next((groups[i], groups[i + 1]) for i in range(0, len(groups), 2) if groups[i])
    return "%s %s%s" % ("GTX" if number[:2] in ("10", "16") else "RTX", number, suffix or "")


def system_facts(text: str, number: int, parser: str) -> List[Finding]:
    """The operating system (and macOS version) that TEXT names, as the user's own: nothing for a requirement."""
    mac = MAC_VERSION.search(text)
    if mac and not REQUIREMENT.search(text, mac.start()):
        version = ".".join(group for group in mac.groups() if group is not None)
        return [Finding("host.system", "Darwin", number, parser), Finding("host.macos_version", version, number, parser)]
    if parser == "template" and MAC_WORD.search(text):
        return [Finding("host.system", "Darwin", number, parser)]
    if WINDOWS.search(text) and not MAC_WORD.search(text):
        return [Finding("host.system", "Windows", number, parser)]
    if LINUX.search(text) and not MAC_WORD.search(text) and not REQUIREMENT.search(text):
        return [Finding("host.system", "Linux", number, parser)]
    return []


# People telling that the program does not work with their Python: "Webui not working with Python 3.12"
# (stable-diffusion-webui#15667), "installation if Python higher then 3.11" (InvokeAI#6377), "Python 3.13 is not
# supported", "later versions of Python not being compatible". Projects pin torch releases that have no wheels for
# Pythons newer than they were made for, so their maintainers answer with the Python the project documents.
PYTHON_BLAMED = re.compile(
    r"\b(?:not|n't|never) (?:work\w*|compatible|supported|run\w*|start\w*|install\w*) (?:with|on|under|for|in|using) "
    r"(?:the )?python ?v?(3\.\d{1,2})\b(?!\+)|"
    r"\bpython ?v?(3\.\d{1,2})(?:\.\d{1,2})? (?:is |was |are )?(?:not (?:yet )?(?:supported|compatible)|unsupported|"
    r"incompatible|too new)\b|"
    r"\bpython (?:is |was )?(?:higher|newer|greater|above|later) th[ae]n (3\.\d{1,2})\b|"
    r"\b(?:later|newer|higher) versions? of python (?:\w+ ){0,3}not (?:being )?compatible\b", re.I)
PYTHON_BLAMED_KIND = "python-blamed"
# A line that clears the Python: "This is not a Python issue", "not with 3.12 either", several Pythons tried.
PYTHON_CLEARED = re.compile(r"\bnot (?:a |the )?python(?: version)? (?:issue|problem)\b|\bpython (?:is|isn'?t) not the "
                            r"(?:issue|problem)\b|\beither\b", re.I)
# A program's own words, which the catalogue reads ("RuntimeError: Dynamo is not supported on Python 3.12+").
PROGRAM_OUTPUT = re.compile(r"\b\w*(?:Error|Exception|Warning)\b:|^\s*(?:raise|File|Traceback)\b|\bwarn\(")


def python_blamed(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against the Python's version when the paste says the program does not work with it (not a question)."""
    line = next((line for line in lines if PYTHON_BLAMED.search(line.text) and not line.text.rstrip().endswith("?") and
                 not line.prompt and not PROGRAM_OUTPUT.search(line.text) and not PYTHON_CLEARED.search(line.text) and
                 len(set(re.findall(r"\b3\.\d{1,2}\b", line.text))) < 2), None)
    if line is None:
        return []
    found = PYTHON_BLAMED.search(line.text)
    version = next((group for group in found.groups() if group), None)
    above = found.group(3) is not None
    named = ("a Python newer than %s" % version) if above else ("Python %s" % version) if version else "a newer Python"
    return [Evidence(
        (), "the paste says the program does not work with %s" % named,
        "The program fails with %s, as the paste says." % named,
        "Programs pin the torch releases they were made for, and an older torch has no wheels for a newer Python, so its "
        "install fails there. Create the program's environment with the Python it documents (its README or installer "
        "names the version), rather than changing the system's Python.",
        (), None, line.number, "prose", kind=PYTHON_BLAMED_KIND)]


def parse_people(lines: Sequence[Line]) -> Result:
    """Template fields and what people write about their system and Python."""
    out: List[Finding] = []
    gpu_fields = set()
    # A ROCm build's torch.version.cuda is None too: AMD's GPUs run torch.cuda through HIP (pytorch.org, ROCm).
    rocm = any(re.search(r"\brocm|\bHIP\b", line.text, re.I) for line in lines)
    for kind, answer, line in template_fields(lines):
        gpu_fields.update([line.number] if kind == "gpu" else [])
        if kind == "os":
            out += system_facts(answer, line.number, "template")
        elif kind == "python":
            version = python_version(re.sub(r"^(?:Python|CPython)\s*", "", answer, flags=re.I))
            out += [Finding("interpreter.version", version, line.number, "template")] if version else []
        elif kind == "gpu" and capability_of(answer):
            # A GPU NVIDIA's tables know ("RTX 5080" in InvokeAI's "### GPU model"): its name, not the rest of the
            # answer, is a fact.
            named = NVIDIA_NAME.search(answer)
            out.append(Finding("nvidia_smi.gpu", gpu_name(named.group(0)) if named else shorten(answer.strip(), 80),
                               line.number, "template"))
        elif kind == "torch":
            # A pre-release names its release: "1.0preview" (pytorch#13536), "2.6.0rc1", "2.1.0.dev20230801".
            found = re.match(r"v?(\d+\.\d+(?:\.\d+)?(?:\+\w+)?)(?:\b|(?=(?:a|b|rc|pre|preview|dev|nightly)\w*$))", answer)
            out += package_finding("torch", found.group(1), line.number, "template") if found else []
        elif kind == "torch_cuda" and re.fullmatch(r"None|\d{1,2}\.\d{1,2}", answer) and not rocm:
            out.append(Finding("torch.cuda_version", None if answer == "None" else answer, line.number, "template"))
        elif kind == "driver" and re.fullmatch(r"\d{3}\.\d{1,3}(?:\.\d{1,3})?", answer):
            out.append(Finding("nvidia_smi.driver_version", answer, line.number, "template"))
    evidence: List[Evidence] = []
    on_mac = OS_FIELD_DARWIN.search(joined(lines)) is not None
    # Only beside the report's own macOS: elsewhere an "Architecture:" row is often lscpu's, the CPU's (collect_env).
    for _, line in matching(lines, MACHINE_FIELD) if on_mac else ():
        machine = MACHINE_FIELD.search(line.text).group(1).lower()
        out.append(Finding("interpreter.machine", machine, line.number, "template"))
        if machine == "x86_64" and not evidence:
            evidence.append(x86_64_python_on_mac(line.number, "template", "The report says its Python runs as x86_64 on macOS."))
    for _, line in matching(lines, PEOPLE_LINE):
        if line.prompt or line.text.startswith(("File ", "Traceback")):
            continue
        # Windows and Linux named in passing ("wheels for win_amd64 and Linux") are not the user's: only a macOS
        # with its version, or a sentence about the user's own machine, is read from prose.
        mac = MAC_VERSION.search(line.text)
        if mac and not REQUIREMENT.search(line.text, mac.start()):
            out += system_facts(line.text, line.number, "prose")
        elif re.search(r"\b(?:on|using|running|with|my|have)\s+(?:a\s+|an\s+)?(?:%s|%s)" % (WINDOWS.pattern, LINUX.pattern),
                       line.text, re.I) and not REQUIREMENT.search(line.text):
            out += system_facts(line.text, line.number, "prose")
        elif SYSTEM_LINE.search(line.text):
            out += system_facts(SYSTEM_LINE.search(line.text).group(0), line.number, "prose")
        elif ON_A_MAC.search(line.text) or OS_FIELD_DARWIN.search(line.text):
            out.append(Finding("host.system", "Darwin", line.number, "prose"))
        name = named_gpu(line.text)
        if name and capability_of(name) and line.number not in gpu_fields:
            out.append(Finding("nvidia_smi.gpu", name, line.number, "prose"))
        build = CUDA_BUILD.search(line.text)
        # collect_env's "[pip3] torch==1.10.1+cu113" lists what is installed; it asks for nothing.
        if build and not line.text.startswith(("[pip", "[conda]")):
            out.append(Finding("request.cuda_build", build.group(1), line.number, "prose"))
        if THIRTY_TWO_BIT.search(line.text):
            out.append(Finding("interpreter.pointer_bits", 32, line.number, "prose"))
        python = PYTHON.search(line.text)
        if python:
            version = python_version(next(group for group in python.groups() if group))
            out += [Finding("interpreter.version", version, line.number, "prose")] if version else []
    return out, evidence + python_blamed(lines)
