"""The default target: which interpreter `check`, `fix` and `bench` diagnose without --python, and whether an
environment is one a tool runner (pipx, uv tool, uvx, uv run --with) or a venv holding only mps-doctor made for the
doctor itself rather than the user's.
"""

import glob
import os
import re
import sys
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

# What the tools that make an environment for one program leave in it. pipx writes pipx_metadata.json into each venv
# it makes: `pipx install`'s, <PIPX_HOME>/venvs/NAME, and `pipx run`'s, a hash-named folder of its venv cache
# (pipx: src/pipx/pipx_metadata_file.py, PIPX_INFO_FILENAME; src/pipx/paths.py, venvs and venv_cache).
# `uv tool install` writes uv-receipt.toml into <UV_TOOL_DIR>/NAME (docs.astral.sh/uv/concepts/tools).
PIPX_METADATA, UV_TOOL_RECEIPT = "pipx_metadata.json", "uv-receipt.toml"
# uvx runs from environments in uv's cache, <cache>/archive-vN/ID (linked from environments-vN/HASH/HASH); `uv run
# --with` from an overlay, <cache>/builds-vN/.tmpXXXX. uv tags every cache root, --no-cache's temporary one too, with
# CACHEDIR.TAG (uv: crates/uv-cache/src/lib.rs, CacheBucket, Cache::init, Cache::environment, Cache::persist).
UV_CACHE_BUCKET = re.compile(r"(archive|builds|environments)-v[0-9]+\Z")
UV_CACHE_ENVIRONMENT = "a temporary environment in uv's cache: uvx, uv run --with"
# What `python -m venv` (ensurepip), virtualenv and `uv venv --seed` install into every new environment.
SEED_DISTRIBUTIONS = frozenset(("pip", "setuptools", "wheel"))
OWN_VENV = "its own venv, which holds nothing but mps-doctor"


PIPX_RUN_ENVIRONMENT = "pipx run's cached environment"


def runner_environment(prefix: str) -> Optional[str]:
    """What made the environment at PREFIX for one program (pipx, pipx run, uv tool, uvx, uv run --with), in words;
    None when no tool runner or installer did."""
    real = os.path.realpath(prefix)
    if os.path.isfile(os.path.join(real, PIPX_METADATA)):
        return "pipx's environment" if os.path.basename(os.path.dirname(real)) == "venvs" else PIPX_RUN_ENVIRONMENT
    if os.path.isfile(os.path.join(real, UV_TOOL_RECEIPT)):
        return "uv tool's environment"
    folder = real
    for _ in range(2):
        folder = os.path.dirname(folder)
        if UV_CACHE_BUCKET.match(os.path.basename(folder)) and \
                os.path.isfile(os.path.join(os.path.dirname(folder), "CACHEDIR.TAG")):
            return UV_CACHE_ENVIRONMENT
    return None


def ephemeral_environment(prefix: str) -> bool:
    """Whether the environment at PREFIX is one a tool made for one run (uvx, uv run --with, pipx run): its commands
    on PATH are gone, or are another run's, once this one has exited."""
    return runner_environment(prefix) in (UV_CACHE_ENVIRONMENT, PIPX_RUN_ENVIRONMENT)


def installed_distributions(prefix: str) -> Dict[str, str]:
    """The distributions in the site-packages of the environment at PREFIX: their metadata folders by normalized
    name, read from the folder names alone ({name}-{version}.dist-info, the name with "-" escaped as "_":
    packaging.python.org, "Recording installed projects"; NAME.egg-info from setuptools)."""
    found = {}
    for folder in glob.glob(os.path.join(glob.escape(prefix), "lib", "python*", "site-packages")):
        for entry in os.listdir(folder):
            if entry.endswith((".dist-info", ".egg-info")):
                found[canonicalize_name(entry.rsplit(".", 1)[0].split("-")[0])] = os.path.join(folder, entry)
    return found


def doctor_only(prefix: str) -> bool:
    """Whether PREFIX is a venv (a pyvenv.cfg) whose site-packages holds the mps-doctor distribution and nothing but
    what it requires (without extras) and what venv seeds: the doctor's own environment, not the user's."""
    if not os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        return False
    try:
        held = installed_distributions(prefix)
        needed, pending = set(), ["mps-doctor"]
        while pending:
            name = pending.pop()
            if name in needed or name not in held:
                continue
            needed.add(name)
            for line in importlib_metadata.PathDistribution(Path(held[name])).requires or ():
                try:
                    requirement = Requirement(line)
                except InvalidRequirement:
                    continue
                if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                    pending.append(canonicalize_name(requirement.name))
    except (OSError, ValueError, UnicodeError):
        return False
    return "mps-doctor" in held and set(held) <= needed | SEED_DISTRIBUTIONS


def own_environment(prefix: str) -> Optional[str]:
    """Why the environment at PREFIX, the doctor's, is the doctor's own rather than the user's, in words; None when it
    is the user's."""
    return runner_environment(prefix) or (OWN_VENV if doctor_only(prefix) else None)


def env_python(prefix: str) -> Optional[str]:
    """The python executable of the environment at PREFIX, or None."""
    for relative in (("bin", "python"), ("bin", "python3"), ("Scripts", "python.exe"), ("python.exe",)):
        candidate = os.path.join(prefix, *relative)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def pythons_on_path(env: Mapping[str, str]) -> List[str]:
    """Every executable python3 on ENV's PATH, in order, as absolute paths."""
    found = []
    for folder in env.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.abspath(os.path.join(folder, "python3")) if folder else None
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK) and candidate not in found:
            found.append(candidate)
    return found


def default_python(env: Mapping[str, str] = os.environ, cwd: Optional[str] = None, own: str = sys.executable,
                   own_prefix: str = sys.prefix) -> Tuple[str, str]:
    """(interpreter, why) to diagnose when --python is not given, in the order the user means: the active venv unless
    a tool runner made it, the active conda environment, a .venv in CWD or a parent, the doctor's own Python unless
    that environment is the doctor's own (own_environment), the first python3 on PATH that is in neither; the doctor's
    own environment only when nothing else exists."""
    active = env.get("VIRTUAL_ENV")
    made = runner_environment(active) if active else None
    if active and not made and env_python(active):
        return env_python(active), "the active virtual environment (VIRTUAL_ENV)"
    if env.get("CONDA_PREFIX") and env_python(env["CONDA_PREFIX"]):
        return env_python(env["CONDA_PREFIX"]), "the active conda environment (CONDA_PREFIX)"
    quiet = "VIRTUAL_ENV is %s" % made if made else "no environment is active"
    folder = os.path.abspath(cwd or os.getcwd())
    while True:
        found = env_python(os.path.join(folder, ".venv"))
        if found:
            return found, "the .venv in %s (%s)" % (folder, quiet)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    kind = own_environment(own_prefix)
    if kind is None:
        return own, "the Python running mps-doctor (%s)" % quiet
    for candidate in pythons_on_path(env):
        prefix = os.path.dirname(os.path.dirname(candidate))
        if os.path.realpath(prefix) != os.path.realpath(own_prefix) and runner_environment(prefix) is None:
            return candidate, "python3 on PATH (mps-doctor runs in %s)" % kind
    return own, "mps-doctor's own environment (no other Python found; mps-doctor runs in %s)" % kind
