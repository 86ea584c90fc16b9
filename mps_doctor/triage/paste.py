"""A paste as read: its cleaned lines, the facts every parser found (with their lines), the evidence against layers
and the catalogue's matches; the facts derived from them, and the device they speak of."""

import re
import unicodedata
from dataclasses import dataclass, replace
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from mps_doctor.checking.pasted import PASTED_PYTHON
from mps_doctor.checking.registry import REGISTRY, all_checks, implicated_by
from mps_doctor.fact_catalogue import arguments_for
from mps_doctor.facts import CudaDevice, ErrorInfo, Facts, Host, Interpreter, NvidiaSmi, Target, TorchInfo
from mps_doctor.known_errors import (
    CUDA_UNAVAILABLE_REPORTED,
    INDEX_UNREACHABLE,
    INSTALL_CONFLICT,
    KnownError,
    Match,
    find_all,
    unwrap,
)
from mps_doctor.secrets import scrub
from mps_doctor.triage.derived import capability_evidence, derive_cuda, devices_from
from mps_doctor.triage.device import (
    Choice,
    asked_votes,
    choose,
    derive_build,
    elsewhere_votes,
    fact_votes,
    line_votes,
    message_votes,
)
from mps_doctor.triage.model import Evidence, Finding, Known, value_of
from mps_doctor.triage.parsers import PARSERS, PRIORITY
from mps_doctor.triage.parsers.builds import UNINSTALLED
from mps_doctor.triage.parsers.containers import SLURM_SOURCE
from mps_doctor.triage.parsers.cuda import DOCKER_BUILD
from mps_doctor.triage.parsers.install import NO_WHEEL, X86_64_PYTHON_ON_MAC, x86_64_python_on_mac
from mps_doctor.triage.parsers.people import PYTHON_BLAMED_KIND
from mps_doctor.triage.runtime import cuda_missing, hidden_from_the_program, hosted_runtime_evidence
from mps_doctor.triage.stale import reconcile
from mps_doctor.triage.text import Line, Lines, clean, joined
from mps_doctor.versions import load_releases, minor_of, version_tuple
from mps_doctor.words import shorten


@dataclass(frozen=True)
class Paste:
    """Everything read from one paste."""

    lines: Sequence[Line]
    known: Dict[str, Known]
    evidence: Tuple[Evidence, ...]
    matches: Tuple[Match, ...]
    prose_lines: FrozenSet[int] = frozenset()

    @property
    def recognized(self) -> bool:
        return bool(self.known or self.evidence or self.matches)


def read_paste(raw: str, catalogue: Optional[Tuple[KnownError, ...]] = None) -> Paste:
    """Clean RAW and run every parser and the catalogue over it."""
    all_checks()
    lines = clean(raw)
    # Cleaning removes what could split a secret's shape apart (an escape, a tag, a control, an entity): scrub again.
    rescrubbed = scrub(lines.text)
    if rescrubbed != lines.text:
        lines = Lines(rescrubbed.split("\n"), list(lines.prompts))
    findings: List[Finding] = []
    evidence: List[Evidence] = []
    for parser in PARSERS:
        found, implicated = parser(lines)
        findings += found
        evidence += implicated
    matches = tuple(sorted(find_all(joined(lines), catalogue), key=lambda m: m.line))
    if DOCKER_BUILD.search(lines.text):
        # A `docker build` sees no GPU unless one is configured for it: a program there finding no CUDA is expected.
        matches = tuple(match for match in matches if match.error.kind != CUDA_UNAVAILABLE_REPORTED)
    for match in matches:
        # A message that spans lines (a traceback's frame, then the error) is shown by the line where it ends; one that
        # a narrow window wrapped (every break a soft wrap), whole.
        spanned = match.text.rstrip("\n")
        last = min(match.line + spanned.count("\n"), len(lines))
        shown = " ".join(lines[n - 1].text for n in range(match.line, last + 1)) if "\n" not in unwrap(spanned) else \
            lines[last - 1].text
        findings.append(Finding("message", stripped_line(shown), lines[match.line - 1].number, "catalogue"))
        if match.error.cuda_build_only:
            findings.append(Finding("torch.cuda_shown", True, lines[match.line - 1].number, "catalogue"))
    told, commands, sections = fix_lines(lines)
    # A CPU build uninstalled tells the state before a fix only inside one ("I uninstalled the cpu version ... but it
    # still prints False" is an attempt, whose torch is unknown).
    findings = [finding for finding in findings if kept_beside_fixes(finding, told, commands, sections)]
    known = derive_build(derive(assemble(findings)), Known)
    # A message means what it means on the paste's system ("Torch not compiled with CUDA enabled" on a Mac: no CUDA),
    # except pip's in a `docker build` log, which are the Linux container's pip (review15 M2: a build on a Mac).
    system = known["host.system"].value if "host.system" in known else None
    built = system == "Darwin" and DOCKER_BUILD.search(lines.text)
    matches = tuple(replace(match, error=match.error.on(None if built and match.error.id.startswith("pip.") else system))
                    for match in matches)
    evidence = [item for item in evidence if not advises_own_python(item, known)] + capability_evidence(known)
    # The paste's Python is one the requested release has wheels for: a missing wheel is the platform's (a glibc older
    # than manylinux_2_28, pytorch#156215). Or the installer never read its index (no ssl module, a certificate it
    # could not verify: pytorch#35880), so "(from versions: none)" says nothing of the Python. Either way, messages
    # that blame the Python come after the others.
    supported = python_supported(known) or any(match.error.kind == INDEX_UNREACHABLE for match in matches)
    if supported:
        evidence = [item for item in evidence if item.kind != NO_WHEEL]
        matches = tuple(sorted(matches, key=lambda m: (m.error.layer in implicated_by(NO_WHEEL), m.line)))
    # pip's conflict check after an install says what the install left (a companion pinning another torch); a message
    # of the program that then failed says what broke, and explains the layer first (pyannote-audio#855).
    matches = tuple(sorted(matches, key=lambda m: m.error.kind == INSTALL_CONFLICT))
    for match in matches:
        if supported and match.error.layer in implicated_by(NO_WHEEL):
            continue
        if match.error.layer in REGISTRY and about_the_layer(match, lines) and \
                not left_by_a_failed_install(match, matches, lines.text):
            evidence.append(catalogue_evidence(match, lines[match.line - 1].number))
    # What people say of their Python yields to any message the catalogue knows in the paste (a DLL that does not
    # load, pasted under "it's not working with Python 3.12 either").
    evidence = [item for item in evidence if not (item.kind == PYTHON_BLAMED_KIND and matches)]
    evidence = reconcile(evidence, matches, known, lambda match: lines[match.line - 1].number)
    evidence += hosted_runtime_evidence(lines, known, matches) + hidden_from_the_program(lines, known, matches) + \
        x86_64_python_told(known, evidence)
    if not cuda_missing(lines, known, matches):
        evidence = [item for item in evidence if item.source != SLURM_SOURCE]
    prose_lines = frozenset({f.line for f in findings if f.parser == "prose"} - {f.line for f in findings if f.parser != "prose"})
    return Paste(lines, known, tuple(evidence), matches, prose_lines)


def x86_64_python_told(known: Dict[str, Any], evidence: List[Evidence]) -> List[Evidence]:
    """The evidence of an x86_64 Python on macOS where the paste shows one (its own platform.machine(), a report's
    field) but not the Mac's chip, and no other evidence tells it: an Intel Mac or Rosetta, which `sysctl` tells apart
    (issue 20, item 2)."""
    machine, system = known.get("interpreter.machine"), known.get("host.system")
    if machine is None or machine.value != "x86_64" or system is None or system.value != "Darwin" or \
            "host.hw_arm64" in known or any(item.kind == X86_64_PYTHON_ON_MAC for item in evidence):
        return []
    return [x86_64_python_on_mac(machine.lines[0], machine.parser, "The Python reports x86_64 on macOS (pasted line %s)."
                                 % ", ".join(map(str, machine.lines)))]


# The catalogue names each installer's messages by the installer (pip., uv., conda.).
INSTALLER_MESSAGES = ("pip.", "uv.", "conda.")


# pip's and uv's line for a torch that did install (pip/_internal/commands/install.py; uv's " + torch==2.4.0").
TORCH_INSTALLED = re.compile(r"\bSuccessfully installed\b[^\n]*\btorch-\d|^ \+ torch==\d", re.M)


def left_by_a_failed_install(match: Match, matches: Sequence[Match], text: str) -> bool:
    """Whether MATCH is "No module named 'torch'" after an installer's refusal, which it follows from (pytorch#160898:
    pip found no intel-openmp for Windows on ARM64, so the smoke test after it found no torch), with no install of
    torch between them in TEXT (the paste, joined): after one, torch went somewhere the program does not look."""
    if match.error.id != "torch.not-installed":
        return False
    refusal = next((other for other in matches if other.error.id.startswith(INSTALLER_MESSAGES) and other.line < match.line),
                   None)
    if refusal is None:
        return False
    lines = text.split("\n")[refusal.line:match.line - 1]
    return not TORCH_INSTALLED.search("\n".join(lines))


# Sources that name the torch a machine has (not one it asked for, as pip's and uv's errors do, nor prose).
INSTALLED_SOURCES = ("collect_env", "session", "conda-plan", "lightning", "hf-env", "wheel")
FIRST_MPS_RELEASE = minor_of(load_releases().first_mps)  # MPS arrived in torch 1.12 (PyTorch 1.12 release notes)


def derive(known: Dict[str, Known]) -> Dict[str, Known]:
    """Facts that follow from others: a torch older than 1.12 was built without MPS; an x86_64 Python of a conda
    environment on macOS is an osx-64 (Intel) conda's."""
    torch = next((known[path] for path in ("torch.version", "packages.torch")
                  if path in known and known[path].parser in INSTALLED_SOURCES), None)
    if torch is not None and "torch.mps_built" not in known:
        numbers = version_tuple(str(torch.value))[:2]
        if len(numbers) == 2 and numbers < FIRST_MPS_RELEASE:
            known = dict(known, **{"torch.mps_built": Known(False, torch.lines, "derived")})
    conda, machine = known.get("interpreter.conda"), known.get("interpreter.machine")
    if conda is not None and machine is not None and machine.value == "x86_64" and "interpreter.conda_subdir" not in known \
            and value_of(known, "host.system") == "Darwin":
        # conda installs a Python of its own subdir's architecture: x86_64 on macOS is osx-64 (conda's platform
        # subdirs, docs.conda.io "Managing packages for different platforms").
        known = dict(known, **{"interpreter.conda_subdir": Known("osx-64", tuple(sorted(set(conda.lines + machine.lines))),
                                                                  "derived")})
    macos = value_of(known, "host.macos_version")
    if macos and "host.hw_arm64" not in known and version_tuple(str(macos))[:1] < (11,):
        # Apple Silicon Macs run macOS 11 Big Sur or later (Apple, "Mac computers with Apple silicon", HT211814): a
        # macOS 10.x is an Intel Mac's.
        known = dict(known, **{"host.hw_arm64": Known(False, known["host.macos_version"].lines, "derived")})
    return derive_cuda(known, Known)


def advises_own_python(evidence: Evidence, known: Dict[str, Known]) -> bool:
    """Whether EVIDENCE blames the Python version for a missing wheel while the paste's Python is the version it
    advises: then the version is not why (a 32-bit or PyPy build, a platform without wheels), and the evidence is
    left out so that the paste's own version is never contradicted."""
    version = value_of(known, "interpreter.version")
    advised = [intent.option("python") for intent in evidence.actions if intent.kind == "new_environment"]
    # A 32-bit Python gets no wheel of any version: python.version says so itself, and another version is no fix.
    thirty_two_bit = value_of(known, "interpreter.pointer_bits") == 32 and value_of(known, "host.system") != "Darwin"
    return evidence.kind == NO_WHEEL and bool(version) and (".".join(map(str, version[:2])) in advised or thirty_two_bit)


def python_supported(known: Dict[str, Known]) -> bool:
    """Whether the paste shows a 64-bit Python, as a tool reports it, that the release it asks pip or uv for has wheels
    for (its row of the release table), so that a missing wheel is not the Python version's."""
    version, requested = value_of(known, "interpreter.version"), value_of(known, "request.torch")
    # Only a Python that a tool reports: people name the Python they think runs, not always the one pip used
    # (transcribe-anything#16: "python version 3.10.10", pip offering only torch 2.2.0, Python 3.12's first).
    if not version or not requested or value_of(known, "interpreter.pointer_bits") == 32 or \
            known["interpreter.version"].parser in ("prose", "template"):
        return False
    release, exact = load_releases().row_for(str(requested).split("+")[0])
    return bool(exact and release.supports_python(tuple(version)))


def about_the_layer(match: Match, lines: Sequence[Line]) -> bool:
    """Whether a match speaks of what its layer checks: for an entry marked torch_libraries_only, a library that fails
    to load implicates its layer only when it is torch's own (an extension such as torch_scatter built for another
    architecture is not torch)."""
    context = " ".join(line.text for line in lines[max(0, match.line - 5):match.line])
    if not match.error.torch_libraries_only or not re.search(r"\.(so|dylib|pyd|dll)\b", context):
        return True
    return bool(re.search(r"[/\\]torch[/\\]|libtorch|libc10|libshm", context))


def catalogue_evidence(match: Match, number: int) -> Evidence:
    """A catalogue match as evidence against its layer."""
    error = match.error
    return Evidence((error.layer,), "%s (%s)" % (first_sentence(error.cause), error.id), stripped_line(match.text),
                    error.cause + (" Fix: " + error.fix if error.fix else ""), error.actions, error.link, number,
                    error.id, devices=error.devices)


# The ASCII characters that mean something to a shell, Markdown or HTML, and the controls and line separators.
UNSAFE = re.compile("[!$&*<>?@\\[\\]^`{|}\x00-\x1f\x7f-\x9f\u2028\u2029]")
# A comparison keeps its meaning as the full-width sign, which no shell, Markdown or HTML reads ("not in '＜3.13,＞=3.9'").
COMPARISONS = str.maketrans({"<": "\uff1c", ">": "\uff1e"})
# Unicode format characters (bidi controls, zero-width, tags), surrogates and private use: never part of a message.
HIDDEN = ("Cf", "Cs", "Co")


def stripped_line(text: str, limit: int = 300) -> str:
    """Pasted TEXT as one line of at most LIMIT characters, without the ASCII characters that mean something to a
    shell, Markdown or HTML (` $ @ | * [ ] ! & \\; < and > become their full-width signs) and without invisible
    ones; other scripts' letters and punctuation (，：…) are the user's words and stay."""
    text = UNSAFE.sub("", " ".join(text.replace("\\", "/").split()).translate(COMPARISONS))
    return shorten("".join(char for char in text if unicodedata.category(char) not in HIDDEN), limit)


def first_sentence(text: str) -> str:
    """TEXT up to its first full stop, without it."""
    head = text.split(". ", 1)[0].rstrip(".")
    return shorten(head, 200)


# A line that tells how the reporter fixed it ("Update: Fixed it by running pip install ... cu117", "solved by
# installing Python 3.10"): what it names is the fix, not the state the paste shows, so it gives no fact.
# A fix that worked, told whole: "and it worked", "works now", not "and it works for a few epochs, then ...".
WORKED = (r"(?:worked|works now|fixed it|solved it)\b(?! for\b| on\b| only\b| until\b| at first\b| with\b)"
          r"(?![^.\n]{0,80}\b(?:but|then|until|except)\b)")
FIX_LINE = re.compile(r"\b(?:fixed|solved|resolved)\b(?: (?:it|this|that|the (?:issue|problem|error)))?(?: now)? "
                      r"(?:by|with|after)\b|\b(?:it )?(?:works|worked|working) (?:now|after)\b|\band (?:it|that) %s" % WORKED,
                      re.I)
# What a fix's command does not change: the machine, its system and its GPU (a path in it is still on Windows).
UNCHANGED_BY_A_FIX = ("host.", "nvidia_smi.gpu")
# A line that introduces the fix on the next one ("And reinstall with this command:", "The quick-fix is ...:"), as
# monkeyplug#4 and kyutai-labs/delayed-streams-modeling#131 tell theirs; not an attempt that failed ("I reinstalled
# torch with the command from pytorch.org, nothing changed:", "I tried the solution from #512:").
FIX_INTRO = re.compile(r"(?:\b(?:reinstall(?:ed|ing)?|fix(?:ed)?|solution|workaround|quick-?fix|had to do)\b[^:]{0,80}|"
                       r"\bchange\w*\b[^:]{0,80}\bto|"
                       # "However, this works:" then the command that worked (h2ogpt#890).
                       r"\b(?:this|that|the following|what) (?:works|worked|did it|did the trick)\b[^:]{0,40}):\s*$", re.I)
# Advice to others ("You can install a version of PyTorch using", whisper-local-transcribe#8): only the install
# commands right after it are advice; what follows them is the user's own paste again.
ADVICE_INTRO = re.compile(r"\b(?:you (?:can|could|should|need to|must)|make sure (?:to|you))\b[^:]{0,60}\binstall\w*\b"
                          r"[^:]{0,60}(?:\busing|\bwith|\bby running|:)\s*$", re.I)
ADVISED_COMMAND = re.compile(r"^\W{0,3}(?:pip3?|python3?(?:\.\d+)? -m pip|uv(?: pip)?|conda|mamba) install\b")
# A heading that is only the word: "SOLUTION", "## Workaround", "**Fix:**" (fluxgym#430 tells the problem, then its
# steps under "SOLUTION"). Up to the next heading (Markdown's or a bold line's), its install steps are the fix; what
# else stands there (an issue form's "### Workaround" over an environment dump) is still the paste's.
FIX_HEADING = re.compile(r"^[#*_=\-\s]{0,6}(?:solution|the fix|fix|workaround|how I (?:fixed|solved) it)[*_:=\-\s]{0,6}$",
                         re.I)
HEADING = re.compile(r"^#{1,6}\s|^\*\*[^*]{1,80}\*\*:?\s*$")
INSTALL_STEP = re.compile(r"\b(?:pip3?|uv|conda|mamba|poetry)\b[^\n]{0,40}\b(?:install|add|uninstall|remove)\b|"
                          r"--(?:extra-)?index-url\b", re.I)
# uv's "No solution found when resolving dependencies:" opens its error, not a fix.
FAILED_ATTEMPT = re.compile(r"\b(?:tried|try|trying|nothing|didn'?t|did not|doesn'?t|does not|not|still|no luck|same|"
                            r"but|without success|no solution)\b", re.I)
# A line that says the one before it was the fix ("... --index-url .../cu126`" then "and it worked.", pyTranscriber#56).
FIX_AFTER = re.compile(r"^(?:and|which) (?:it|that|this) ?%s" % WORKED, re.I)


def kept_beside_fixes(finding: Finding, told: Set[int], commands: Set[int], sections: Set[int]) -> bool:
    """Whether FINDING states the paste's machine, given the lines that tell a fix (TOLD), a fix's commands (COMMANDS)
    and the lines under a fix's heading (SECTIONS): a message always; a fix's uninstall of a CPU build only in a fix;
    anything else off a fix's lines, or the machine itself (UNCHANGED_BY_A_FIX) on a command's."""
    if finding.path == "message":
        return True
    if finding.parser == UNINSTALLED:
        return finding.line in told | commands | sections
    return finding.line not in told | commands or finding.line in commands and finding.path.startswith(UNCHANGED_BY_A_FIX)


def fix_lines(lines: Sequence[Line]) -> Tuple[Set[int], Set[int], Set[int]]:
    """(the lines that tell a fix in words: a FIX_LINE, the one before a FIX_AFTER; the lines of a fix's command or
    snippet: after a FIX_INTRO up to the first empty line after them, the install steps after a FIX_HEADING up to the
    next heading, and the install commands right after an ADVICE_INTRO; every line under a FIX_HEADING)."""
    told, commands, intro, started, previous, advice, section = set(), set(), False, False, None, False, False
    sections: Set[int] = set()
    for line in lines:
        advice = advice and bool(ADVISED_COMMAND.search(line.text))
        section = section and not HEADING.search(line.text)
        if FIX_HEADING.search(line.text):
            section = True
        elif section and line.text:
            sections.add(line.number)
            if INSTALL_STEP.search(line.text):
                commands.add(line.number)
        if FIX_LINE.search(line.text):
            told.add(line.number)
        elif (intro or advice) and line.text:
            commands.add(line.number)
        if previous is not None and FIX_AFTER.search(line.text):
            told.add(previous.number)
        if ADVICE_INTRO.search(line.text):
            advice = True
        elif FIX_INTRO.search(line.text) and not FAILED_ATTEMPT.search(line.text):
            intro, started = True, False
        elif intro:
            started = started or bool(line.text)
            intro = not (started and not line.text)
        previous = line if line.text else previous
    return told, commands, sections


# The parsers that read what people write in their own words.
PEOPLES = ("prose", "template")


def assemble(findings: Sequence[Finding]) -> Dict[str, Known]:
    """One value per fact: the most trusted parser's (PRIORITY), then the earliest line; lines of agreeing findings kept."""
    rank = {name: index for index, name in enumerate(PRIORITY)}
    known: Dict[str, Known] = {}
    by_path: Dict[str, List[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    for path, group in by_path.items():
        if path in ("message", "nvidia_smi.gpu"):
            values = tuple(dict.fromkeys(stripped_line(f.value, 300) for f in group))
            known[path] = Known(values, tuple(sorted({f.line for f in group})), group[0].parser)
            continue
        group = [Finding(f.path, stripped_line(f.value, 160), f.line, f.parser) if isinstance(f.value, str) else f for f in group]
        best = min(group, key=lambda f: (rank.get(f.parser, len(rank)), f.line))
        if path in ("host.system", "host.hw_arm64", "packages.torch") and best.parser in PEOPLES and \
                len({f.value for f in group if f.parser in PEOPLES}) > 1:
            # People's own words that disagree ("works on Windows 11, fails on Ubuntu", "installs on my M2 MacBook Air,
            # fails on my 2019 iMac (Intel Core i9)", the value of a torch they had and the one they have) decide
            # nothing.
            continue
        lines = tuple(sorted({f.line for f in group if f.value == best.value}))
        known[path] = Known(best.value, lines, best.parser)
    return known


def value(paste: Paste, path: str, default: Any = None) -> Any:
    known = paste.known.get(path)
    return default if known is None else known.value


# The system of a paste that names none (Host.system is a str).
UNKNOWN_SYSTEM = "unknown"


def build_facts(paste: Paste, device: str) -> Facts:
    """The paste's facts in the types `check` uses, placed where the fact catalogue says; anything the paste does not
    say stays unknown (None)."""
    get = lambda path, default=None: value(paste, path, default)  # noqa: E731
    placed = arguments_for({path: known.value for path, known in paste.known.items()},
                           ("host", "host.nvidia_smi", "target.interpreter", "target.torch"))
    smi = None
    if placed["host.nvidia_smi"]:
        smi = NvidiaSmi(found=True, **dict(placed["host.nvidia_smi"], gpus=tuple(get("nvidia_smi.gpu", ()))))
    host = Host(**dict(placed["host"], system=get("host.system", UNKNOWN_SYSTEM), nvidia_smi=smi))
    # Always an interpreter (version () = unknown): layers that need its facts are judged by what the paste holds.
    interpreter = Interpreter(**dict(placed["target.interpreter"], version=tuple(get("interpreter.version") or ()),
                                     sys_platform={"Darwin": "darwin", "Linux": "linux", "Windows": "win32"}.get(host.system),
                                     conda_meta=bool(get("interpreter.conda_subdir"))))
    packages = placed["target.torch"].get("packages", {})
    torch = None
    # torch's own messages (a driver too old, no kernel image) are facts about torch too: TorchInfo.warnings.
    if packages or "message" in paste.known or any(k.startswith("torch.") for k in paste.known):
        failed_import = bool(get("torch.import_failed") and not get("torch.installed") and packages.get("torch"))
        torch = TorchInfo(**dict(
            placed["target.torch"],
            installed=bool(get("torch.installed")) or failed_import,
            import_error=ErrorInfo("ImportError", "torch could not be imported (collect_env printed N/A)") if failed_import else None,
            cuda_version=get("torch.cuda_version", get("torch.wheel_cuda")),
            cuda_devices=devices_from(paste.known, CudaDevice),
            packages=packages, warnings=tuple(get("message", ()))))
    target = Target(python=python_of(paste), device=device, interpreter=interpreter, torch=torch)
    return Facts(host=host, target=target)


def infer_device(paste: Paste) -> str:
    """The device the paste is about (device_choice)."""
    return device_choice(paste).device


def device_choice(paste: Paste) -> Choice:
    """The device the paste is about, from all of its evidence with weights (triage/device.py)."""
    at = [(e.devices, e.line) for e in paste.evidence] + [(m.error.devices, m.line) for m in paste.matches]
    # A sentence that only a prose reader took a fact from still speaks of its device in its other words.
    read = ({n for k in paste.known.values() for n in k.lines} - paste.prose_lines) | {line for _, line in at}
    asked = asked_votes((e.kind, e.line) for e in paste.evidence) + elsewhere_votes((e.checks, e.line) for e in paste.evidence)
    return choose(fact_votes(paste.known) + message_votes(at) + asked + line_votes(paste.lines, read, value(paste, "host.system")))

def python_of(paste: Paste) -> str:
    """How a command for the pasted machine starts its Python: `python` on Windows (python.org's installer and
    conda put no python3 there), else PASTED_PYTHON."""
    return "python" if value(paste, "host.system") == "Windows" else PASTED_PYTHON


# A line that reports an error: a Python exception ("RuntimeError: ...", "torch.cuda.OutOfMemoryError: ..."), pip's
# and uv's "ERROR:" and "error:" lines, and a traceback's head.
# Names are bounded so that the match stays linear in the line's length.
EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]{0,100}\.)?[A-Z]\w{0,60}(?:Error|Exception)(?:: |$)")
ERROR_LINES = (EXCEPTION_LINE, re.compile(r"^(?:ERROR|error): "), re.compile(r"^Traceback \(most recent call last\):"))


# An error in loading code: an import that fails, a library's symbol or operator that is missing, or a message that
# names torch's companions (what mismatched torchvision or torchaudio builds raise).
LOADING_FAILURE = re.compile(r"^(?:ImportError|ModuleNotFoundError|OSError)\b|undefined symbol|\boperator \S{1,100} does not "
                             r"exist\b|\btorch(?:vision|audio)\b")


def unexplained_error(paste: Paste) -> Optional[Line]:
    """The line of the paste that reports an error (an exception first), when nothing explains it; else None."""
    return next((line for pattern in ERROR_LINES for line in paste.lines if pattern.match(line.text)), None)
