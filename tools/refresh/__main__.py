"""Maintainer tool: read the release facts from the published wheels and diff them against torch_releases.json.
Run from a checkout; the wheel does not ship it.

    python -m tools.refresh [--from 2.2] [--to 2.15] [--index URL] [--no-binaries]
    python -m tools.refresh kernels [--index URL] [--output FILE]   (the MPS kernels per release: kernels.py)

For each torch minor release on the package index it reads, from the artifacts themselves:
- the wheel file names: Python tags (the Python range) and macOS platform tags (the macOS a wheel installs on);
- Requires-Python of the files;
- the torchvision wheels' Requires-Dist on torch (which torchvision pairs with which torch);
- from one macOS arm64 wheel: libtorch_cpu.dylib's minimum macOS (LC_BUILD_VERSION / LC_VERSION_MIN_MACOSX),
  the MPS message text, and the MPSGraph selector that at::mps::MPSDevice tests before it creates a device;
- from one Linux x86_64 wheel: torch/version.py's CUDA version and torch/cuda/__init__.py's
  PYTORCH_RELEASES_CODE_CC.
Wheels are read as zip files through HTTP range requests (the central directory, then only the members needed).
It prints the rows it derives and a diff against the shipped table; it never writes the table. A fact it cannot
read is printed as unreadable, never guessed. The index and the wheels are not trusted: every read is capped (the
MAX_* sizes), every walk over a count or a size from the data stays inside the data, and only http(s) URLs are read.
"""

import argparse
import json
import sys
from typing import List, Optional

from packaging.version import Version

from tools.refresh import index, kernels
from tools.refresh.derive import (
    companion_requirements,
    derive_index_facts,
    diff_rows,
    group_by_minor,
    minor_key,
    read_binary_facts,
    render_row,
)


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["kernels"]:
        return kernels.main(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m tools.refresh", description=__doc__.split("\n")[0])
    parser.add_argument("--index", default=index.PYPI_SIMPLE, help="a PEP 691 simple index (default: PyPI)")
    parser.add_argument("--from", dest="first", default="2.2", help="oldest torch minor to read")
    parser.add_argument("--to", dest="last", default=None, help="newest torch minor to read (default: newest)")
    parser.add_argument("--no-binaries", action="store_true", help="skip the dylib and Linux wheel members")
    parser.add_argument("--json", action="store_true", help="print the derived rows as JSON")
    args = parser.parse_args(argv)
    from mps_doctor.versions import DATA_FILE

    with open(DATA_FILE, encoding="utf-8") as handle:
        shipped = {row["torch"]: row for row in json.load(handle)["releases"]}
    first = minor_key(Version(args.first))
    last = minor_key(Version(args.last)) if args.last else None
    try:
        torch_groups = group_by_minor(index.fetch_project(args.index, "torch"))
        vision = companion_requirements(index.fetch_project(args.index, "torchvision"), "0.13")
        audio = companion_requirements(index.fetch_project(args.index, "torchaudio"), "0.12")
    except (OSError, ValueError) as error:  # an index page that cannot be read, or not trusted: nothing to derive
        print("refresh: %s" % error, file=sys.stderr)
        return 1
    rows = []
    for minor in sorted(torch_groups):
        if minor < first or (last is not None and minor > last):
            continue
        row = derive_index_facts(minor, torch_groups[minor], vision, audio)
        if not args.no_binaries:
            read_binary_facts(row, torch_groups[minor])
        rows.append(row)
        if not args.json:
            print(render_row(row))
            for line in diff_rows(row, shipped.get(row.torch)):
                print("  DIFF " + line)
            sys.stdout.flush()
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
