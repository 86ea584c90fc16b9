"""NVIDIA's published tables (data/nvidia.json): the highest CUDA a driver runs, a GPU's compute capability by its
name, and the lowest capability a CUDA toolkit builds for; plus the CUDA of old torch releases' PyPI Linux wheels."""

import functools
import json
import re
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from mps_doctor.versions import DATA_FILE as RELEASES_FILE
from mps_doctor.versions import is_number, version_tuple

NVIDIA_FILE = Path(__file__).parent / "data" / "nvidia.json"
COLUMNS = {"Linux": 1, "Windows": 2}
# Words a GPU name may carry that NVIDIA's tables leave out ('NVIDIA GeForce RTX 4090', 'Tesla V100-SXM2-16GB').
DROPPED_WORDS = ("nvidia", "geforce", "tesla")


@functools.lru_cache(maxsize=None)
def tables() -> dict:
    """data/nvidia.json, read once."""
    with open(NVIDIA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


def driver_number(text: str) -> Optional[Tuple[int, ...]]:
    """A driver version as numbers ('535.104.05' -> (535, 104, 5)); None for anything else."""
    found = re.fullmatch(r"\s*(\d{3})\.(\d{1,3})(?:\.(\d{1,3}))?\s*", text or "")
    return tuple(int(part) for part in found.groups() if part is not None) if found else None


def driver_cuda_on(driver: Tuple[int, ...], column: int) -> Optional[str]:
    """The newest CUDA whose minimum driver in COLUMN (1 Linux, 2 Windows) DRIVER reaches; None when DRIVER is past
    the table's newest branch (it runs at least that CUDA, but how much more the table cannot say) or below it all."""
    rows = [(row[0], driver_number(row[column])) for row in tables()["driver_for_cuda"]["rows"] if row[column]]
    if not rows or driver[0] > rows[0][1][0]:
        return None
    return next((cuda for cuda, minimum in rows if driver >= minimum), None)


def driver_cuda(driver_version: str, system: Optional[str]) -> Optional[str]:
    """The highest CUDA that NVIDIA driver DRIVER_VERSION runs on SYSTEM ('Linux', 'Windows'; another or None: only
    when both numberings agree), from NVIDIA's table; None when the table cannot tell."""
    driver = driver_number(driver_version)
    if driver is None:
        return None
    if len(driver) == 3 and system != "Windows":
        # Windows drivers are numbered with two parts (566.36); three (535.104.05) is Linux numbering.
        return driver_cuda_on(driver, COLUMNS["Linux"])
    if system in COLUMNS:
        return driver_cuda_on(driver, COLUMNS[system])
    answers = {driver_cuda_on(driver, column) for column in COLUMNS.values()}
    return answers.pop() if len(answers) == 1 else None


def minimum_driver(cuda: str, system: Optional[str]) -> Optional[str]:
    """The lowest driver that runs CUDA (its minor's GA row) on SYSTEM (Linux when unknown), or None."""
    column = COLUMNS.get(system or "Linux", 1)
    wanted = version_tuple(cuda)[:2]
    return next((row[column] for row in tables()["driver_for_cuda"]["rows"] if version_tuple(row[0])[:2] == wanted), None)


def name_words(name: str) -> List[str]:
    """A GPU name as NVIDIA's tables word it: lower case, without NVIDIA/GeForce/Tesla, a form factor or memory size
    ('NVIDIA A100-SXM4-80GB' -> ['a100'])."""
    text = re.sub(r"-(?:sxm|pcie|pci|nvl|hbm|\d+gb)\S*", " ", name.lower())
    text = re.sub(r"\b\d+\s*gb\b|[(),]", " ", text)
    return [word for word in text.split() if word not in DROPPED_WORDS]


@functools.lru_cache(maxsize=None)
def capability_index() -> Dict[Tuple[str, ...], str]:
    """Every table name's words -> its capability."""
    table = tables()["gpu_capability"]
    index: Dict[Tuple[str, ...], str] = {}
    for part in ("legacy", "current"):
        for capability, names in table[part].items():
            for name in names:
                index[tuple(name_words(name))] = capability
    return index


def capability_of(name: str) -> Optional[str]:
    """The compute capability ('8.6') of GPU NAME by NVIDIA's tables: the longest table name whose words begin it; a
    GeForce series ('RTX 50 series') has the one capability its every member has there."""
    words = tuple(name_words(name or ""))
    index = capability_index()
    for length in range(len(words), 0, -1):
        if words[:length] in index:
            return index[words[:length]]
    series = re.fullmatch(r"((?:rtx|gtx) \d{2}) series", " ".join(words))
    return series_capability(series.group(1)) if series else None


@functools.lru_cache(maxsize=None)
def series_capability(prefix: str) -> Optional[str]:
    """The capability every GeForce of series PREFIX ('rtx 50': RTX 5050 to 5090, not the RTX 5000 workstation card) has
    in NVIDIA's table, else None."""
    found = {capability for words, capability in capability_index().items()
             if len(words) >= 2 and " ".join(words[:2]).startswith(prefix) and re.fullmatch(r"\d{2}[1-9]0", words[1])}
    return found.pop() if len(found) == 1 else None


def cuda_for_capability(capability: str) -> Optional[str]:
    """The first CUDA toolkit that builds code for compute capability CAPABILITY, or None when unknown."""
    wanted = version_tuple(capability)
    rows = sorted(tables()["capability_ceiling"]["rows"], key=lambda row: version_tuple(row[0]))
    return next((toolkit for toolkit, ceiling in rows if version_tuple(ceiling) >= wanted), None)


def capability_floor(cuda: str) -> Optional[str]:
    """The lowest compute capability that a CUDA toolkit of version CUDA builds code for, or None when unknown."""
    wanted = version_tuple(cuda)
    return next((floor for toolkit, floor in tables()["capability_floor"]["rows"] if wanted >= version_tuple(toolkit)),
                None)


@functools.lru_cache(maxsize=None)
def old_pypi_cuda() -> Dict[str, str]:
    """The CUDA of the PyPI Linux x86_64 wheel of torch releases older than the release table's rows."""
    with open(RELEASES_FILE, encoding="utf-8") as handle:
        return dict(json.load(handle).get("pypi_linux_cuda_before_rows", {}))


def pypi_linux_cuda(torch_version: str, releases) -> Optional[str]:
    """The CUDA that plain `pip install torch==TORCH_VERSION` brings on Linux x86_64 (the release table, else the
    older releases' list), or None."""
    found = re.match(r"(\d+)\.(\d+)", torch_version or "")
    if not found or "+" in torch_version:
        return None
    release, exact = releases.row_for(torch_version)
    if release is not None and exact:
        return release.pypi_linux_cuda
    return old_pypi_cuda().get("%s.%s" % found.groups())


def first_default_wheel_for(capability: str, releases):
    """The first release of the table RELEASES whose default PyPI Linux wheel is built with a CUDA that builds code for
    CAPABILITY (cuda_for_capability), or None."""
    toolkit = cuda_for_capability(capability)
    if toolkit is None:
        return None
    return next((row for row in releases.releases
                 if row.pypi_linux_cuda and version_tuple(row.pypi_linux_cuda) >= version_tuple(toolkit)), None)


def newer_than_most_torch(capability: str, releases) -> bool:
    """Whether a GPU of CAPABILITY has kernels in the default wheel of the newer half of the release table's rows only,
    so that most torch installs in use lack them (the RTX 50 series: CUDA 12.8, torch 2.8's default wheel)."""
    first = first_default_wheel_for(capability, releases)
    return first is not None and releases.releases.index(first) >= len(releases.releases) // 2


def source_of(table: str) -> str:
    """The page a table of data/nvidia.json was copied from."""
    part = tables()[table]
    return part.get("source") or part.get("current_source", "")


def minor_compatible(cuda: str) -> bool:
    """Whether a wheel built with CUDA runs on a driver of an older minor of its major (CUDA 11 and later)."""
    return version_tuple(cuda) >= version_tuple(tables()["minor_version_compatibility"]["from"])


def parse_visible_devices(value: str, gpu_count: Optional[int]) -> Tuple[List[str], Optional[str]]:
    """(visible entries, first invalid entry) under NVIDIA's rules: entries after an invalid one are hidden."""
    visible: List[str] = []
    for token in [t.strip() for t in value.split(",")]:
        valid = bool(re.match(r"^(GPU|MIG)-[0-9A-Za-z-]+$", token)) or (
            is_number(token) and (gpu_count is None or int(token) < gpu_count))
        if not valid:
            return visible, token
        visible.append(token)
    return visible, None
