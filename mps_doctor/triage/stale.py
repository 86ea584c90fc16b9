"""Stale messages seen through: a message that names a minimum macOS, in a paste whose macOS meets it (or meets the
minimum of the installed torch, read from its wheels), does not mean an old macOS. The catalogue entry says what it
means then (`when_macos_meets_it`); without that, the message no longer blames the macOS version."""

import functools
import json
import re
from typing import Any, Dict, List, Optional, Sequence

from mps_doctor.checking.registry import REGISTRY
from mps_doctor.known_errors import DATA_FILE as CATALOGUE_FILE
from mps_doctor.known_errors import Match, intents_of
from mps_doctor.triage.model import Evidence
from mps_doctor.versions import load_releases, version_tuple

# How torch's messages write a macOS version: 'MacOS 13.0+', 'macOS 15.0+', 'MacOS15+', 'MacOS_14_0', 'MacOS 14.0 or newer'.
STATED = re.compile(r"[Mm]ac ?OS(?: X)?[ _]?(\d{2})(?:[._](\d{1,2}))?")
# The fact of the layer that a message naming a macOS version blames.
MACOS_FACT = "host.macos_version"


@functools.lru_cache(maxsize=None)
def reconciliations() -> Dict[str, dict]:
    """Catalogue id -> what its message means when the paste's macOS meets the version it states."""
    with open(CATALOGUE_FILE, encoding="utf-8") as handle:
        return {entry["id"]: entry["when_macos_meets_it"] for entry in json.load(handle)["errors"]
                if isinstance(entry, dict) and isinstance(entry.get("when_macos_meets_it"), dict)}


def stated_macos(match: Match) -> Optional[str]:
    """The macOS version a matched message names ('14.0'), or None."""
    found = STATED.search(match.text)
    return "%s.%s" % (found.group(1), found.group(2) or "0") if found else None


def pasted_macos(known: Dict[str, Any]) -> Optional[str]:
    """The paste's macOS: sw_vers or collect_env's, else what Python saw (not the compatibility answer 10.16)."""
    for path in ("host.macos_version", "interpreter.mac_ver"):
        value = known[path].value if path in known else None
        if value and not str(value).startswith("10.16"):
            return str(value)
    return None


def torch_minimum(known: Dict[str, Any]) -> Optional[str]:
    """The macOS on which the paste's torch runs MPS, from the release table (read from its wheels); without its
    version, the highest minimum of any release in the table."""
    table = load_releases()
    for path in ("torch.version", "packages.torch"):
        if path in known:
            release, exact = table.row_for(str(known[path].value))
            if release is not None and exact:
                return release.macos_min_mps
    minimums = [release.macos_min_mps for release in table.releases if release.macos_min_mps]
    return max(minimums, key=version_tuple) if minimums else None


def met(match: Match, known: Dict[str, Any]) -> Optional[str]:
    """The paste's macOS when it meets what MATCH's message states (or the installed torch's own minimum), else None."""
    stated, macos = stated_macos(match), pasted_macos(known)
    if not stated or not macos:
        return None
    needed = min((v for v in (stated, torch_minimum(known)) if v), key=version_tuple)
    return macos if version_tuple(macos) >= version_tuple(needed) else None


def reconcile(evidence: Sequence[Evidence], matches: Sequence[Match], known: Dict[str, Any], number_of) -> List[Evidence]:
    """EVIDENCE with each macOS-version message that the paste's macOS meets taken for what it means: its blame of
    the macOS version dropped, and the catalogue's reading of it added. NUMBER_OF(match) is its pasted line."""
    out = list(evidence)
    for match in matches:
        spec = REGISTRY.get(match.error.layer or "")
        if spec is None or not any(MACOS_FACT in requirement.split("|") for requirement in spec.facts):
            continue
        macos = met(match, known)
        if macos is None:
            continue
        number = number_of(match)
        out = [item for item in out if not (item.source == match.error.id and item.line == number)]
        meaning = reconciliations().get(match.error.id)
        if meaning:
            out.append(Evidence(
                (meaning["layer"],), "the message names macOS %s, but this Mac runs macOS %s: MPS is unavailable "
                "for another reason (no usable Metal device)" % (stated_macos(match), macos),
                "torch says MPS needs macOS %s, and the paste shows macOS %s." % (stated_macos(match), macos),
                meaning["cause"], intents_of(meaning.get("actions"))[0], match.error.link, number,
                match.error.id + "-stale", overrides=True, devices=match.error.devices))
    return out
