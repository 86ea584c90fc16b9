"""Install logs: pip's and uv's resolution errors and torch wheel file names."""

import bisect
import itertools
import re
from dataclasses import replace
from typing import Callable, List, Optional, Sequence, Tuple

from mps_doctor.known_errors import (
    PIP_NO_TORCH,
    PIP_REQUIRES_PYTHON,
    UV_NO_TORCH_WHEEL,
    UV_PLATFORM_TAG,
    UV_PYTHON_ABI,
    Intent,
    by_id,
    intents,
    search,
    trigger,
)
from mps_doctor.triage.model import Evidence, Finding
from mps_doctor.triage.parsers.common import GET_STARTED, WINDOWS_SHOWN, Result, python_version
from mps_doctor.triage.text import Line, joined, matching
from mps_doctor.versions import load_releases, version_tuple
from mps_doctor.versions import version_tuple as vt

# The last torch with macOS x86_64 wheels (PyTorch 2.2 release notes, pytorch#114602; the release table): an index that
# offers nothing newer to this Python is answering an x86_64 macOS interpreter.
LAST_INTEL_MAC = load_releases().last_intel_torch
RELEASE_MATRIX = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
# The kind of message that says no torch wheel fits this interpreter (checks register the kinds that implicate them).
NO_WHEEL = "no-wheel-for-python"
# A Mac named in the paste: its system, a macOS wheel tag or conda subdir, its name or its chip.
MAC_SHOWN = re.compile(r"\bmac ?OS\b|\bDarwin\b|\bmacosx_|\bosx-(?:arm)?64\b|\bMacBook|\bApple M[1-5]\b|\bM[1-5] (?:Pro|Max)\b",
                       re.I)
# The kind of evidence of an x86_64 Python on macOS: an Intel Mac, or Rosetta on Apple Silicon.
X86_64_PYTHON_ON_MAC = "x86_64-python-on-mac"
INTEL_OR_ROSETTA = Evidence(
    (),
    "pip sees only torch wheels up to %s: an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple Silicon)"
    % LAST_INTEL_MAC,
    "The package index offers this Python nothing newer than torch %s." % LAST_INTEL_MAC,
    "%s is the last torch with macOS x86_64 wheels (PyTorch 2.2 release notes). On an Intel Mac that is the "
    "newest torch there is (and MPS needs Apple Silicon); on Apple Silicon `sysctl -n hw.optional.arm64` prints 1 and "
    "the Python runs under Rosetta: install a native arm64 Python." % LAST_INTEL_MAC,
    intents({"run": ["sysctl", "-n", "hw.optional.arm64"]}, {"run": ["python", "-c", "import platform; print(platform.machine())"]}),
    "https://github.com/pytorch/pytorch/issues/114602", source="pip", devices=("mps",), kind=X86_64_PYTHON_ON_MAC)


# The lines the parser reads: the catalogue's install messages, and wheel file names (PEP 427: a name, not a message).
# uv names the interpreter it installs into: "Using Python 3.11.13 environment at: /x/envs/vllm" (uv pip), "Using
# CPython 3.12.4 interpreter at: /usr/bin/python3.12" (uv venv, uv sync).
UV_USING = re.compile(r"^Using (?:C?Python|PyPy) (3\.\d{1,2}\.\d{1,2})\S* (?:environment|interpreter) at\b")
INSTALL_LINE = re.compile("%s|torch-|^Using (?:C?Python|PyPy) 3" % trigger(PIP_NO_TORCH, UV_NO_TORCH_WHEEL, UV_PYTHON_ABI,
                                                                           UV_PLATFORM_TAG, PIP_REQUIRES_PYTHON).pattern,
                          re.IGNORECASE | re.MULTILINE)


def pip_request(text: str) -> Optional[Tuple[Optional[str], Optional[str]]]:
    """(requirement, version listing) that the catalogue's pip message (PIP_NO_TORCH) captures in TEXT: the listing is
    None when the line has none; None when the line is no such error."""
    pip = search(PIP_NO_TORCH, text)
    return (pip.group("requirement"), pip.group("listing")) if pip else None


def uv_no_wheel(text: str) -> bool:
    """Whether uv's no-wheel message (UV_NO_TORCH_WHEEL) follows the first torch in TEXT, or says that the distribution
    can't be installed; each search starts once, so the cost stays linear in the line."""
    torch = TORCH_WORD.search(text)
    if torch and search(UV_NO_TORCH_WHEEL, text[torch.end():]):
        return True
    found = search(UV_NO_TORCH_WHEEL, text)
    return bool(found and found.group("installed") and not OTHER_DISTRIBUTION.search(text, 0, found.start()))


# torch as a word: not the "pytorch" of download.pytorch.org, whose index serves other packages too (uv#12620:
# "Distribution `markupsafe==3.0.2 @ registry+https://download.pytorch.org/whl/cu118` can't be installed").
TORCH_WORD = re.compile(r"\btorch\b")
OTHER_DISTRIBUTION = re.compile(r"Distribution `(?!torch==)[\w.-]{1,100}==")


def parse_install(lines: Sequence[Line]) -> Result:
    """pip and uv resolution errors and wheel file names in install logs."""
    out: List[Finding] = []
    evidence: List[Evidence] = []
    mac_shown = MAC_SHOWN.search(joined(lines)) is not None
    pytorch_index = "download.pytorch.org/whl" in joined(lines)
    rocm_index = ROCM_INDEX.search(joined(lines)) is not None
    off_linux = mac_shown or WINDOWS_SHOWN.search(joined(lines)) is not None
    for _, line in matching(lines, INSTALL_LINE):
        text = line.text
        pip = pip_request(text)
        if pip and pip[1] is not None:
            requirement, listing = pip
            requested = re.search(r"==\s*(\d[\w.+]*)", requirement or "")
            cuda = re.search(r"\+cu\d+", requested.group(1)) if requested else None
            listed = [v.strip() for v in listing.split(",")]
            if cuda and requested.group(1).split("+")[0] in listed:
                # The release exists here, its +cuXYZ build does not. Where pip searched PyTorch's own index, which has
                # CUDA builds for Linux and Windows, or on a Mac, the platform has none; PyPI alone lists no +cuXYZ
                # build anywhere (the catalogue's pip.torch-local-version-not-on-index).
                out.append(Finding("request.cuda_build", requested.group(1), line.number, "pip"))
                evidence += [cuda_build_evidence(requested.group(1), line.number)] if mac_shown or pytorch_index else []
            elif rocm_index and off_linux and listing.strip() == "none":
                # PyTorch's ROCm index holds Linux wheels only: nothing there for Windows or macOS.
                evidence.append(rocm_off_linux_evidence(line.number))
            else:
                evidence += pip_versions(requirement, listing, line.number)
            if requested:
                out.append(Finding("packages.torch", requested.group(1).split("+")[0], line.number, "pip"))
        elif pip:
            evidence.append(no_wheel_evidence(line.number, "pip"))
        refused = {found.group("wheel") for found in by_id(WHEEL_REFUSED).pattern.finditer(text)}
        for wheel in re.finditer(r"\btorch-(\d[\w.+]*)-cp(\d)(\d+)-(?:cp\d+|none|abi3)-(\w+)\.whl", text):
            if wheel.group(0) in refused:
                continue
            out += wheel_findings(wheel, line.number)
            # The wheel pip chose is one for this interpreter's platform: a macOS x86_64 one means an x86_64 Python.
            evidence += [replace(item, summary="pip installs torch's macOS x86_64 wheel: an x86_64 Python on macOS (an "
                                               "Intel Mac, or Rosetta on Apple Silicon)")
                         for item in platform_tag_facts(wheel.group(4), line.number, "wheel")[1]]
        using = UV_USING.match(text)
        if using:
            out.append(Finding("interpreter.version", python_version(using.group(1)), line.number, "uv"))
        uv_abi = search(UV_PYTHON_ABI, text)
        if uv_abi:
            out += [Finding("interpreter.version", python_version(uv_abi.group("python")), line.number, "uv"),
                    Finding("packages.torch", uv_abi.group("torch"), line.number, "uv")]
    refused = search(PIP_REQUIRES_PYTHON, joined(lines))
    if refused:
        python = next(value for value in refused.group("python", "link_python", "listed_python") if value)
        out.append(Finding("interpreter.version", python_version(python), joined(lines).count("\n", 0, refused.start()) + 1,
                           "pip"))
    # uv's hint that names torch on a Windows or Linux platform ("You're on Windows (`win_amd64`), but `torch` (v2.5.1)
    # only has wheels for the following platform: `linux_aarch64`", uv#10843) blames the platform, not the Python.
    hinted = [line.number for index, line in matching(lines, trigger(UV_PLATFORM_TAG))
              if "`torch`" in " ".join(item.text for item in lines[index:index + 2])
              for found in [search(UV_PLATFORM_TAG, line.text)] if found and not found.group("tag").startswith("macosx")]
    for text, number_at in wrapped_messages(lines):
        uv_platform = search(UV_PLATFORM_TAG, text)
        if uv_platform:
            found, implicated = platform_tag_facts(uv_platform.group("tag"), number_at(uv_platform.start("tag")), "uv")
            out += found
            evidence += [replace(item, summary="uv runs an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple "
                                               "Silicon)") for item in implicated]
        if not (uv_platform and uv_platform.group("tag").startswith("macosx")) and uv_no_wheel(text) and \
                not platform_hinted(text, number_at(len(text) - 1), hinted):
            evidence.append(no_wheel_evidence(number_at(0), "uv"))
    return out, evidence


# uv prints its hint a blank line after its error (uv-resolver's pubgrub/report.rs).
HINT_LINES = 3


def platform_hinted(message: str, last: int, hinted: Sequence[int]) -> bool:
    """Whether a uv hint on one of the HINTED lines, within HINT_LINES of the message ending on line LAST (uv wraps
    its hint into the message, or prints it after a blank line), names the platform torch has no wheel for; never for
    a message about the Python's ABI tag."""
    return search(UV_PYTHON_ABI, message) is None and any(last - HINT_LINES < number <= last + HINT_LINES
                                                           for number in hinted)


def wrapped_messages(lines: Sequence[Line]) -> List[Tuple[str, Callable[[int], int]]]:
    """Each run of non-empty LINES that holds an install message, joined into one text as the tool wrote it before
    wrapping it (uv wraps its diagnostics at the terminal's width: "has no wheels with a matching platform tag (e.g.,"
    then "`macosx_10_16_x86_64`)" on the next line), with a function from an offset in it to its pasted line number."""
    out: List[Tuple[str, Callable[[int], int]]] = []
    run: List[Line] = []
    for line in list(lines) + [Line(0, "", "")]:
        if line.text.strip():
            run.append(line)
            continue
        if run:
            texts = [item.text.strip() for item in run]
            text = " ".join(texts)
            if INSTALL_LINE.search(text):
                starts = [0] + list(itertools.accumulate(len(t) + 1 for t in texts[:-1]))
                numbers = [item.number for item in run]
                out.append((text, lambda offset, s=starts, n=numbers: n[bisect.bisect_right(s, offset) - 1]))
        run = []
    return out


def x86_64_python_on_mac(number: int, source: str, problem: str) -> Evidence:
    """The evidence of an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple Silicon) that PROBLEM tells, from
    line NUMBER of SOURCE."""
    return replace(INTEL_OR_ROSETTA, line=number, source=source, problem=problem,
                   summary="an x86_64 Python on macOS (an Intel Mac, or Rosetta on Apple Silicon)")


def platform_tag_facts(tag: str, number: int, source: str) -> Tuple[List[Finding], List[Evidence]]:
    """The system and machine of the interpreter that a PEP 425 platform tag names (macosx_15_0_x86_64, win_amd64,
    manylinux_2_28_x86_64), and, for an x86_64 one on macOS, the evidence of an Intel Mac or Rosetta."""
    mac = re.fullmatch(r"macosx_\d+_\d+_(x86_64|intel|arm64|universal2)", tag)
    if mac:
        machine = {"intel": "x86_64", "universal2": None}.get(mac.group(1), mac.group(1))
        out = [Finding("host.system", "Darwin", number, source)]
        out += [Finding("interpreter.machine", machine, number, source)] if machine else []
        if machine != "x86_64":
            return out, []
        return out, [x86_64_python_on_mac(number, source, "The install is for the platform tag of an x86_64 interpreter "
                                                           "on macOS (%s)." % tag)]
    if tag.startswith("win"):
        return [Finding("host.system", "Windows", number, source)], []
    if tag.startswith(("manylinux", "musllinux")):
        return [Finding("host.system", "Linux", number, source)], []
    return [], []


# PyTorch's ROCm builds and their index (download.pytorch.org/whl/rocm6.2, whl/nightly/rocm5.6): manylinux wheels only,
# AMD's ROCm for PyTorch being a Linux stack (pytorch.org/get-started: ROCm under Linux only).
ROCM_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:nightly/)?rocm\d")


def rocm_off_linux_evidence(number: int) -> Evidence:
    """pip finds no torch on PyTorch's ROCm index from Windows or macOS: its ROCm builds are Linux wheels only."""
    return Evidence(
        (), "PyTorch's ROCm builds are Linux wheels only: the ROCm index has nothing for this system",
        "pip found no torch on PyTorch's ROCm index, which holds Linux wheels only.",
        "PyTorch builds for AMD GPUs (ROCm) only for Linux; on Windows the choices are WSL with a ROCm build, or a "
        "program's DirectML or CPU path; on a Mac, MPS.", (), GET_STARTED, number, "pip", devices=("cuda",),
        kind="cuda-build-off-linux")


def cuda_build_evidence(requested: str, number: int) -> Evidence:
    """A +cuXYZ torch asked for where the index has only plain builds of that release."""
    return Evidence(
        (), "torch %s is a CUDA build: CUDA wheels exist for Linux and Windows, not for this platform" % requested,
        "The requirement pins a CUDA build (+%s) that this platform's index does not have." % requested.split("+", 1)[1],
        "PyTorch publishes CUDA builds for Linux and Windows only; on macOS use the plain release (MPS on Apple Silicon).",
        install_release(requested.split("+")[0]), GET_STARTED, number, "pip",
        devices=("cuda",), kind="cuda-build-off-linux")


def no_wheel_evidence(number: int, source: str) -> Evidence:
    """No torch wheel for this interpreter: usually a Python newer (or older) than the release supports."""
    return Evidence(
        (), "no torch wheel for this Python: a Python version (or platform) that release does not support",
        "The index has no torch wheel that this interpreter can install.",
        "torch publishes wheels per Python minor version; a Python newer than the release (e.g. 3.13 for torch 2.5 "
        "on macOS and Windows), or 32-bit, gets none. Use a Python in the release's range.",
        new_python(None), RELEASE_MATRIX, number, source, kind=NO_WHEEL)


def install_release(version: str) -> Tuple[Intent, ...]:
    """Installing torch VERSION's release (its row of the release table); nothing when VERSION is no plain release
    number or the table lacks it."""
    numbers = re.fullmatch(r"(\d+\.\d+)[\d.]*", version)
    release, exact = load_releases().row_for(numbers.group(1)) if numbers else (None, False)
    return intents({"install_torch": {"torch": release.torch}}) if exact else ()


def new_python(torch: Optional[str]) -> Tuple[Intent, ...]:
    """A new environment with a Python that torch TORCH (any release when None) supports, from the release table."""
    table = load_releases()
    release, exact = table.row_for(torch) if torch else (None, False)
    return intents({"new_environment": {"python": table.python_for(release if exact else None)}})


def pip_versions(requirement: Optional[str], listing: str, number: int) -> List[Evidence]:
    """What pip's 'from versions: ...' list says about the interpreter."""
    versions = [v.strip() for v in listing.split(",") if re.match(r"\s*\d", v)]
    if not versions:
        return [no_wheel_evidence(number, "pip")]
    newest = max(versions, key=vt)
    if vt(newest) == version_tuple(LAST_INTEL_MAC) and all("+" not in v for v in versions):
        return [Evidence(**dict(INTEL_OR_ROSETTA.__dict__, line=number))]
    requested = re.search(r"==\s*(\d[\w.]*)", requirement or "")
    if requested and all(vt(v) > vt(requested.group(1)) for v in versions):
        return [Evidence(
            (), "torch %s has no wheel for this Python: the index offers only %s and newer"
            % (requested.group(1), min(versions, key=vt)),
            "Only torch releases newer than %s have wheels for this Python." % requested.group(1),
            "The Python is newer than torch %s supports; use a Python in its range, or a newer torch." % requested.group(1),
            new_python(requested.group(1)), RELEASE_MATRIX, number, "pip", kind=NO_WHEEL)]
    if requested and all(vt(v) < vt(requested.group(1)) for v in versions):
        return [Evidence(
            (), "torch %s has no wheel for this Python: the newest offered is %s" % (requested.group(1), newest),
            "This Python gets torch up to %s only." % newest,
            "torch %s needs a newer Python than this one (or another platform)." % requested.group(1),
            new_python(requested.group(1)), RELEASE_MATRIX, number, "pip", kind=NO_WHEEL)]
    return []


# pip's word that a wheel's tags do not fit this interpreter (the catalogue's pip.wheel-not-supported): the wheel says
# nothing of the machine but that it is not this one (fastai-v3#4's Linux wheel on a Mac).
WHEEL_REFUSED = "pip.wheel-not-supported"


def wheel_findings(wheel, number: int) -> List[Finding]:
    """Facts in a torch wheel's file name (PEP 427: name-version-python-abi-platform.whl)."""
    version, platform = wheel.group(1), wheel.group(4)
    out = [Finding("packages.torch", version, number, "wheel"),
           Finding("interpreter.version", (int(wheel.group(2)), int(wheel.group(3))), number, "wheel")]
    mac = re.match(r"macosx_\d+_\d+_(\w+)$", platform)
    if mac:
        out += [Finding("host.system", "Darwin", number, "wheel"),
                Finding("interpreter.machine", "x86_64" if mac.group(1) in ("x86_64", "intel") else mac.group(1), number, "wheel")]
    elif "linux" in platform:
        out.append(Finding("host.system", "Linux", number, "wheel"))
        cuda = re.search(r"\+cu(\d+)(\d)$", version)
        if cuda:
            out.append(Finding("torch.wheel_cuda", "%s.%s" % (cuda.group(1), cuda.group(2)), number, "wheel"))
    elif platform.startswith("win"):
        out.append(Finding("host.system", "Windows", number, "wheel"))
    return out
