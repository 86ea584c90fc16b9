"""Deriving the release rows from what the index and the wheels say, and comparing them with the shipped table."""

import ast
import json
import re
import urllib.request
from dataclasses import dataclass, field
from email.parser import HeaderParser
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from tools.refresh.index import (
    MAX_DYLIB_BYTES,
    MAX_TEXT_MEMBER_BYTES,
    WHEEL_ERRORS,
    WheelFile,
    open_remote_zip,
    read_member,
)
from tools.refresh.macho import mps_binary_facts, numeric

MACOS_PLATFORM = re.compile(r"^macosx_(\d+)_(\d+)_(arm64|x86_64|universal2)$")


def cpython_minor(tag) -> Optional[int]:
    """3.X's X for a CPython tag of the regular (not free-threaded) build, else None."""
    match = re.match(r"^cp3(\d+)$", tag.interpreter)
    if not match or tag.abi.endswith("t"):
        return None
    return int(match.group(1))


def macos_platform(platform: str) -> Optional[Tuple[Tuple[int, int], str]]:
    """((major, minor), arch) of a macosx_* platform tag, else None."""
    match = MACOS_PLATFORM.match(platform)
    if not match:
        return None
    return (int(match.group(1)), int(match.group(2))), match.group(3)


def is_linux_x86_64(platform: str) -> bool:
    return platform.startswith(("manylinux", "linux")) and platform.endswith("x86_64")


def pythons_on(wheels: Iterable[WheelFile], platform_test) -> List[int]:
    """Sorted 3.X minors with a regular CPython wheel on the platforms PLATFORM_TEST accepts."""
    return sorted({m for w in wheels for t in w.tags if platform_test(t.platform)
                   for m in [cpython_minor(t)] if m is not None})


def is_macos_arm64(platform: str) -> bool:
    parsed = macos_platform(platform)
    return bool(parsed and parsed[1] in ("arm64", "universal2"))


def is_macos_x86_64(platform: str) -> bool:
    parsed = macos_platform(platform)
    return bool(parsed and parsed[1] in ("x86_64", "universal2"))


def is_linux_aarch64(platform: str) -> bool:
    return platform.startswith(("manylinux", "linux")) and platform.endswith("aarch64")


def is_windows_amd64(platform: str) -> bool:
    return platform == "win_amd64"


# The platforms of a row's free_threaded field (versions.FREE_THREADED_PLATFORMS), and the wheel tags of each.
PLATFORM_TESTS = {"macos_arm64": is_macos_arm64, "linux_x86_64": is_linux_x86_64, "linux_aarch64": is_linux_aarch64,
                  "windows_amd64": is_windows_amd64}


def free_threaded_minor(tag) -> Optional[int]:
    """3.X's X for a CPython tag of the free-threaded build (PEP 703's ABI flag t: cp313-cp313t), else None."""
    match = re.match(r"^cp3(\d+)$", tag.interpreter)
    return int(match.group(1)) if match and tag.abi == tag.interpreter + "t" else None


def free_threaded_pythons(wheels: Iterable[WheelFile]) -> Dict[str, List[str]]:
    """Per platform of PLATFORM_TESTS, the free-threaded Pythons ('3.13', oldest first) that have a wheel."""
    found = {key: sorted({m for w in wheels for t in w.tags if test(t.platform)
                          for m in [free_threaded_minor(t)] if m is not None}) for key, test in PLATFORM_TESTS.items()}
    return {key: ["3.%d" % m for m in minors] for key, minors in found.items()}


def macos_install_minimum(wheels: Iterable[WheelFile]) -> Dict[int, Tuple[int, int]]:
    """Per 3.X minor, the lowest macOS a regular CPython macOS arm64 wheel installs on (its platform tag)."""
    lowest: Dict[int, Tuple[int, int]] = {}
    for wheel in wheels:
        for tag in wheel.tags:
            parsed, minor = macos_platform(tag.platform), cpython_minor(tag)
            if parsed and parsed[1] in ("arm64", "universal2") and minor is not None:
                lowest[minor] = min(lowest.get(minor, parsed[0]), parsed[0])
    return lowest


def python_range(minors: Sequence[int]) -> Optional[str]:
    """'>=3.A,<3.B+1' for contiguous minors A..B, else None."""
    if not minors or list(minors) != list(range(minors[0], minors[-1] + 1)):
        return None
    return ">=3.%d,<3.%d" % (minors[0], minors[-1] + 1)


def torch_requirement(metadata: str) -> Optional[str]:
    """The specifier of the Requires-Dist on torch in a METADATA file ('' for an unpinned torch), else None."""
    for line in HeaderParser().parsestr(metadata).get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if requirement.name.lower() == "torch" and requirement.marker is None:
            return str(requirement.specifier)
    return None


def string_keyed(value) -> dict:
    """VALUE, a dict keyed by strings (a part of PYTORCH_RELEASES_CODE_CC); ValueError for anything else."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError("PYTORCH_RELEASES_CODE_CC: a %s, not a table keyed by strings" % type(value).__name__)
    return value


def capabilities(value) -> List[int]:
    """VALUE, a set of compute capabilities (int), sorted; ValueError for anything else."""
    if not isinstance(value, (set, frozenset, list, tuple)) or not all(isinstance(cc, int) for cc in value):
        raise ValueError("PYTORCH_RELEASES_CODE_CC: a %s, not a set of compute capabilities" % type(value).__name__)
    return sorted(value)


def releases_code_cc(source: str) -> Optional[Dict[str, Dict[str, List[int]]]]:
    """PYTORCH_RELEASES_CODE_CC of a torch/cuda/__init__.py as {cuda: {arch: [cc]}}, or None when it has none;
    ValueError (or SyntaxError) when the source or the table is not one."""
    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError) as error:  # CPython's parser gives these, not SyntaxError, on deep nesting
        raise ValueError("torch/cuda/__init__.py nests too deeply to parse (%s)" % type(error).__name__)
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "PYTORCH_RELEASES_CODE_CC" for t in targets) and node.value is not None:
            try:
                value = ast.literal_eval(node.value)
            except TypeError as error:  # an unhashable set member or dict key
                raise ValueError("PYTORCH_RELEASES_CODE_CC: %s" % error)
            # 2.11 keeps one set per CUDA version (x86_64); later releases split it by architecture.
            return {cuda: {arch: capabilities(ccs) for arch, ccs in string_keyed(by_arch).items()}
                    if isinstance(by_arch, dict) else {"x86_64": capabilities(by_arch)}
                    for cuda, by_arch in string_keyed(value).items()}
    return None


def version_py_cuda(source: str) -> Optional[str]:
    """The `cuda = '13.0'` of torch/version.py (None for a CPU build or when absent)."""
    # The annotation starts at its first non-space: `\s*` and a class with spaces side by side backtrack quadratically.
    match = re.search(r"^cuda\s*(?::\s*[\w\[\],][\w\[\], ]*)?=\s*['\"]([\d.]+)['\"]", source, re.M)
    return match.group(1) if match else None


# --- Deriving rows ------------------------------------------------------------------------------------------
@dataclass
class DerivedRow:
    """The facts of one torch minor, as read from the index; None means not read (see `unreadable`)."""

    torch: str
    newest: str
    python: Optional[str] = None
    requires_python: Optional[str] = None
    macos_min_install: Optional[str] = None
    install_exceptions: Dict[str, str] = field(default_factory=dict)
    intel_mac_wheels: Optional[bool] = None
    free_threaded: Optional[Dict[str, List[str]]] = None
    torchvision: Optional[str] = None
    torchvision_versions: List[str] = field(default_factory=list)
    torchaudio: Optional[str] = None
    torchaudio_versions: List[str] = field(default_factory=list)
    dylib_minimum_os: Optional[str] = None
    mps_message: Optional[str] = None
    mps_gate: Optional[str] = None
    mps_probes: List[str] = field(default_factory=list)
    macos_min_mps: Optional[str] = None
    pypi_linux_cuda: Optional[str] = None
    releases_code_cc: Optional[Dict[str, Dict[str, List[int]]]] = None
    sources: List[str] = field(default_factory=list)
    unreadable: List[str] = field(default_factory=list)


def minor_key(version: Version) -> Tuple[int, int]:
    return version.release[0], version.release[1] if len(version.release) > 1 else 0


def group_by_minor(wheels: Iterable[WheelFile]) -> Dict[Tuple[int, int], List[WheelFile]]:
    groups: Dict[Tuple[int, int], List[WheelFile]] = {}
    for wheel in wheels:
        if not wheel.version.is_prerelease:
            groups.setdefault(minor_key(wheel.version), []).append(wheel)
    return groups


def paired_versions(torch: Version, requirements: Dict[str, Optional[str]]) -> List[Version]:
    """The companion versions of the newest companion minor whose Requires-Dist admits TORCH (an unpinned or missing
    requirement admits nothing: it says nothing about the pairing)."""
    admitting = [Version(v) for v, spec in requirements.items() if spec and torch in Requirement("torch" + spec).specifier]
    if not admitting:
        return []
    newest = minor_key(max(admitting))
    return sorted(v for v in admitting if minor_key(v) == newest)


def derive_index_facts(minor: Tuple[int, int], wheels: List[WheelFile], vision_requirements: Dict[str, Optional[str]],
                       audio_requirements: Optional[Dict[str, Optional[str]]] = None) -> DerivedRow:
    """Python range, install minimum, Intel wheels and the torchvision pairing of one torch minor (newest patch)."""
    newest = max(w.version for w in wheels)
    latest = [w for w in wheels if w.version == newest]
    row = DerivedRow("%d.%d" % minor, str(newest))
    mac, linux = pythons_on(latest, is_macos_arm64), pythons_on(latest, is_linux_x86_64)
    both = sorted(set(mac) & set(linux))
    row.python = python_range(both)
    if row.python is None:
        row.unreadable.append("python: no contiguous CPython range on both macOS arm64 and Linux x86_64")
    row.sources.append("wheel tags of torch %s: macOS arm64 %s, Linux x86_64 %s" % (
        newest, ",".join("cp3%d" % m for m in mac) or "none", ",".join("cp3%d" % m for m in linux) or "none"))
    requires = sorted({w.requires_python for w in latest if w.requires_python})
    row.requires_python = ", ".join(requires) or None
    if requires:
        row.sources.append("Requires-Python of torch %s: %s" % (newest, row.requires_python))
    lowest = macos_install_minimum(latest)
    if lowest:
        floor = min(lowest.values())
        row.macos_min_install = "%d.%d" % floor
        row.install_exceptions = {"3.%d" % m: "%d.%d" % v for m, v in sorted(lowest.items()) if v != floor}
        sample = next(w.filename for w in latest if any(macos_platform(t.platform) and
                                                       macos_platform(t.platform)[0] == floor for t in w.tags))
        row.sources.append("platform tag of %s" % sample)
    else:
        row.unreadable.append("macos_min_install: no macOS arm64 wheel")
    row.intel_mac_wheels = bool(pythons_on(latest, is_macos_x86_64))
    row.free_threaded = free_threaded_pythons(latest)
    row.sources.append("free-threaded wheel tags (cp3XYt) of torch %s: %s" % (newest, "; ".join(
        "%s %s" % (key, ",".join("cp3%st" % v.split(".")[1] for v in pythons) or "none")
        for key, pythons in row.free_threaded.items())))
    for name, requirements in (("torchvision", vision_requirements), ("torchaudio", audio_requirements)):
        if requirements is None:
            continue
        paired = paired_versions(newest, requirements)
        if not paired:
            row.unreadable.append("%s: no %s wheel requires a torch that admits %s" % (name, name, newest))
            continue
        setattr(row, name, "%d.%d" % minor_key(paired[-1]))
        setattr(row, name + "_versions", [str(v) for v in paired])
        row.sources.append("Requires-Dist of %s %s: torch%s" % (
            name, ", ".join(str(v) for v in paired), requirements[str(paired[-1])]))
    return row


def pick_wheel(wheels: List[WheelFile], platform_test, python_minor: int = 12) -> Optional[WheelFile]:
    """A regular CPython 3.PYTHON_MINOR wheel (else any) of the newest version on the platforms PLATFORM_TEST accepts."""
    newest = max(w.version for w in wheels)
    candidates = [w for w in wheels if w.version == newest and any(platform_test(t.platform) for t in w.tags)]
    preferred = [w for w in candidates if any(cpython_minor(t) == python_minor for t in w.tags)]
    return (preferred or candidates or [None])[0]


def read_binary_facts(row: DerivedRow, wheels: List[WheelFile], opener=urllib.request.urlopen) -> None:
    """Fill ROW's dylib, MPS and CUDA facts from one macOS arm64 and one Linux x86_64 wheel."""
    mac = pick_wheel(wheels, is_macos_arm64)
    if mac is None:
        row.unreadable.append("binary: no macOS arm64 wheel")
    else:
        try:
            archive, _ = open_remote_zip(mac.url, mac.size, opener)
            facts = mps_binary_facts(read_member(archive, "torch/lib/libtorch_cpu.dylib", MAX_DYLIB_BYTES))
        except WHEEL_ERRORS as error:
            row.unreadable.append("binary: %s: %s" % (mac.filename, error))
        else:
            row.dylib_minimum_os, row.mps_message = facts.minimum_os, facts.message
            gate = facts.gate
            row.mps_gate = "%s (macOS %s)" % gate if gate else None
            row.mps_probes = ["%s (macOS %s)" % item for item in facts.probed]
            floors = [v for v in (gate[1] if gate else None, row.macos_min_install) if v]
            row.macos_min_mps = max(floors, key=numeric) if floors else None
            row.sources.append("torch/lib/libtorch_cpu.dylib of %s: minimum macOS %s; probed MPSGraph selectors %s; "
                               "message 'MPS backend is supported on macOS %s+'" % (
                                   mac.filename, facts.minimum_os, ", ".join(row.mps_probes) or "none", facts.message))
    linux = pick_wheel(wheels, is_linux_x86_64)
    if linux is None:
        row.unreadable.append("cuda: no Linux x86_64 wheel")
        return
    try:
        archive, _ = open_remote_zip(linux.url, linux.size, opener)
        row.pypi_linux_cuda = version_py_cuda(read_member(archive, "torch/version.py", MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
        row.releases_code_cc = releases_code_cc(
            read_member(archive, "torch/cuda/__init__.py", MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
    except WHEEL_ERRORS + (SyntaxError,) as error:
        row.unreadable.append("cuda: %s: %s" % (linux.filename, error))
        return
    row.sources.append("torch/version.py and torch/cuda/__init__.py of %s: cuda %s; PYTORCH_RELEASES_CODE_CC %s" % (
        linux.filename, row.pypi_linux_cuda, "present" if row.releases_code_cc else "absent"))


def companion_requirements(vision: List[WheelFile], since: str, opener=urllib.request.urlopen) -> Dict[str, Optional[str]]:
    """Per version of a companion (torchvision, torchaudio) from SINCE, the specifier of its Requires-Dist on torch,
    read from one wheel."""
    requirements: Dict[str, Optional[str]] = {}
    for version in sorted({w.version for w in vision if w.version >= Version(since) and not w.version.is_prerelease}):
        wheel = pick_wheel([w for w in vision if w.version == version], is_linux_x86_64) or \
            pick_wheel([w for w in vision if w.version == version], is_macos_arm64)
        if wheel is None:
            requirements[str(version)] = None
            continue
        try:
            archive, _ = open_remote_zip(wheel.url, wheel.size, opener)
            name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            requirements[str(version)] = torch_requirement(read_member(archive, name, MAX_TEXT_MEMBER_BYTES).decode("utf-8"))
        except WHEEL_ERRORS + (StopIteration,):
            requirements[str(version)] = None
    return requirements


# --- Comparing with the shipped table ---------------------------------------------------------------------
COMPARED = ("python", "torchvision", "torchaudio", "macos_min_install", "macos_min_mps", "intel_mac_wheels",
            "pypi_linux_cuda", "free_threaded")


def diff_rows(derived: DerivedRow, shipped: Optional[dict]) -> List[str]:
    """'field: table X, wheels Y' for each compared field that differs (an unread field is not a difference)."""
    if shipped is None:
        return ["no row in the table"]
    lines = []
    for name in COMPARED:
        found = getattr(derived, name)
        if found is None:
            continue
        if shipped.get(name) != found:
            lines.append("%s: table %s, wheels %s" % (name, json.dumps(shipped.get(name)), json.dumps(found)))
    builds = shipped.get("cuda_builds") or {}
    if derived.releases_code_cc:
        listed = {cuda: ["%d.%d" % (cc // 10, cc % 10) for cc in ccs.get("x86_64", [])]
                  for cuda, ccs in derived.releases_code_cc.items()}
        if listed != builds:
            lines.append("cuda_builds (x86_64): table %s, wheel's PYTORCH_RELEASES_CODE_CC %s" % (
                json.dumps(builds, sort_keys=True), json.dumps(listed, sort_keys=True)))
    return lines


def render_row(row: DerivedRow) -> str:
    """One derived row as a short block of text."""
    lines = ["torch %s (newest %s)" % (row.torch, row.newest),
             "  python %s   (Requires-Python %s)" % (row.python, row.requires_python),
             "  macOS install minimum %s%s   Intel-Mac wheels %s" % (
                 row.macos_min_install,
                 "".join(" (Python %s: %s)" % item for item in row.install_exceptions.items()),
                 row.intel_mac_wheels),
             "  torchvision %s (%s)   torchaudio %s (%s)" % (row.torchvision, ", ".join(row.torchvision_versions),
                                                           row.torchaudio, ", ".join(row.torchaudio_versions)),
             "  free-threaded Pythons: %s" % "; ".join("%s %s" % (key, ",".join(pythons) or "none")
                                                       for key, pythons in (row.free_threaded or {}).items())]
    if row.dylib_minimum_os or row.mps_message or row.mps_gate:
        lines.append("  libtorch_cpu minimum macOS %s; message '%s+'; probes %s" % (
            row.dylib_minimum_os, row.mps_message, ", ".join(p.split(":")[0] + ": (" + p.split("(")[-1]
                                                           for p in row.mps_probes) or "none"))
        lines.append("  MPS gate %s => MPS minimum %s" % (row.mps_gate or "none", row.macos_min_mps))
    if row.pypi_linux_cuda or row.releases_code_cc is not None:
        lines.append("  PyPI Linux x86_64 build: CUDA %s; PYTORCH_RELEASES_CODE_CC x86_64 %s" % (
            row.pypi_linux_cuda, {k: v.get("x86_64") for k, v in row.releases_code_cc.items()}
            if row.releases_code_cc else "absent"))
    lines += ["  unreadable: %s" % item for item in row.unreadable]
    return "\n".join(lines)

