"""Which device a paste is about, decided from all of its evidence with weights, and the reason in words.

Every vote names the pasted line it comes from; a field the parsers did not read as a fact never votes, and a word
counts only on a line that no parser read (a collect_env prints "CUDA" on every machine).
"""

import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from mps_doctor.checking.registry import implicated_by
from mps_doctor.triage.parsers.people import template_fields
from mps_doctor.triage.parsers.prose import CUDA_ASKED_ON_MAC
from mps_doctor.triage.parsers.windows import WINDOWS_DRIVER
from mps_doctor.triage.text import Line
from mps_doctor.versions import cuda_of_label

DEVICES = ("cuda", "mps", "cpu")
# Weights: what the machine is and what torch was built for outweigh what the user ran, which outweighs what the
# user asked about. A paste about nothing is about the CPU, as `check --device auto` is on Linux and Windows.
SYSTEM = 4.0      # macOS (MPS exists there only; no Mac has CUDA): a CUDA message there is a Mac user's
BUILD = 3.0       # a CUDA build: torch.version.cuda, +cuXYZ, a CUDA index, is_available() True
NVIDIA = 3.0      # an NVIDIA driver, nvidia-smi, a GPU's name
MESSAGE = 2.0     # a message only one device prints
RAN = 1.0         # what the user ran or filled in: --device cuda, .to("mps"), torch.backends.mps, "GPU: cuda"
WORD = 0.5        # what the user asked about: CUDA, MPS, a GPU
DEFAULT = 0.25    # the CPU, when nothing else speaks
INSTALL = 5.0     # an install that asks for a CUDA build (+cuXYZ, pytorch-cuda): the device the user sets up, even on a Mac


@dataclass(frozen=True)
class Vote:
    """One piece of evidence for DEVICE: its WEIGHT, WHY in words, and the pasted LINE it stands on (0: none)."""

    device: str
    weight: float
    why: str
    line: int = 0


@dataclass(frozen=True)
class Choice:
    """The device chosen, and the votes for it, strongest first."""

    device: str
    votes: Tuple[Vote, ...]

    @property
    def reason(self) -> str:
        """Why, for people: the strongest votes for the device chosen, with their lines."""
        # One vote read twice (torch's version and its package name the same +cu113 on one line) is said once.
        said = list(dict.fromkeys(v.why + (" (line %d)" % v.line if v.line else "") for v in self.votes
                                  if v.device == self.device))[:3]
        return "; ".join(said) if said else "nothing in the paste names a device"


# The user's own choice of the CPU: a program's `--device cpu`, `device="cpu"` in code, accelerate's `use_cpu: True`.
CPU_CHOSEN = re.compile(r"--device[= ]+[\"']?cpu\b|\bdevice\s*=\s*[\"']cpu[\"']|\buse_cpu:\s*True\b", re.I)


def by_default(choice: Choice) -> bool:
    """Whether CHOICE is the CPU for want of other votes: nothing names an accelerator, nor says there is none."""
    return choice.device == "cpu" and all(v.weight <= DEFAULT for v in choice.votes if v.device == "cpu")


# What the user ran or configured, per device (a command line, code, a setting).
RAN_PATTERNS = (
    ("cuda", re.compile(r"--device[= ]+[\"']?cuda|device\s*=\s*[\"']cuda|\.cuda\(\)|\.to\([\"']cuda|"
                        r"torch\.device\([\"']cuda|--gpus\b|\bgpus\s*=\s*\d|download\.pytorch\.org/whl/cu\d", re.I)),
    ("mps", re.compile(r"--device[= ]+[\"']?mps|device\s*=\s*[\"']mps|\.to\([\"']mps|torch\.device\([\"']mps|"
                       r"torch\.backends\.mps|\bPYTORCH_(?:ENABLE_MPS_FALLBACK|MPS_\w+)=", re.I)),
)
WORDS = (("cuda", re.compile(r"(?<![A-Za-z_])CUDA(?![A-Za-z_])", re.I)),
         ("mps", re.compile(r"(?<![A-Za-z_])MPS(?![A-Za-z_])", re.I)))
GPU_WORD = re.compile(r"(?<![A-Za-z_])(?:GPU|NVIDIA)(?![A-Za-z_])", re.I)
CPU_ANSWER = re.compile(r"^(?:no\b|none\b|n/?a\b|cpu\b|-$)", re.I)


def first_line(known: Dict[str, Any], path: str) -> int:
    """The first pasted line of fact PATH."""
    return known[path].lines[0] if path in known and known[path].lines else 0


def fact_votes(known: Dict[str, Any]) -> List[Vote]:
    """Votes from the facts read: the system, the build, the NVIDIA driver and GPUs, torch's device facts."""
    get = lambda path: known[path].value if path in known else None  # noqa: E731
    votes: List[Vote] = []
    system = get("host.system")
    if system == "Darwin":
        votes.append(Vote("mps", SYSTEM, "macOS, where MPS is the GPU and CUDA does not exist",
                          first_line(known, "host.system")))
    elif system in ("Linux", "Windows"):
        votes.append(Vote("cpu", DEFAULT, "%s without an accelerator named" % system, first_line(known, "host.system")))
    if get("request.cuda_build"):
        votes.append(Vote("cuda", INSTALL, "an install asks for a CUDA build (%s)" % get("request.cuda_build"),
                          first_line(known, "request.cuda_build")))
    cuda = get("torch.cuda_version") or get("torch.wheel_cuda")
    if cuda:
        path = "torch.cuda_version" if get("torch.cuda_version") else "torch.wheel_cuda"
        votes.append(Vote("cuda", BUILD, "a CUDA build of torch (%s)" % cuda, first_line(known, path)))
    if get("torch.cuda_replaced"):
        votes.append(Vote("cuda", BUILD, "an install replaced a CUDA build of torch", first_line(known, "torch.cuda_replaced")))
    for path in ("torch.version", "packages.torch"):
        label = re.search(r"\+cu(\d+)$", str(get(path) or ""))
        if label:
            votes.append(Vote("cuda", BUILD, "a CUDA build of torch (+cu%s)" % label.group(1), first_line(known, path)))
    if get("torch.cuda_available") is True:
        votes.append(Vote("cuda", BUILD, "torch.cuda.is_available() is True", first_line(known, "torch.cuda_available")))
    elif get("torch.cuda_available") is False and known["torch.cuda_available"].parser not in ("collect_env", "hf-env"):
        # collect_env prints it on every machine; a user who runs it asks about CUDA, and a program that reports it
        # looked for a CUDA GPU.
        why = {"cuda-message": "a program found no CUDA GPU", "prose": "the paste says torch runs without CUDA"}.get(
            known["torch.cuda_available"].parser, "the paste asks torch.cuda.is_available()")
        votes.append(Vote("cuda", RAN, why, first_line(known, "torch.cuda_available")))
    for path, why in (("nvidia_smi.driver_version", "an NVIDIA driver"), ("nvidia_smi.gpu", "an NVIDIA GPU")):
        if get(path):
            value = get(path)
            shown = value[0] if isinstance(value, tuple) else value
            votes.append(Vote("cuda", NVIDIA, "%s (%s)" % (why, shown), first_line(known, path)))
    # Asked, not derived: torch older than 1.12 has no MPS (derive() says so) whatever device the paste is about.
    asked = [path for path in known if path.startswith("torch.mps_") and known[path].parser != "derived"]
    if asked:
        path = asked[0]
        votes.append(Vote("mps", RAN, "the paste asks torch about MPS", first_line(known, path)))
    if get("env.CUDA_VISIBLE_DEVICES") is not None:
        votes.append(Vote("cuda", RAN, "CUDA_VISIBLE_DEVICES is set", first_line(known, "env.CUDA_VISIBLE_DEVICES")))
    return votes


def asked_votes(kinds_at: Iterable[Tuple[str, int]]) -> List[Vote]:
    """A CUDA vote, weighed as an install, for each piece of evidence that a program asks for CUDA on a Mac: a CUDA
    question whose answer is that a Mac has none, as an install of a CUDA build there is."""
    return [Vote("cuda", INSTALL, "the program asks for CUDA", line) for kind, line in kinds_at if kind == CUDA_ASKED_ON_MAC]


def elsewhere_votes(failed_at: Iterable[Tuple[Tuple[str, ...], int]]) -> List[Vote]:
    """A CUDA vote, weighed as an install, for the first piece of evidence (the layers it fails, its line) against the
    layer that CUDA asked for on a Mac fails: a message that on this system means CUDA was asked for where it cannot
    run (a catalogue entry's macOS reading, such as Docker's `--gpus` on a Mac), as an install of a CUDA build there is."""
    elsewhere = set(implicated_by(CUDA_ASKED_ON_MAC))
    line = next((line for checks, line in failed_at if elsewhere & set(checks)), None)
    return [Vote("cuda", INSTALL, "the paste asks for CUDA where it cannot run", line)] if line is not None else []


def message_votes(devices_at: Iterable[Tuple[Tuple[str, ...], int]]) -> List[Vote]:
    """A vote for the device of each message that only one device prints (once per device)."""
    votes: Dict[str, Vote] = {}
    for devices, line in devices_at:
        if len(devices) == 1 and devices[0] not in votes:
            votes[devices[0]] = Vote(devices[0], MESSAGE, "a message only %s prints" % devices[0].upper(), line)
    return list(votes.values())


def line_votes(lines: Sequence[Line], read: Iterable[int], system: Optional[str]) -> List[Vote]:
    """Votes from what the user ran (on any line) and the words they used (on lines no parser read)."""
    votes: Dict[Tuple[str, float], Vote] = {}
    taken = set(read)
    for kind, answer, line in template_fields(lines):
        taken.add(line.number)
        if kind == "gpu":
            device = "cpu" if CPU_ANSWER.match(answer) else "mps" if re.search(r"mps|apple|metal", answer, re.I) else \
                "cuda" if re.search(r"cuda|nvidia|geforce|rtx|gtx|tesla|quadro|\bA\d{2,3}\b|\bH\d{3}\b", answer, re.I) else None
            if device:
                votes.setdefault((device, RAN), Vote(device, RAN, "the issue form says %s" % device, line.number))
    for line in lines:
        for device, pattern in RAN_PATTERNS:
            if pattern.search(line.text):
                votes.setdefault((device, RAN), Vote(device, RAN, "the paste runs code for %s" % device, line.number))
        if line.number in taken:
            continue
        for device, pattern in WORDS:
            if pattern.search(line.text):
                votes.setdefault((device, WORD), Vote(device, WORD, "the paste speaks of %s" % device.upper(), line.number))
        if system != "Darwin" and GPU_WORD.search(line.text):
            votes.setdefault(("cuda", WORD), Vote("cuda", WORD, "the paste speaks of a GPU", line.number))
    return list(votes.values())


def choose(votes: Sequence[Vote]) -> Choice:
    """The device with the most weight (ties: an accelerator before the CPU, CUDA before MPS); the CPU without votes."""
    totals = {device: sum(v.weight for v in votes if v.device == device) for device in DEVICES}
    device = max(DEVICES, key=lambda d: (totals[d], -DEVICES.index(d))) if any(totals.values()) else "cpu"
    return Choice(device, tuple(sorted(votes, key=lambda v: (-v.weight, v.line))))


# What a version's local label says of its build (PyTorch's indexes label their wheels +cpu and +cuXYZ; PyPI's and
# macOS's wheels carry no label, so no label says nothing).
LABEL = re.compile(r"\+(cpu|cu(\d{2,3}))$")
VERSION_TEXT = re.compile(r"\d+\.\d+(?:\.\d+)*")


# The parsers that read the torch a machine has as torch itself reports it.
TORCH_REPORTED = ("session", "collect_env", "hf-env", "lightning")


def derive_build(known: Dict[str, Any], make) -> Dict[str, Any]:
    """KNOWN with the build facts a version's label decides (torch.cuda_version None for +cpu, 12.1 for +cu121), and
    with a driver in Windows' numbering as NVIDIA numbers it (31.0.15.3623 = 536.23), and without a CUDA or driver
    version that is not a version (an empty template line read as one); MAKE(value, lines,
    parser) builds an entry."""
    driver = known.get("nvidia_smi.driver_version")
    windows = WINDOWS_DRIVER.fullmatch(str(driver.value)) if driver is not None else None
    if windows:
        digits = windows.group(1) + windows.group(2)
        known = dict(known, **{"nvidia_smi.driver_version": make("%s.%s" % (digits[:3], digits[3:]), driver.lines, "derived")})
    known = {path: entry for path, entry in known.items()
             if path not in ("torch.cuda_version", "nvidia_smi.driver_version", "nvidia_smi.cuda_version")
             or entry.value is None or VERSION_TEXT.fullmatch(str(entry.value))}
    for path in ("torch.version", "packages.torch"):
        label = LABEL.search(str(known[path].value)) if path in known else None
        cuda_read = known.get("torch.cuda_version")
        # The label of the torch that torch itself reports (a session, collect_env) outweighs a build read from an
        # install command or words: "pip install ... /whl/cu121", "but it still prints '2.1.0+cpu'".
        reported = label and path == "torch.version" and known[path].parser in TORCH_REPORTED and cuda_read is not None \
            and cuda_read.parser in ("build", "prose")
        if label and (cuda_read is None or reported):
            cuda = cuda_of_label(label.group(2)) if label.group(2) else None
            known["torch.cuda_version"] = make(cuda, known[path].lines, "derived")
        if label and "torch.version" not in known:
            # Only an installed build carries a label (a requirement's is stripped by the parsers).
            known["torch.version"] = make(known[path].value, known[path].lines, "derived")
    return known
