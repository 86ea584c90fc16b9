"""MPS kernels per torch release, read from the per-operator headers of the macOS arm64 wheels
(torch/include/ATen/ops/), written to mps_doctor/data/mps_kernels.json.

    python -m tools.refresh kernels [--index URL] [--output FILE]

torchgen writes `<op>_<key>_dispatch.h` for an operator only when one of its overloads has a kernel for that dispatch
key (torchgen/gen.py, the per-operator headers: "if len(declarations) == 0: continue"), and `<op>_native.h`
declares the kernels by name. Per operator (the headers' stem: ATen's root name, `add` for add, add_ and add.out):
- mps: it has `<op>_mps_dispatch.h`, a kernel for the MPS key. A kernel name alone does not say so: `abs_out` is
  the CPU, CUDA and MPS kernel of abs.out;
- composite: it has composite dispatch headers (CompositeImplicitAutograd, CompositeExplicitAutograd,
  CompositeExplicitAutogradNonFunctional) and neither a CPU nor an MPS one. The dispatcher runs a composite kernel
  (written in other operators) on a backend without its own, so what runs on the CPU this way runs on MPS alike
  (`_foreach_mul`: a composite kernel and a CUDA one). Its composite headers must declare more than out= variants
  (`_cudnn_rnn_out`, generated for a CUDA-only operator, calls the CUDA kernel). A name without a backend suffix is
  no sign of a composite kernel: `structured_isin_Tensor_Tensor_out` is the CPU and CUDA kernel of isin;
- mps_kernels: for the mps operators, the kernels `<op>_native.h` names as MPS ones (the word `mps` in the name, not
  a sparse kernel): `structured_isin_Tensor_Tensor_out_mps`, `mps_convolution_backward`.
One wheel per release of the release table is read (the newest patch, CPython 3.12 where there is one): its central
directory, then the `_native.h` of its mps operators and the composite headers of the others, by range requests.
It writes the file only when every release was read, and prints what changed against the file it replaces.
"""

import argparse
import json
import os
import re
import sys
import tempfile
import urllib.request
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Tuple

from packaging.version import Version

from tools.refresh import index
from tools.refresh.derive import group_by_minor, is_macos_arm64, minor_key, pick_wheel
from tools.refresh.macho import numeric

FORMAT = 1
OPS_FOLDER = "torch/include/ATen/ops/"
# The header kinds read (torchgen/gen.py: `<root name>_native.h`, `<root name>_<dispatch key, lower case>_dispatch.h`).
HEADER = re.compile(r"^torch/include/ATen/ops/([A-Za-z0-9_]+?)_(native|mps_dispatch|cpu_dispatch"
                    r"|compositeimplicitautograd_dispatch|compositeexplicitautograd_dispatch"
                    r"|compositeexplicitautogradnonfunctional_dispatch)\.h\Z")
COMPOSITE_KINDS = frozenset({"compositeimplicitautograd_dispatch", "compositeexplicitautograd_dispatch",
                             "compositeexplicitautogradnonfunctional_dispatch"})
BACKEND_KINDS = frozenset({"cpu_dispatch", "mps_dispatch"})
# torchgen's NativeFunction.h declarations, one a line: `struct TORCH_API structured_<kernel> : public ...` and
# `TORCH_API <return type> <kernel>(<arguments>);`.
DECLARATION = re.compile(r"^(?:struct\s+TORCH_API\s+(\w+)|TORCH_API\b[^(\n]*?\b(\w+)\s*\()", re.M)
# torch 2.15's macOS arm64 wheel has 1345 operators; a directory that lists far more is not a torch wheel's.
MAX_OPERATORS = 1 << 14
SOURCE = ("torch/include/ATen/ops/ of one macOS arm64 wheel per release on PyPI (the newest patch, CPython 3.12 where "
          "there is one), read by `python -m tools.refresh kernels`: an operator has an MPS kernel when the wheel ships "
          "<op>_mps_dispatch.h (torchgen writes it only for an operator with a kernel for the MPS key); it is composite "
          "when it has composite dispatch headers that declare more than out= variants, and no CPU or MPS one "
          "(what runs on the CPU through a composite kernel runs on MPS alike); mps_kernels are the MPS kernels "
          "<op>_native.h names")


def operator_headers(names: Iterable[str]) -> Dict[str, FrozenSet[str]]:
    """Per operator, the kinds of per-operator header among the zip member NAMES ('native', 'mps_dispatch', ...)."""
    kinds: Dict[str, set] = {}
    for name in names:
        match = HEADER.match(name)
        if match:
            kinds.setdefault(match.group(1), set()).add(match.group(2))
    return {op: frozenset(found) for op, found in kinds.items()}


def declared_kernels(header: str) -> List[str]:
    """The kernels an `<op>_native.h` declares (structured kernel classes and functions), in order."""
    return [struct or function for struct, function in DECLARATION.findall(header)]


def is_mps_kernel(name: str) -> bool:
    """Whether a kernel's name says MPS: the word `mps` among its words, and not a sparse kernel (SparseMPS)."""
    words = name.split("_")
    return "mps" in words and "sparse" not in words


def is_out_variant(name: str) -> bool:
    """Whether a dispatch function is an out= variant (`abs_out`, `abs_outf`, `_cudnn_rnn_symint_out`)."""
    return name.endswith(("_out", "_outf"))


def composite_candidates(kinds: Mapping[str, FrozenSet[str]]) -> List[str]:
    """The operators with composite dispatch headers and neither a CPU nor an MPS one."""
    return sorted(op for op, found in kinds.items() if found & COMPOSITE_KINDS and not found & BACKEND_KINDS)


def kernel_entry(kinds: Mapping[str, FrozenSet[str]], natives: Mapping[str, str], composites: Mapping[str, str]) -> dict:
    """One release's mps, composite and mps_kernels, from the header KINDS per operator, the text of the
    `<op>_native.h` of its mps operators (NATIVES) and that of the composite headers of the candidates (COMPOSITES)."""
    mps = sorted(op for op, found in kinds.items() if "mps_dispatch" in found)
    composite = [op for op in composite_candidates(kinds)
                 if any(not is_out_variant(name) for name in declared_kernels(composites.get(op, "")))]
    named = {op: sorted({k for k in declared_kernels(natives.get(op, "")) if is_mps_kernel(k)}) for op in mps}
    return {"mps": mps, "composite": composite, "mps_kernels": {op: names for op, names in named.items() if names}}


def read_release(wheel: index.WheelFile, opener=urllib.request.urlopen) -> dict:
    """The entry of the release of WHEEL, read from its headers by range requests; the errors of index.WHEEL_ERRORS."""
    archive, _ = index.open_remote_zip(wheel.url, wheel.size, opener)
    kinds = operator_headers(archive.namelist())
    if not kinds:
        raise ValueError("no per-operator headers under %s" % OPS_FOLDER)
    if len(kinds) > MAX_OPERATORS:
        raise index.TooLarge("%d operators, over the cap of %d" % (len(kinds), MAX_OPERATORS))
    wanted = {OPS_FOLDER + op + "_native.h": op for op, found in kinds.items() if {"native", "mps_dispatch"} <= found}
    wanted.update({"%s%s_%s.h" % (OPS_FOLDER, op, kind): op for op in composite_candidates(kinds)
                   for kind in kinds[op] & COMPOSITE_KINDS})
    # In the order they lie in the wheel, so that each range read ahead serves the next members.
    members = sorted((info for info in archive.infolist() if info.filename in wanted), key=lambda info: info.header_offset)
    natives: Dict[str, str] = {}
    composites: Dict[str, str] = {}
    for info in members:
        text = index.read_member(archive, info.filename, index.MAX_TEXT_MEMBER_BYTES).decode("utf-8")
        into = natives if info.filename.endswith("_native.h") else composites
        into[wanted[info.filename]] = into.get(wanted[info.filename], "") + text
    return dict({"wheel": wheel.filename, "sha256": wheel.sha256}, **kernel_entry(kinds, natives, composites))


def read_kernels(wheels: Sequence[index.WheelFile], releases: Sequence[str],
                 opener=urllib.request.urlopen) -> Tuple[Dict[str, dict], List[str], List[str]]:
    """(entries, skipped, errors) for RELEASES ('2.9'): a release without a macOS arm64 wheel is skipped; one whose
    wheel cannot be read is an error."""
    groups = group_by_minor(wheels)
    entries: Dict[str, dict] = {}
    skipped, errors = [], []
    for release in releases:
        group = groups.get(minor_key(Version(release)))
        wheel = pick_wheel(group, is_macos_arm64) if group else None
        if wheel is None:
            skipped.append("%s: no macOS arm64 wheel on the index" % release)
            continue
        try:
            entries[release] = read_release(wheel, opener)
        except index.WHEEL_ERRORS as error:
            errors.append("%s: %s: %s" % (release, wheel.filename, error))
    return entries, skipped, errors


def render_document(entries: Mapping[str, dict]) -> str:
    """The file's text: releases oldest first, one a line, lists sorted."""
    releases = sorted(entries, key=numeric)
    lines = ["{", ' "format": %d,' % FORMAT, ' "source": %s,' % json.dumps(SOURCE), ' "releases": {']
    lines += ["  %s: %s%s" % (json.dumps(release), json.dumps(entries[release], separators=(",", ":")),
                              "," if position < len(releases) - 1 else "")
              for position, release in enumerate(releases)]
    return "\n".join(lines + [" }", "}"]) + "\n"


def changes(old: Optional[dict], new: dict) -> List[str]:
    """What NEW says that OLD (the same release in the file replaced) did not: the wheel, and the operators that
    gained or lost an MPS kernel or a composite one."""
    if old is None:
        return ["new release"]
    found = [] if old.get("wheel") == new["wheel"] else ["wheel %s (was %s)" % (new["wheel"], old.get("wheel"))]
    for field in ("mps", "composite"):
        gained, lost = sorted(set(new[field]) - set(old.get(field, []))), sorted(set(old.get(field, [])) - set(new[field]))
        found += ["%s +%s" % (field, " +".join(gained))] if gained else []
        found += ["%s -%s" % (field, " -".join(lost))] if lost else []
    return found


def table_releases() -> List[str]:
    """The releases of the shipped release table, oldest first."""
    from mps_doctor.versions import DATA_FILE

    with open(DATA_FILE, encoding="utf-8") as handle:
        return [row["torch"] for row in json.load(handle)["releases"]]


def previous_entries(path: str) -> Dict[str, dict]:
    """The releases of the file at PATH, to compare with; none when it is missing or not such a file."""
    try:
        with open(path, encoding="utf-8") as handle:
            releases = json.load(handle).get("releases")
    except (OSError, ValueError, AttributeError):
        return {}
    return {k: v for k, v in releases.items() if isinstance(v, dict)} if isinstance(releases, dict) else {}


def write_atomically(path: str, text: str) -> None:
    """Replace PATH with TEXT, never leaving a half-written file."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)


def main(argv: Optional[List[str]] = None, opener=urllib.request.urlopen) -> int:
    from mps_doctor.mps_ops import DATA_FILE

    parser = argparse.ArgumentParser(prog="python -m tools.refresh kernels", description=__doc__.split("\n")[0])
    parser.add_argument("--index", default=index.PYPI_SIMPLE, help="a PEP 691 simple index (default: PyPI)")
    parser.add_argument("--output", default=str(DATA_FILE), help="the file to write (default: the package's)")
    args = parser.parse_args(argv)
    try:
        wheels = index.fetch_project(args.index, "torch", opener)
    except (OSError, ValueError) as error:
        print("refresh: %s" % error, file=sys.stderr)
        return 1
    entries, skipped, errors = read_kernels(wheels, table_releases(), opener)
    previous = previous_entries(args.output)
    for release in sorted(entries, key=numeric):
        entry = entries[release]
        print("torch %s: %s: %d with an MPS kernel, %d composite; %s" % (
            release, entry["wheel"], len(entry["mps"]), len(entry["composite"]),
            "; ".join(changes(previous.get(release), entry)) or "unchanged"))
    for line in skipped:
        print("skipped " + line)
    for line in errors:
        print("refresh: " + line, file=sys.stderr)
    if errors or not entries:
        print("refresh: %s not written" % args.output, file=sys.stderr)
        return 1
    write_atomically(args.output, render_document(entries))
    return 0
