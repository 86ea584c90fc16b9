"""Triage every pasted report in tests/pasted/ and compare the root cause with the one its thread confirmed.

Prints one line per paste (ok or MISS, expected, got, device) and the share diagnosed. Run from the checkout:
    python benchmarks/triage_corpus.py
"""

import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mps_doctor.errors import UsageError  # noqa: E402
from mps_doctor.triage.engine import triage  # noqa: E402


def main() -> int:
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "pasted", "*.txt")))
    hits = 0
    for path in paths:
        with open(path[:-4] + ".json", encoding="utf-8") as handle:
            expected = json.load(handle)["expected_root_cause"]
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        try:
            report = triage(text)
            got, device = report.verdict.root_cause, report.options.device
        except UsageError:
            got, device = "(exit 2: nothing recognizable)", "-"
        hits += got == expected
        print("%-4s %-58s expected %-32s got %s (%s)" % ("ok" if got == expected else "MISS",
                                                         os.path.basename(path)[:-4], expected, got, device))
    print("diagnosed %d of %d pastes to the confirmed cause: %.1f%%" % (hits, len(paths), 100.0 * hits / max(len(paths), 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
