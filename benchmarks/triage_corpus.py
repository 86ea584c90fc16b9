"""Triage every pasted report in tests/pasted/ and compare what it names with the cause its thread confirmed.

A case is diagnosed when the expected cause is the verdict's root cause or the catalogue message that explains it
(`verdict.known_error`); each is triaged under its thread's title, as the workflow passes it (`--body-only`: without
it). Prints the dev cases one per line (ok or MISS, expected, got, device) and, per split, the share diagnosed and
how the misses split between naming another cause (advice that is wrong in public) and naming none; then the same
shares over the cases whose text decides or suggests the cause by at least one of the two readers who rated every case
without seeing triage (`paste_decides`; issue 20 counts the cases "whose environment or error decides it"). Held-out
cases are only counted, never listed, so that nobody tunes triage on them. A dev case is triaged with a memory of
confirmed threads that never saw its own (tools/precedents.py), a held-out case with the shipped memory (`--no-memory`:
without one). Run from the checkout:
    python benchmarks/triage_corpus.py [--body-only] [--no-memory]
"""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mps_doctor.errors import UsageError  # noqa: E402
from mps_doctor.triage.engine import triage  # noqa: E402
from mps_doctor.triage.precedents import NO_PRECEDENTS  # noqa: E402
from tools.precedents import corpus, fold_models, fold_of, model_of  # noqa: E402


def named(text, title=None, precedents=None):
    """(the causes triage names for TEXT under the issue's TITLE, with the memory PRECEDENTS, the device it chose)."""
    try:
        report = triage(text, title=title, precedents=precedents)
    except UsageError:
        return set(), "-"
    return {report.verdict.root_cause, report.verdict.known_error} - {None}, report.options.device


def main() -> int:
    tally = {}
    cases = corpus()
    # A dev case is triaged with the memory of the other threads' groups (tools/precedents.py), a held-out case with
    # the shipped memory, which learned only dev cases.
    folds, shipped = fold_models(cases), model_of(cases)
    for case in cases:
        path = os.path.join(ROOT, "tests", "pasted", case.slug + ".txt")
        with open(path[:-4] + ".json", encoding="utf-8") as handle:
            meta = json.load(handle)
        memory = NO_PRECEDENTS if "--no-memory" in sys.argv else folds[fold_of(case.thread)] if case.split == "dev" else shipped
        got, device = named(case.text, None if "--body-only" in sys.argv else meta["title"], memory)
        hit = meta["expected_root_cause"] in got
        readers = (meta.get("paste_decides") or {}).get("labels") or ()
        splits = [meta["split"]] + (["%s, decided by the paste" % meta["split"]] if set(readers) - {"open"} else [])
        for split in splits:
            counts = tally.setdefault(split, [0, 0, 0])
            counts[0] += hit
            counts[1] += 1
            counts[2] += bool(got) and not hit
        if meta["split"] == "dev":
            print("%-4s %-58s expected %-32s got %s (%s)" % ("ok" if hit else "MISS", os.path.basename(path)[:-4],
                                                             meta["expected_root_cause"], ", ".join(sorted(got)) or "nothing", device))
    for split, (hits, total, other) in sorted(tally.items()):
        print("%s: diagnosed %d of %d pastes to the confirmed cause: %.1f%%; of the misses, %d named another cause and %d"
              " none" % (split, hits, total, 100.0 * hits / total, other, total - hits - other))
    return 0


if __name__ == "__main__":
    sys.exit(main())
