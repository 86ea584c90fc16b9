"""Prose: the chip, the macOS, the torch version people write, and wrong results they report."""

import re
from typing import List, Optional, Sequence, Set

from mps_doctor.known_errors import intents
from mps_doctor.nvidia import capability_of, cuda_for_capability, newer_than_most_torch
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import LINUX_WORDS, MAC_BY_NAME, MAC_BY_NAME_WORDS, WINDOWS_SHOWN, Result, sentence_at
from mps_doctor.triage.parsers.people import NVIDIA_NAME, PEOPLE_LINE, SOMEONE_ELSES, bare_geforce, gpu_name, named_gpu
from mps_doctor.triage.parsers.results import half_precision_on_gtx16, wrong_results
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import cuda_of_label, load_releases, version_tuple

PROSE_LINE = re.compile(r"m[1-5]|intel|x86|i386|mac ?os|torch", re.I)
# "PyTorch 2.5.1", "torch version: 2.0.1", "torch version is 2.0.1+cpu", "torch==1.13.1", "Torch (2.13.0+cpu)"
# (comfyui-rocm#131), a CUDA label written apart ("PyTorch 2.8.0 + cu129", ComfyUI#9929); not the old side of Poetry's
# "Updating torch (2.0.0 -> 2.2.1)".
PROSE_TORCH = re.compile(r"\b(?:[Pp]y[Tt]orch|[Tt]orch)\s*(?:[Vv]ersion\s*)?(?::\s*|==|=\s*|is\s+|\(\s*)?(?:stable\s*\()?"
                         r"v?(\d+\.\d+\.\d+(?:\+\w+|\s?\+\s?cu\d{2,3}\b)?)(?!\w|\.\d)(?!\s*->)")
# A release without its patch only as a line of one's own setup, "key: value" or "key = value" ("pytorch = 1.9" under
# "python = 3.6", GraphMAE#9): not a pin ("torch==2.1"), nor a line quoting a README or a requirement (review12 L1).
PROSE_TORCH_RELEASE = re.compile(r"(?:[-*] )?(?:[Pp]y[Tt]orch|[Tt]orch)(?: [Vv]ersion)? ?(?:[:：]|=(?!=)) ?v?(\d+\.\d+)")

# A labelled version a sentence about torch says it ended with: "installed torch on a Windows machine ... and got
# `2.12.1+cpu`" (spiral-fitting, villa#1584); only where the sentence names torch and no companion.
LABELLED_AFTER_VERB = re.compile(r"\b(?:got|gets|reports?|prints?|shows?|returns?)\s+`?(\d+\.\d+\.\d+\+(?:cpu|cu\d{2,3}))\b")
# A state the line says is past: "At first I got `2.1.0+cpu` ...; reinstalling from the cu121 index fixed that".
EARLIER = re.compile(r"\b(?:at first|earlier|previously|used to|before|fixed|solved|reinstall\w*)\b", re.I)
TORCH_IN_SENTENCE = re.compile(r"^(?!.*\btorch(?:vision|audio|text)\b).*\b(?:py)?torch\b", re.I | re.S)

# A macOS named with "Intel" as the machine beside it ("macOS Sequoia 15.1.1, Intel, AMD", pytorch#141864), not
# Intel's libraries or GPUs (MKL, OpenMP, Iris), and no Apple chip on that line.
# Not software built for Intel ("the Intel version of Anaconda", an x86_64 conda on any Mac) nor a denial ("this
# MacBook is not Intel").
INTEL_ON_MAC_LINE = re.compile(r"(?<!not )(?<!n't )(?<!not an )\bIntel\b(?![- ](?:MKL|OpenMP|oneAPI|compiler|Arc|Iris|UHD|HD|"
                               r"graphics|GPU|Extension|XPU|Fortran|Neural|version|build|installer|variant|edition|package|"
                               r"binary|Python|conda|Anaconda|Miniconda|Homebrew))", re.I)
MAC_RELEASE_NAMED = re.compile(r"\bmac ?OS(?: X)?\b|\b(?:Sonoma|Sequoia|Ventura|Monterey|Big Sur|Catalina|Tahoe)\b", re.I)
# A Mac model with "Intel" in brackets after it: "my iMacPro (intel)" (Dream Textures#287), "MacBook Pro (Intel, 2019)".
# Only where one Mac is named: "works on my old MacBook Pro (Intel) ... but on my new Mac Studio it fails" is two.
MAC_MODEL = re.compile(r"\b(?:i?Mac ?(?:Pro|mini|Studio)?|MacBook ?(?:Pro|Air)?)\b", re.I)
MAC_MODEL_INTEL = re.compile(r"\b(?:i?Mac ?(?:Pro|mini)?|MacBook ?(?:Pro|Air)?)\s?\(\s?Intel\b", re.I)
# An Apple chip written in lower case beside the Mac it is in: "im on an m1 macbook pro" (acronymy-assistant#2).
CHIP_BESIDE_MAC = re.compile(r"\b(?:my|i'?m on|i am on|i have|i use|i'?m using|i am using|on) (?:an? |the )?"
                             r"(?:m[1-5](?: pro| max| ultra)? (?:macbook|mac ?mini|imac|mac studio|mac)\b|"
                             r"(?:macbook(?: pro| air)?|mac ?mini|imac|mac studio) m[1-5]\b)", re.I)
# An Intel Mac named as such: "an Intel Mac", "My Mac is an Intel", "iMac (Intel Core i9)", "Intel(R) Core".
INTEL_MAC_NAMED = re.compile(r"\bIntel[- ](?:based )?Mac|\bMac\w*(?: \w+)? is (?:an )?Intel\b|\bi?Mac\w*(?: \w+)? \((?:\d{4}, )?"
                             r"Intel\b|\bIntel(?:\(R\))? Core\b", re.I)
# A Mac of a model year before Apple Silicon: "MacBook Pro 2014", "MacBook Pro (16-inch, 2019)", "iMac (Late 2013)",
# "2017 iMac"; not a folder ("/Users/me/mac2019/"). Macs had Intel CPUs from 2006 and Apple Silicon from late 2020, when
# both were sold (Apple, "Mac computers with Apple silicon", support.apple.com/en-us/116943).
INTEL_ERA_MAC = re.compile(r"(?<![/\\\w-])(?:i?Mac(?: ?Pro| ?mini)?|MacBook(?: ?Pro| ?Air)?)(?: \(?| ?\()"
                           r"(?:\d{2}[- ]?(?:inch|\"),? ?)?(?:(?:Early|Mid|Late),? )?20(?:0[6-9]|1\d)\b(?!\.\d)|"
                           r"(?<![/\\\w-])(?:(?:Early|Mid|Late) )?20(?:0[6-9]|1\d) (?:i?Mac(?: ?Pro| ?mini)?|MacBook(?: ?Pro| ?Air)?)\b",
                           re.I)
# A GPU only an Intel Mac has, named beside macOS or a Mac: AMD's Radeon Pro and Radeon HD/R9/RX (built in, or an eGPU),
# NVIDIA's mobile GeForce ("GT 750M"). Apple Silicon Macs use only Apple's GPU and no eGPU (Apple, "Use an external
# graphics processor with your Mac", support.apple.com/en-us/102363: an eGPU needs a Mac with an Intel processor).
INTEL_MAC_GPU = re.compile(r"\bRadeon Pro (?:\d{3,4}[MX]?|Vega|W\d{4}X)\b|\bRadeon (?:HD|R9|RX) ?\d{3,4}[MX]?\b|"
                           r"\bGeForce (?:GTX? )?\d{3}M[X]?\b", re.I)
# A machine the sentence says is past, or compared with ("It used to work on my 2019 MacBook Pro", review14 H1).
FORMER_MACHINE = re.compile(r"\b(?:used to|previous(?:ly)?|old|former|before|sold|replac\w*|switch\w*|upgrad\w*|had|"
                            r"worked|works fine|instead)\b", re.I)


def intel_mac_told(lines: Sequence[Line]) -> List[Finding]:
    """An Intel Mac that the user names as the machine of the paste, by its model year or a GPU only Intel Macs have,
    where nothing in the paste names another machine, an Apple chip or MPS working (weakest source: any dump wins)."""
    if NOT_THIS_INTEL_MAC.search(joined(lines)):
        return []
    for line in lines:
        text = line.text
        found = INTEL_ERA_MAC.search(text) or (INTEL_MAC_GPU.search(text) if MAC_RELEASE_NAMED.search(text) or
                                               MAC_MODEL.search(text) else None)
        if found and the_users(text, found) and not FORMER_MACHINE.search(sentence_at(text, found)) and \
                len(set(m.lower().replace(" ", "") for m in MAC_MODEL.findall(text))) <= 1:
            return [Finding("host.hw_arm64", False, line.number, "prose"), Finding("host.system", "Darwin", line.number, "prose")]
    return []


# Another person's machine or a question, in the sentence that names the Mac: "my colleague's m1 macbook pro", "Does it
# run on ...?" (not "not sure why..? im on an m1 macbook pro", acronymy-assistant#2).
NOT_THE_USERS = re.compile(r"\b" + SOMEONE_ELSES + r"?\b|"
                           r"\?$|\b(?:does|do|can|will|would|should|is|are) (?:it|this|the \w+|torch|pytorch|mps)\b", re.I)

# The user's own Mac named by its chip family: "I'm on an Apple Silicon Mac", "my M-series MacBook" (not "MPS needs
# Apple Silicon", which states a requirement, nor "On an Apple Silicon Mac it works"), never beside an Intel Mac.
APPLE_SILICON_OWNED = re.compile(r"\b(?:my|I(?:'m| am) (?:on|using) an?|I (?:have|use) an?) (?:new )?"
                                 r"(?:Apple Silicon|Apple M-?series|M-series|M[- ]chip)\b", re.I)
# "Intel Mac / Rosetta" names both possibilities (jarvis-mac#19): no chip.
APPLE_CHIP = re.compile(r"\bM[1-5]\b|Apple Silicon|\barm64\b|\bRosetta\b", re.I)
# What makes an Intel Mac named in passing not the paste's machine (review14 H2-H5, M3): another system or PC anywhere
# in the paste (the system words of common.py), an Apple chip or arm64 anywhere, or MPS shown working.
NOT_THIS_INTEL_MAC = re.compile("|".join((
    LINUX_WORDS + r"\b", WINDOWS_SHOWN.pattern, APPLE_CHIP.pattern,
    r"\b(?:Win1[01]|Colab|Docker|Boot ?Camp|PC|Dell|Lenovo|ThinkPad|HP|Asus|Acer|MSI|Razer|nvidia-smi|Driver Version)\b|"
    r"\bRTX ?\d|Apple M|M-series|\bM[- ]chip\b|arm64|aarch64|mps\.is_available\(\)\W{0,12}True\b|\bMPS available\W{0,4}True\b")),
    re.I)


def the_users(text: str, found: "Optional[re.Match]") -> bool:
    """Whether FOUND, a Mac named on the line TEXT, is the user's own: its sentence asks nothing and names nobody else."""
    return found is not None and not NOT_THE_USERS.search(sentence_at(text, found).strip())


def parse_prose(lines: Sequence[Line]) -> Result:
    """What people write about their machine: 'MacBook M1 Pro', 'Apple M2', 'my mac is intel', 'PyTorch 2.5.1',
    'reports platform i386'. Weakest source: any dump or log wins over it."""
    out: List[Finding] = []
    p = "prose"
    for _, line in matching(lines, PROSE_LINE):
        text = line.text
        if re.search(r"\b(?:Apple |MacBook(?: Pro| Air)? |Mac ?mini |iMac |Mac Studio )?M[1-5](?: Pro| Max| Ultra)?\b", text) and \
                re.search(r"\b(?:Apple|Mac|MacBook|macOS|mac)\b|\bM[1-5] (?:Pro|Max|Ultra)\b", text, re.I) or \
                the_users(text, CHIP_BESIDE_MAC.search(text)):
            # A line that names an Intel Mac too ("My Mac is an Intel Mac. My colleague's M1 Mac installs it") says
            # nothing of the chip; the Darwin it names stands.
            out += [Finding("host.system", "Darwin", line.number, p)] + \
                ([] if INTEL_MAC_NAMED.search(text) else [Finding("host.hw_arm64", True, line.number, p)])
        if the_users(text, APPLE_SILICON_OWNED.search(text)) and not INTEL_MAC_NAMED.search(text):
            out += [Finding("host.hw_arm64", True, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:mac(?:book)?(?: \w+)? is (?:an )?(?:intel|x86(?:_64)?)|(?:intel|x86(?:_64)?)[- ](?:based )?mac)", text, re.I) \
                and not APPLE_CHIP.search(text):
            out += [Finding("host.hw_arm64", False, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if INTEL_ON_MAC_LINE.search(text) and (MAC_RELEASE_NAMED.search(text) or MAC_MODEL_INTEL.search(text) and
                                               len(MAC_MODEL.findall(text)) == 1) and not APPLE_CHIP.search(text):
            out += [Finding("host.hw_arm64", False, line.number, p), Finding("host.system", "Darwin", line.number, p)]
        if re.search(r"\b(?:platform|processor)\b[^.]{0,20}\bi386\b", text, re.I):
            out.append(Finding("interpreter.machine", "x86_64", line.number, p))
        if re.search(r"\bOS\W{0,4}:\W{0,4}mac ?OS\b", text, re.I):
            out.append(Finding("host.system", "Darwin", line.number, p))
        release = PROSE_TORCH_RELEASE.fullmatch(text)
        versions = labelled_once({re.sub(r"\s", "", found.group(1)) for found in PROSE_TORCH.finditer(text)} |
                                 ({release.group(1)} if release else set()) |
                                 {found.group(1) for found in LABELLED_AFTER_VERB.finditer(text)
                                  if TORCH_IN_SENTENCE.search(sentence_at(text, found)) and not EARLIER.search(text)})
        # An install command or an installer's error names the torch it asks for, not the one installed (pip's and
        # conda's own parsers read those), as a project's need does ("The minimum torch version is 2.5.1"); two
        # versions in one sentence are the one they had and the one they have.
        if len(versions) == 1 and not re.search(r"\binstall(?:ing)?\b|\brequirement\b|\bdistribution\b|\bERROR\b|"
                                                r"--(?:extra-)?index-url\b|--with\b|\b(?:uv|poetry|pdm|pixi) add\b|"
                                                r"\b(?:minimum|minimal|required|requires?|at least|needs?|recommended|"
                                                r"supported|supports?)\b", text, re.I):
            out.append(Finding("packages.torch", versions.pop(), line.number, p))
    return out + cpu_only_told(lines) + intel_mac_told(lines), \
        (half_precision_on_gtx16(lines) or wrong_results(lines)) + capability_claims(lines) + cuda_told_on_mac(lines) + \
        amd_gpu_for_cuda(lines) + intel_gpu_for_cuda(lines)


def labelled_once(versions: Set[str]) -> Set[str]:
    """VERSIONS less each one that another names again with its build label ("torch 2.7.0 cpu ... torch 2.7.0+cpu",
    UniLab#624): one torch told twice, not two."""
    return {version for version in versions if not any(other.startswith(version + "+") for other in versions)}


# People telling that torch runs on the CPU beside their NVIDIA GPU: "it only uses the CPU", "GPU usage is always 0%",
# "doesn't detect my GPU", "cuda is not available", and the same in Chinese: "只使用CPU", "GPU使用率一直是0%",
# "检测不到cuda", "找不到cuda" (CosyVoice#687, LLaMA-Factory#3228, Fooocus#1189).
# People telling that the program runs on the CPU: "it only uses the CPU", "GPU usage is always 0%", "只使用CPU".
CPU_RUN_TOLD = re.compile(
    r"\b(?:only|just|still|always) (?:uses?|using|runs? on|running on|works? on|working on) (?:the |my )?CPU\b(?! for\b)|"
    # "it keeps on using my CPU", "uses 50% of my CPU instead of GPU" (SD.Next#4002)
    r"\bkeeps? (?:on )?(?:using|running on) (?:the |my )?CPU\b|\bCPU instead of (?:the |my )?GPU\b|"
    # "I ended up running the program on my CPU, since I had the wrong version of torch" (whisper-local-transcribe#8)
    r"\bended up (?:running|using) (?:(?:it|the \w+|this \w+) )?(?:on )?(?:the |my )?CPU\b|"
    r"\b(?:doesn'?t|does not|don'?t|do not|isn'?t|is not|not|never|can'?t|cannot|can not) (?:use|using|utili[sz]e|"
    r"utili[sz]ing) (?:the |my )?(?:NVIDIA )?(?:GPU|graphics card|CUDA)s?\b|"
    r"\bGPU (?:usage|utili[sz]ation|load) (?:is |stays |remains |at )?(?:always |still |only |just )?0 ?%|"
    r"只(?:使用|用|跑|能用)了?\s?CPU|GPU(?:使用率|占用率?|利用率)\S{0,4}0\s?%|没有?(?:使用|用上?|调用)\s?(?:GPU|显卡)", re.I)
# People or programs stating that no CUDA device is found: "CUDA is not available", "doesn't detect my GPU",
# nougat's "WARNING:root:No GPU found" (nougat#1), "检测不到cuda".
NO_CUDA_STATED = re.compile(
    r"\b(?:doesn'?t|does not|don'?t|do not|isn'?t|is not|not|never|can'?t|cannot|can not) (?:detect|detecting|"
    r"recogni[sz]e|see|seeing|find|finding) (?:the |my )?(?:NVIDIA )?(?:GPU|graphics card|CUDA)s?\b|"
    r"\bCUDA (?:is )?not (?:available|detected|found)\b|\bno CUDA GPUs? (?:is |are )?(?:available|found|detected)\b|"
    r"\bno GPUs? (?:was |were )?(?:found|detected)\b|\bGPU not (?:found|detected)\b|"
    # A program's "No GPU" quoted: 'I always receive "No GPU" Message' (h2ogpt#890).
    r"[\"“']No GPU(?: found| available| detected)?[\"”']|"
    r"(?:检测|找|识别)不到\s?(?:cuda|gpu|显卡)|(?:cuda|gpu)\s?不可用", re.I)
CPU_ONLY_TOLD = re.compile("%s|%s" % (CPU_RUN_TOLD.pattern, NO_CUDA_STATED.pattern), re.I)
# A CUDA build named the way torch's labels and indexes name it: "+cu128", "whl/cu130".
CUDA_BUILD_LABEL = re.compile(r"\bcu(\d{3})\b", re.I)


def only_gpus_newer_than_most_torch(lines: Sequence[Line], text: str) -> bool:
    """Whether every NVIDIA GPU that LINES name is one most torch releases have no kernels for (the RTX 50 series),
    and TEXT names no CUDA build that builds code for all of them (nvidia.cuda_for_capability)."""
    capabilities = [capability_of(name) for name in (named_gpu(line.text) for line in lines if PEOPLE_LINE.search(line.text))
                    if name]
    if not capabilities or not all(c and newer_than_most_torch(c, load_releases()) for c in capabilities):
        return False
    needed = max(version_tuple(cuda_for_capability(c) or "0") for c in capabilities)
    return not any(version_tuple(cuda_of_label(found.group(1))) >= needed for found in CUDA_BUILD_LABEL.finditer(text))


# A Mac or its GPU, named anywhere in the paste: there the CPU run is not CUDA's.
# Any sign of a Mac or its GPU, bare "MPS" and "M2" included: there a CPU run or a GPU's name is not CUDA's.
APPLE_NAMED = re.compile(r"%s|\bmps\b|\bM[1-5]\b" % MAC_BY_NAME_WORDS, re.I)
# NVIDIA hardware or its driver named: a GPU brand or series, nvidia-smi's table.
NVIDIA_HARDWARE = r"\b(?:NVIDIA|GeForce|Quadro|Tesla|nvidia-smi|Driver Version)\b|\b[RG]TX ?\d|\bMX ?\d{3}\b"
# What makes a paste a Linux or Windows machine's, or an NVIDIA one's, whatever Mac it also mentions.
# Not torch.distributed's "Redirects are currently not supported in Windows or MacOs", which names no machine.
NOT_A_MAC = re.compile(r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|RHEL|WSL2?|(?<!supported in )Windows|win_amd64)\b|%s"
                       % NVIDIA_HARDWARE, re.I)
# People telling that the GPU works: "training runs on the GPU at 100% utilization", "my RTX 3090 trains fine",
# "CUDA works" (then a CPU run told elsewhere is a part of the program's, not torch's); "is_available" as people
# retype it ("my torch.cuda.is_acailable() is True", superpixel_fcn#45).
GPU_WORKS_TOLD = re.compile(r"\b(?:runs?|running|trains?|training|works?|working) (?:fine |well |fast )?on (?:the |my )?(?:GPU|CUDA)\b|"
                            r"\bGPU (?:utili[sz]ation|usage|load) (?:is |at |of )?(?:always )?(?:100|[5-9]\d) ?%|"
                            r"\bCUDA (?:works|is working)\b|\bis_a[a-z]{6,9}\(\)\W{0,4}(?:now )?(?:returns?|is|gives|prints)\W{0,3}True\b|"
                            r"\bGPU is (?:clearly |definitely |obviously )?(?:being )?used\b|\bnvidia-smi shows python(?:\.exe)? using\b|"
                            r"\b(?:[RG]TX ?\d{3,4}(?: Ti)?|GPU)\b[^.\n]{0,30}\b(?:works|trains|runs)(?: fine| well| fast| and is fast)\b",
                            re.I)
CUDA_NAMED = re.compile(r"(?<![A-Za-z])cuda(?![A-Za-z])|nvidia|geforce|\b[RG]TX ?\d|显卡|/whl/cu\d{3}\b", re.I)


def cpu_only_told(lines: Sequence[Line]) -> List[Finding]:
    """torch.cuda.is_available() as people tell it on a paste that names CUDA or an NVIDIA GPU and no Mac (whose GPU is
    not a CUDA one): True where they say the GPU works, else False where they say torch runs on the CPU or finds no
    CUDA."""
    text = joined(lines)
    if not (CUDA_NAMED.search(text) or bare_geforce(text)) or APPLE_NAMED.search(text):
        return []
    works = next((line for line in lines if GPU_WORKS_TOLD.search(line.text) and not line_is_code(line)), None)
    if works is not None:
        return [Finding("torch.cuda_available", True, works.number, "prose")]
    # Beside a GPU that most torch releases have no kernels for, a CPU run told is the program's fallback (torch sees
    # the GPU); a statement that no CUDA device is found still is one.
    pattern = NO_CUDA_STATED if only_gpus_newer_than_most_torch(lines, text) else CPU_ONLY_TOLD
    told = next((line for line in lines if pattern.search(line.text) and not line_is_code(line)), None) or \
        answered_false(lines)
    return [Finding("torch.cuda_available", False, told.number, "prose")] if told is not None else []


# "`print(torch.cuda.is_available())`" then "it prints False so clearly I am doing something wrong" (ECCV2022-RIFE#76):
# the call on one line, its answer told on the next.
ASKED = re.compile(r"\bcuda\.is_available\(\)")
ANSWERED_FALSE = re.compile(r"^(?:it|that|this|which)?\s*(?:only |just |always |still )?(?:prints?|returns?|gives?|says?|"
                            r"outputs?|shows?|is)\s*[`'\"]?False\b", re.I)


def answered_false(lines: Sequence[Line]) -> Optional[Line]:
    """The line that answers a torch.cuda.is_available() on the line before it with False, as people tell it."""
    previous = None
    for line in lines:
        if not line.text.strip():
            continue
        if previous is not None and ASKED.search(previous.text) and ANSWERED_FALSE.search(line.text.strip()):
            return line
        previous = line
    return None


# "I get an error saying no CUDA device found" on "my macbook m3" (unsloth#685): CUDA asked for on a Mac, which has none.
# The kind of evidence it gives (checks/platform.py registers the layer it implicates).
CUDA_ASKED_ON_MAC = "cuda-asked-on-mac"
NO_CUDA_TOLD = re.compile(r"\bno CUDA (?:GPUs?|devices?) (?:is |are |was |were )?(?:available|found|detected)\b|"
                          # not the platform's fact told ("it seems like CUDA is not available on macOS", marker#164)
                          r"\bCUDA (?:is |was )?not (?:available|detected|found)\b(?! (?:on|in|for) (?:mac|Apple|OS X))|"
                          r"\bno CUDA (?:GPUs?|devices?)\b|"
                          # cellpose's "TORCH CUDA version not installed/working" (cellpose/core.py, cellpose#809)
                          r"\bCUDA (?:version )?not installed\b|"
                          # "CUDA does not anymore support macOS, particularly M2" (nvdiffrast#186)
                          r"\bCUDA (?:does ?n[o']t|no longer) (?:\w+ )?supports? (?:mac ?OS|OS X|Apple|Macs?)\b", re.I)
# Libraries that run only on NVIDIA (or AMD) GPUs, installed or imported: DeepSpeed-MII ("We do not have support for the
# M3 hardware", DeepSpeed-MII#441) and FlashAttention (its README's requirements: a CUDA or ROCm toolkit, Linux).
CUDA_ONLY_LIBRARY = re.compile(r"^pip3? install\b[^\n]{0,80}?\b(?:deepspeed-mii|flash[-_]attn)\b|"
                               r"^(?:import|from) (?:mii|flash_attn)\b", re.I)
# A paste whose program uses the Mac's GPU: it asks for MPS, not CUDA ('device="mps"', "on MPS device").
MPS_USED = re.compile(r"device\s*=\s*[\"']mps|\.to\(\s*[\"']mps|\bmps:\d\b|\bMPS device\b|\bMPS backend\b|"
                      r"torch\.backends\.mps\b", re.I)





def cuda_told_on_mac(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against os.linux when a paste that names a Mac, and no other system or NVIDIA hardware, tells that no
    CUDA device was found or installs a library that runs only on NVIDIA GPUs."""
    told = next((line for line in lines if NO_CUDA_TOLD.search(line.text) and not line_is_code(line)), None) or \
        next((line for line in lines if CUDA_ONLY_LIBRARY.search(line.text)), None)
    text = joined(lines)
    if told is None or not MAC_BY_NAME.search(text) or NOT_A_MAC.search(text) or MPS_USED.search(text):
        return []
    return [Evidence(
        (), "the paste asks for CUDA on a Mac, which has no CUDA",
        "The program looks for a CUDA GPU on a Mac.",
        "Macs have no NVIDIA GPU and PyTorch's macOS builds have no CUDA: a program that needs CUDA (its own code, or a "
        "library that supports only NVIDIA GPUs) cannot run there. On Apple Silicon use the program's MPS or CPU option "
        "(device 'mps'), or run it on a Linux machine with an NVIDIA GPU.",
        intents({"check_again": {"device": "mps"}}), "https://pytorch.org/get-started/locally/", told.number, "prose",
        overrides=True, devices=("cuda",), kind=CUDA_ASKED_ON_MAC)]


# An AMD GPU as people name it ("RX 6800", "Radeon RX 7900 XTX", "AMD Radeon"): CUDA builds of torch run only on NVIDIA
# GPUs (AMD's run on ROCm builds, on Linux), and stable-diffusion-webui's collaborators send AMD users on Windows to a
# DirectML fork (stable-diffusion-webui#16861).
# People name it by the brand too: "a fooocus user on amd", "I have an AMD GPU" (RuinedFooocus#121), "Radeon GPU and Cuda
# incompatibility" (comic-translate#210), not an AMD CPU nor its integrated "Radeon Graphics" (a Ryzen's CPU model name).
AMD_GPU = re.compile(r"\bRadeon RX\b|\bRX ?(?:4[5-8]0|5[5-9]0|5[5-7]00|6[4-9][05]0|7[6-9]00|90[67]0)(?: ?XTX?| GRE)?\b|"
                     r"\bAMD (?:GPU|graphics(?: card)?|video card|card|Radeon)s?\b|\bRadeon (?:GPU|video card|card)s?\b|"
                     r"\b(?:user|users|I'?m|I am|running|run) on (?:an? )?AMD\b(?! ?(?:Ryzen|CPU|processor|EPYC|Threadripper|"
                     r"Athlon|\d))|"
                     r"\b(?:have|has|with|using) an? AMD\b(?! ?(?:Ryzen|CPU|processor|EPYC|Threadripper|Athlon|\d))", re.I)
# A paste that names an NVIDIA GPU or its driver's table, or a ROCm build of torch (AMD's, which uses the torch.cuda
# API: "+rocm6.2", the whl/rocm6.2 index), is no AMD GPU asking for CUDA; "ROCm 5.7" installed beside a CUDA torch and
# a message about "Nvidia drivers" are (StableSwarmUI#260). An NVIDIA GPU named without its model counts too: a hybrid
# laptop's "integrated Radeon GPU and an Nvidia GPU", "replaced my Radeon card with an Nvidia card" (review13 M1).
# The driver's version counts as told (nvidia-smi's and collect_env's field, "Nvidia driver version 546.33", "nvidia
# driver 472.12"), not the CUDA runtime's "CUDA driver version is insufficient", which it prints without any NVIDIA
# driver (lora-scripts#101); NVIDIA GPUs as people write them count too ("Nvidia 1050 Ti", "940MX", "NVIDIA T1000", "a
# dedicated Nvidia card", "+ NVIDIA GPU"; review15 H1).
NVIDIA_OR_ROCM = re.compile(r"\b(?:GeForce|Quadro|Tesla|nvidia-smi)\b|\bDriver Version\s*:|"
                            r"(?<!CUDA )\bdriver version\b(?! is insufficient)|\bnvidia driver\s*(?:version\s*)?[:=]?\s*\d{3}|"
                            r"\b[RG]TX ?A?\d|\bMX ?\d{3}\b|\b\d{3,4} ?MX\b|\bNVIDIA (?:GeForce )?\d{3,4}(?: ?Ti)?\b|"
                            r"\bNVIDIA [AHLTV]\d{1,4}\b|\b(?:an?|my|the|with|and|only) NVIDIA (?:laptop )?(?:GPU|dGPU|card|graphics)|"
                            r"\b(?:dedicated|discrete)\b[^.\n]{0,20}\bNVIDIA\b|\+ ?NVIDIA\b|\bNVIDIA dGPU\b|"
                            r"\+rocm|/whl/rocm|\bHIP\b", re.I)


def gpu_named_for_cuda(lines: Sequence[Line], gpu: "re.Pattern") -> Optional[Line]:
    """The first of LINES that names a GPU of pattern GPU, in a paste about CUDA that names no NVIDIA GPU, driver or ROCm
    build and no Mac; None otherwise."""
    text = joined(lines)
    named = next((line for line in lines if gpu.search(line.text)), None)
    if named is None or not CUDA_NAMED.search(text) or APPLE_NAMED.search(text) or NVIDIA_OR_ROCM.search(text):
        return None
    return named


def amd_gpu_for_cuda(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against cuda.driver when a paste about CUDA names an AMD GPU and no NVIDIA one, off a Mac."""
    named = gpu_named_for_cuda(lines, AMD_GPU)
    if named is None:
        return []
    return [Evidence(
        (), "the paste names an AMD GPU: CUDA needs an NVIDIA GPU",
        "The GPU is an AMD one (%s), and CUDA runs only on NVIDIA GPUs." % amd_name(AMD_GPU.search(named.text).group(0)),
        "PyTorch's CUDA builds find no GPU without an NVIDIA one. AMD GPUs run PyTorch's ROCm builds on Linux "
        "(pytorch.org/get-started, ROCm); on Windows the program needs an AMD-capable variant (a DirectML build), "
        "or the CPU.", intents({"check_again": {"device": "cpu"}}), "https://pytorch.org/get-started/locally/",
        named.number, "prose", devices=("cuda",), kind="amd-gpu-for-cuda")]


# Intel's integrated graphics as people and Windows name them ("Intel(R) UHD Graphics 620", "Intel Iris Xe Graphics",
# "Intel R lris Xe Graphics", Wav2Lip#502): a laptop whose only GPU it is has no NVIDIA GPU for CUDA. Not Intel Arc,
# whose own torch builds (+xpu) are another remedy.
INTEL_GRAPHICS = re.compile(r"\bIntel\b(?!\W{0,4}Arc\b)[^.,;\n]{0,16}?\bGraphics\b", re.I)


def intel_gpu_for_cuda(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against cuda.driver when a paste about CUDA names Intel's integrated graphics as the GPU and no NVIDIA
    or AMD one, off a Mac (an Intel Mac's graphics are Intel's too, and no Mac has CUDA)."""
    named = gpu_named_for_cuda(lines, INTEL_GRAPHICS)
    if named is None or AMD_GPU.search(joined(lines)):
        return []
    return [Evidence(
        (), "the paste names Intel graphics: CUDA needs an NVIDIA GPU",
        "The GPU is Intel's integrated graphics (%s), and CUDA runs only on NVIDIA GPUs." %
        INTEL_GRAPHICS.search(named.text).group(0),
        "PyTorch's CUDA builds find no GPU without an NVIDIA one: on this machine torch runs on the CPU, so set the "
        "program's device to 'cpu' (or use a machine with an NVIDIA GPU).", intents({"check_again": {"device": "cpu"}}),
        "https://pytorch.org/get-started/locally/", named.number, "prose", devices=("cuda",), kind="intel-gpu-for-cuda")]


def amd_name(found: str) -> str:
    """The AMD GPU as the paste names it when that is a model ("RX 6800"), else the brand."""
    return found if re.search(r"\d|Radeon", found, re.I) else "AMD"


def line_is_code(line: Line) -> bool:
    """Whether LINE is a command, a prompt or a traceback line rather than a sentence."""
    return bool(line.prompt) or line.text.lstrip().startswith(("File ", "Traceback", "$", ">>>", "#", "import ", "print("))




# People retelling a capability limit they were shown: "nothing under CUDA Compute 7.0 can be used" (vLLM#774),
# "requires compute capability 7.0 or higher", "GPUs below compute capability 8.0 are not supported".
CAPABILITY_CLAIM = re.compile(r"\b(?:under|below|less than|lower than|older than|at least|minimum(?: of)?|requires?)\s+"
                              r"(?:(?:CUDA|NVIDIA)\s+)?compute(?:\s+capability)?\s+(\d{1,2}\.\d)\b|"
                              r"\bcompute capability\s+(\d{1,2}\.\d)\s+(?:or (?:higher|above|newer)|is (?:not supported|required))",
                              re.I)


# People retelling torch's warning that the GPU "is not compatible with the current PyTorch installation" (its
# capability is not in the build's arch list): "warnings such as device incompatible" (nerfstudio#1307).
# A library other than torch that refuses a GPU on its own terms (flash-attention's "supports Ampere GPUs or newer").
OTHER_LIBRARY = re.compile(r"\b(?:flash[- ]?attn|flash[- ]?attention|xformers|triton|bitsandbytes|apex|deepspeed|vllm|"
                           r"onnx\w*|tensorrt|exllama\w*|auto-?gptq)\b", re.I)
INCOMPATIBLE_TOLD = re.compile(r"\b(?:device|GPU|graphics card)s? (?:is |are )?(?:incompatible|not compatible)\b|"
                               r"\bincompatible (?:device|GPU)s?\b", re.I)


def capability_claims(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against cuda.capability when the paste retells a compute-capability limit the GPU does not meet, or
    torch's warning that the GPU is incompatible with the build."""
    claim = next((line for line in lines if "ompute" in line.text and CAPABILITY_CLAIM.search(line.text)), None)
    if claim is None:
        return incompatible_told(lines)
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


def incompatible_told(lines: Sequence[Line]) -> List[Evidence]:
    """Evidence against cuda.capability when a paste about CUDA says torch found the GPU incompatible."""
    told = next((line for line in lines if INCOMPATIBLE_TOLD.search(line.text) and not line_is_code(line)), None)
    if told is None or not CUDA_NAMED.search(joined(lines)) or APPLE_NAMED.search(joined(lines)) or \
            OTHER_LIBRARY.search(told.text) or GPU_WORKS_TOLD.search(joined(lines)):
        return []
    return [Evidence(
        (), "the paste says torch found the GPU incompatible: its compute capability is not in this build's",
        "The paste tells that torch warned the GPU is incompatible with the installed build.",
        "torch warns that a GPU 'is not compatible with the current PyTorch installation' when the build has no kernels "
        "for its compute capability (a build of an older CUDA has none for a newer GPU). "
        "`nvidia-smi --query-gpu=name,compute_cap --format=csv` prints the capability: install a build of a CUDA "
        "that covers it (PyTorch's index for that CUDA).",
        intents({"run": ["nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv"]}),
        "https://pytorch.org/get-started/locally/", told.number, "prose", devices=("cuda",),
        kind="capability-limit-retold")]
