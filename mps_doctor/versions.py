"""The torch release table (data/torch_releases.json): Python range, companions, install and MPS minimum macOS per release.

The rows are read from the published artifacts by `python -m tools.refresh`, which prints a diff.
"""

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

DATA_FILE = Path(__file__).resolve().parent / "data" / "torch_releases.json"
# The platforms of a row's free_threaded field, named after their wheel tags (macosx_*_arm64, manylinux_*_x86_64,
# manylinux_*_aarch64, win_amd64).
FREE_THREADED_PLATFORMS = ("macos_arm64", "linux_x86_64", "linux_aarch64", "windows_amd64")
PLATFORM_WORDS = {"macos_arm64": "macOS arm64", "linux_x86_64": "Linux x86_64", "linux_aarch64": "Linux aarch64",
                  "windows_amd64": "Windows amd64"}


@dataclass(frozen=True)
class Release:
    """One torch minor release and what goes with it; every row names its sources."""

    torch: str
    python: str
    torchvision: str
    torchaudio: str
    macos_min_mps: Optional[str]
    intel_mac_wheels: bool
    torch_pin: str
    torchvision_pin: str
    confidence: str
    sources: Tuple[str, ...]
    notes: str = ""
    cuda_builds: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    macos_min_install: Optional[str] = None
    pypi_linux_cuda: Optional[str] = None
    free_threaded: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()

    @property
    def label(self) -> str:
        """How the output names this row."""
        return "torch %s row of torch_releases.json (%s)" % (self.torch, self.confidence)

    def supports_python(self, version: Tuple[int, ...]) -> bool:
        """Whether Python VERSION (major, minor, ...) is in this release's supported range."""
        return "%d.%d" % tuple(version[:2]) in SpecifierSet(self.python)

    def installs_on_macos(self, macos: str) -> bool:
        """Whether this release's macOS arm64 wheels install on MACOS (their platform tag)."""
        return self.macos_min_install is None or version_tuple(macos) >= version_tuple(self.macos_min_install)

    def free_threaded_pythons(self, platform: str) -> Optional[Tuple[str, ...]]:
        """The free-threaded Pythons ('3.14') that have a wheel of this release on PLATFORM (one of
        FREE_THREADED_PLATFORMS, see `wheel_platform`), oldest first; None when the row does not say."""
        return dict(self.free_threaded).get(platform)

    def pip_args(self, torch_spec: Optional[str] = None, vision_spec: Optional[str] = None) -> Tuple[str, str]:
        """The torch and torchvision requirements, pinned together, narrowed to the team's specifiers where these
        leave out part of the pinned release."""
        return requirement("torch", self.torch_pin, torch_spec), requirement("torchvision", self.torchvision_pin, vision_spec)

    def torchaudio_requirement(self, stable_abi_from: str) -> str:
        """torchaudio for this release: its own minor, or, from the stable ABI on (torchaudio STABLE_ABI_FROM and later
        serve that torch and later ones), any torchaudio from the table's minor up to this torch's (torchaudio 2.11.1's
        METADATA: `Requires-Dist: torch>=2.11`, "including all future releases")."""
        if self.torchaudio == self.torch or minor_of(self.torchaudio) < minor_of(stable_abi_from):
            return "torchaudio==%s.*" % self.torchaudio
        major, minor = minor_of(self.torch)
        return "torchaudio>=%s,<%d.%d" % (self.torchaudio, major, minor + 1)


@dataclass(frozen=True)
class ReleaseTable:
    """All rows, oldest first, plus the table-wide facts."""

    releases: Tuple[Release, ...]
    torchaudio_stable_abi_from: str
    last_intel_torch: str
    last_intel_torchvision: str
    updated: str = "?"
    new_environment_python: str = ""
    features_gated: Tuple[str, str] = ("", "")
    features_macos: str = ""
    # Companion versions whose Requires-Dist on torch the rows' minor pairing does not give (those older than the
    # first row, and torchvision 0.29.x): (version, specifier).
    torchvision_requires: Tuple[Tuple[str, str], ...] = ()
    torchaudio_requires: Tuple[Tuple[str, str], ...] = ()

    def row_for(self, torch_version: str) -> Tuple[Optional[Release], bool]:
        """(row, exact) for TORCH_VERSION: the newest row when it is newer than the table (exact False)."""
        key = minor_of(torch_version)
        if key is None:
            return None, False
        for release in self.releases:
            if minor_of(release.torch) == key:
                return release, True
        newest = self.releases[-1]
        if key > minor_of(newest.torch):
            return newest, False
        return None, False

    def requires_of(self, package: str) -> Tuple[Tuple[str, str], ...]:
        """(version, Requires-Dist specifier on torch) of companion PACKAGE (torchvision or torchaudio)."""
        return self.torchvision_requires if package == "torchvision" else self.torchaudio_requires

    def companion_refuses(self, package: str, version: str, torch: str) -> Optional[str]:
        """The Requires-Dist specifier of companion PACKAGE at VERSION on torch when it excludes TORCH (local labels
        such as +cpu ignored), else None."""
        spec = dict(self.requires_of(package)).get(version.split("+")[0])
        try:
            return spec if spec and Version(torch.split("+")[0]) not in SpecifierSet(spec) else None
        except InvalidVersion:
            return None

    def older_than_rows(self, torch: str) -> bool:
        """Whether TORCH is a release before the table's first row."""
        key = minor_of(torch)
        return key is not None and key < minor_of(self.releases[0].torch)

    def companion_minors_before_rows(self, package: str, torch: str) -> Tuple[str, ...]:
        """The minors of PACKAGE ('0.11') whose Requires-Dist names the minor of TORCH, a release older than the rows."""
        key = minor_of(torch)
        minors = {"%d.%d" % minor_of(version) for version, spec in self.requires_of(package) if specifier_minor(spec) == key}
        return tuple(sorted(minors, key=version_tuple))

    def serves_unpinned(self, package: str, version: str, torch: str) -> bool:
        """Whether PACKAGE at VERSION, older than every version with a recorded Requires-Dist (torchvision 0.1-0.2, pure
        Python, unpinned), serves TORCH: a torch older than the first one a companion pins exactly (1.2.0)."""
        recorded = self.requires_of(package)
        exact = [spec[2:] for _, spec in recorded if spec.startswith("==")]
        if not recorded or not exact or dict(recorded).get(version.split("+")[0]):
            return False
        try:
            older = Version(version.split("+")[0]) < min(Version(v) for v, _ in recorded)
            return older and Version(torch.split("+")[0]) < min(Version(v) for v in exact)
        except InvalidVersion:
            return False

    def companion_for(self, package: str, torch: str) -> Optional[str]:
        """The newest version of PACKAGE whose recorded Requires-Dist admits TORCH; None when none does."""
        fits = [version for version, spec in self.requires_of(package) if satisfies(torch, spec)]
        return max(fits, key=version_tuple) if fits else None

    @property
    def first_mps(self) -> str:
        """The first torch with MPS: the table's oldest row (its rows start where MPS did)."""
        return self.releases[0].torch

    @property
    def current(self) -> Release:
        """The newest release whose facts are not unknown: what `pip install torch` gives today."""
        return [r for r in self.releases if r.confidence != "unknown"][-1]

    def newest_for_macos(self, macos: str, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """The newest release whose MPS works on MACOS (and that supports PYTHON when given)."""
        candidates = [
            r for r in self.releases
            if r.macos_min_mps and version_tuple(macos) >= version_tuple(r.macos_min_mps)
            and (python is None or r.supports_python(python))
        ]
        return candidates[-1] if candidates else None

    def newest_installable_on_macos(self, macos: str, python: Optional[Tuple[int, ...]] = None) -> Optional[Release]:
        """What an unpinned `pip install torch` gets on MACOS: the newest release whose wheels install there."""
        candidates = [r for r in self.releases if r.confidence != "unknown" and r.installs_on_macos(macos)
                      and (python is None or r.supports_python(python))]
        return candidates[-1] if candidates else None

    def oldest_python(self) -> str:
        """The lowest Python that any release of the table supports, such as "3.7" (the `>=` bounds of its ranges)."""
        floors = [spec.version for r in self.releases for spec in SpecifierSet(r.python) if spec.operator == ">="]
        return min(floors, key=version_tuple)

    def newest_for_python(self, python: Tuple[int, ...], arm64_mac: bool = False) -> Optional[Release]:
        """The newest known release that supports PYTHON (on an arm64 Mac, one that also has MPS there)."""
        candidates = [r for r in self.releases if r.confidence != "unknown" and r.supports_python(python)]
        return candidates[-1] if candidates else None

    def python_for(self, release: Optional[Release] = None) -> str:
        """The Python ('3.12') for a new environment that gets RELEASE (any release when None): the first of
        new_pythons that RELEASE supports."""
        return next((v for v in self.new_pythons if release is None or release.supports_python(version_tuple(v))),
                    self.new_environment_python)

    @functools.cached_property
    def new_pythons(self) -> Tuple[str, ...]:
        """The Pythons for a new environment in order of preference: new_environment_python, then the others by their
        distance from it (the newer first)."""
        preferred = version_tuple(self.new_environment_python)
        return tuple(sorted(self.pythons, key=lambda v: (abs(version_tuple(v)[1] - preferred[1]), -version_tuple(v)[1])))

    @functools.cached_property
    def pythons(self) -> Tuple[str, ...]:
        """Every Python minor ('3.12') that some row supports, newest first."""
        known = {"3.%d" % minor for minor in range(40) for r in self.releases if r.supports_python((3, minor))}
        return tuple(sorted(known, key=version_tuple, reverse=True))


def mps_minimums(table: ReleaseTable) -> str:
    """The macOS that each release's MPS needs, in runs of rows: '12.3 up to 2.4, 13.0 for 2.5-2.8, 14.0 from 2.9'."""
    runs: List[List[str]] = []
    for release in table.releases:
        if release.macos_min_mps is None:
            continue
        if runs and runs[-1][0] == release.macos_min_mps:
            runs[-1][2] = release.torch
        else:
            runs.append([release.macos_min_mps, release.torch, release.torch])
    words = []
    for index, (macos, first, last) in enumerate(runs):
        if len(runs) > 1 and index == 0:
            words.append("%s up to %s" % (macos, last))
        elif len(runs) > 1 and index == len(runs) - 1:
            words.append("%s from %s" % (macos, first))
        else:
            words.append("%s for %s" % (macos, first if first == last else "%s-%s" % (first, last)))
    return ", ".join(words)


def table_words(table: ReleaseTable) -> Dict[str, str]:
    """The release table's facts that prose in data files names by placeholder (`{last_intel_torch}`)."""
    return {"last_intel_torch": table.last_intel_torch, "last_intel_torchvision": table.last_intel_torchvision,
            "first_mps": table.first_mps,
            "new_environment_python": table.new_environment_python, "mps_minimums": mps_minimums(table)}


def with_table_facts(text: str, table: Optional[ReleaseTable] = None) -> str:
    """TEXT with each `{name}` of table_words replaced by the table's value; other braces are left as they are."""
    words = table_words(table or load_releases())
    return re.sub(r"\{([a-z_]+)\}", lambda match: words.get(match.group(1), match.group(0)), text)


def version_line(tool_version: str) -> str:
    """What `mps-doctor --version` prints: the tool's version and the age and reach of its release table."""
    table = load_releases()
    return "mps-doctor %s (release table of %s, newest row torch %s)" % (
        tool_version, table.updated, table.releases[-1].torch)


def wheel_platform(system: Optional[str], machine: Optional[str]) -> Optional[str]:
    """The FREE_THREADED_PLATFORMS key of a machine (platform.system() and platform.machine()), else None."""
    # platform.machine(): 'arm64' on macOS, 'aarch64' on Linux (also 'arm64' in some containers), 'AMD64' on Windows.
    arch = {"arm64": "arm64", "aarch64": "arm64", "x86_64": "x86_64", "amd64": "x86_64"}.get((machine or "").lower())
    return {("Darwin", "arm64"): "macos_arm64", ("Linux", "x86_64"): "linux_x86_64", ("Linux", "arm64"): "linux_aarch64",
            ("Windows", "x86_64"): "windows_amd64"}.get((system or "", arch or ""))


def satisfies(version: Optional[str], specifier: str) -> bool:
    """Whether VERSION (its public part: 2.13.0+cpu counts as 2.13.0) is in SPECIFIER."""
    try:
        return bool(version) and Version(version).public in SpecifierSet(specifier)
    except (InvalidVersion, InvalidSpecifier):
        return False


def pin_candidates(pin: str, specifier: str) -> Tuple[str, ...]:
    """Versions that stand for the pin PIN ('2.13.*' or '2.2.2') against SPECIFIER: an exact pin itself; for a
    wildcard its first and a far patch, and each version SPECIFIER names inside it with the patch after it (where a
    specifier's edges fall)."""
    if not pin.endswith(".*"):
        return (pin,)
    base = pin[:-2]
    found = [base + ".0", base + ".99999"]
    try:
        named = [s.version for s in SpecifierSet(specifier)]
    except InvalidSpecifier:
        named = []
    for version in named:
        parts = version_tuple(version)
        if not version.endswith("*") and parts[:2] == version_tuple(base)[:2] and len(parts) >= 2:
            patch = parts[2] if len(parts) > 2 else 0
            found += [version, "%d.%d.%d" % (parts[0], parts[1], patch + 1)]
    return tuple(found)


def admits(specifier: Optional[str], pin: str) -> bool:
    """Whether SPECIFIER (None: no requirement) admits some version of the pin PIN ('2.13.*' or '2.2.2')."""
    return not specifier or any(satisfies(v, specifier) for v in pin_candidates(pin, specifier))


def requirement(name: str, pin: str, specifier: Optional[str] = None) -> str:
    """'NAME==PIN', with SPECIFIER added when it leaves out part of what PIN admits (so that the install meets it)."""
    if not specifier or all(satisfies(v, specifier) for v in pin_candidates(pin, specifier)):
        return "%s==%s" % (name, pin)
    return "%s==%s,%s" % (name, pin, ",".join(sorted(str(s) for s in SpecifierSet(specifier))))


def cuda_of_label(digits: str) -> str:
    """'12.1' from the digits of cu121 or cuda121 (the last digit is the minor)."""
    return "%s.%s" % (digits[:-1], digits[-1])


def label_cuda(version: Optional[str]) -> Optional[str]:
    """The CUDA build a torch version's local label names ('11.3' for 1.10.1+cu113), else None."""
    found = re.search(r"\+cu(\d{2,3})$", version or "")
    return cuda_of_label(found.group(1)) if found else None


def specifier_minor(specifier: str) -> Optional[Tuple[int, int]]:
    """(major, minor) of the first version a specifier names ('==1.10.0', '>=1.1.0'); None if it names none."""
    try:
        return minor_of(next(iter(SpecifierSet(specifier))).version)
    except (InvalidSpecifier, StopIteration):
        return None


def minor_of(version: str) -> Optional[Tuple[int, int]]:
    """(major, minor) of a torch version string such as '2.13.0+cpu' or '2.9'; None if it does not parse."""
    try:
        release = Version(version).release
    except (InvalidVersion, TypeError):
        return None
    return (release[0], release[1] if len(release) > 1 else 0)


def is_number(text: str) -> bool:
    """Whether TEXT is ASCII digits: str.isdigit() alone also accepts '²' and '١', which int() and C's stoi reject."""
    return text.isascii() and text.isdigit()


# A version's release numbers (PEP 440's release segment), in ASCII digits only: int() also reads '١' but no version
# spells a number that way.
RELEASE_NUMBERS = re.compile(r"[0-9]+(?:\.[0-9]+)*")


def version_tuple(version: str) -> Tuple[int, ...]:
    """The release numbers VERSION starts with: '14.5.1' is (14, 5, 1), '2.5.0+cu121' and '2.5.0a0' are (2, 5, 0),
    '3.13t' is (3, 13); () when it does not start with a number. The one reading of a version as numbers."""
    found = RELEASE_NUMBERS.match(str(version))
    return tuple(int(part) for part in found.group().split(".")) if found else ()


def at_least(version: str, minimum: str) -> bool:
    """Whether dotted VERSION >= MINIMUM numerically."""
    return version_tuple(version) >= version_tuple(minimum)


@functools.lru_cache(maxsize=None)
def load_releases(path: str = str(DATA_FILE)) -> ReleaseTable:
    """Read and validate the release table shipped in the package."""
    with open(path, encoding="utf-8") as handle:
        doc = json.load(handle)
    releases = tuple(
        Release(
            torch=row["torch"], python=row["python"], torchvision=row["torchvision"], torchaudio=row["torchaudio"],
            macos_min_mps=row["macos_min_mps"], intel_mac_wheels=row["intel_mac_wheels"], torch_pin=row["torch_pin"],
            torchvision_pin=row["torchvision_pin"], confidence=row["confidence"], sources=tuple(row["sources"]),
            notes=row.get("notes", ""), macos_min_install=row.get("macos_min_install"),
            pypi_linux_cuda=row.get("pypi_linux_cuda"),
            free_threaded=tuple((platform, tuple(row["free_threaded"][platform])) for platform in FREE_THREADED_PLATFORMS
                                if platform in row.get("free_threaded", {})),
            cuda_builds=tuple((cuda, tuple(ccs)) for cuda, ccs in sorted(row.get("cuda_builds", {}).items(),
                                                                        key=lambda item: version_tuple(item[0]))),
        )
        for row in doc["releases"]
    )
    return ReleaseTable(
        releases=releases, torchaudio_stable_abi_from=doc["torchaudio_stable_abi_from"],
        last_intel_torch=doc["last_intel_mac_torch"]["torch"],
        last_intel_torchvision=doc["last_intel_mac_torch"]["torchvision"], updated=doc.get("updated", "?"),
        new_environment_python=doc["new_environment_python"]["python"],
        features_gated=tuple(doc["mps_features_gated"]["torch"]), features_macos=doc["mps_features_gated"]["macos"],
        torchvision_requires=tuple(sorted(doc.get("torchvision_requires_torch", {}).get("versions", {}).items())),
        torchaudio_requires=tuple(sorted(doc.get("torchaudio_requires_torch", {}).get("versions", {}).items())),
    )
