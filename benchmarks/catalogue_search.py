"""What the catalogue's required-text test (mps_doctor/literals.py) saves: known_errors.find_all over every real paste of
tests/pasted/ with the test and without it, as a ratio measured in one run (best of REPEATS each, interleaved), and the
share of triage's time that the search takes with it. Exits 1 when the two find different messages.
Usage: python benchmarks/catalogue_search.py [REPEATS]
"""

import glob
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mps_doctor import known_errors  # noqa: E402
from mps_doctor.errors import UsageError  # noqa: E402
from mps_doctor.triage.engine import triage  # noqa: E402


def pastes():
    """The text of every real paste of tests/pasted/."""
    texts = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "pasted", "*.txt"))):
        with open(path, encoding="utf-8") as handle:
            texts.append(handle.read())
    return texts


def search_all(texts):
    """(CPU seconds, what find_all found) over TEXTS."""
    started = time.process_time()
    found = [[(m.error.id, m.line) for m in known_errors.find_all(text)] for text in texts]
    return time.process_time() - started, found


def triage_all(texts):
    """CPU seconds of triage over TEXTS."""
    started = time.process_time()
    for text in texts:
        try:
            triage(text)
        except UsageError:
            pass
    return time.process_time() - started


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    texts = pastes()
    tested, needles = search_all(texts)[1], known_errors.needles
    best = {"with": float("inf"), "without": float("inf"), "triage": float("inf")}
    same = True
    for _ in range(repeats):
        seconds, found = search_all(texts)
        best["with"] = min(best["with"], seconds)
        known_errors.needles = lambda pattern: None
        try:
            seconds, untested = search_all(texts)
        finally:
            known_errors.needles = needles
        best["without"] = min(best["without"], seconds)
        same = same and found == tested == untested
        best["triage"] = min(best["triage"], triage_all(texts))
    print("%d pastes, best of %d: the catalogue's search %.2fx faster with the required-text test; it is %.0f%% of "
          "triage's time with it, %.0f%% without" % (len(texts), repeats, best["without"] / best["with"],
                                                       100 * best["with"] / best["triage"],
                                                       100 * best["without"] / (best["triage"] - best["with"] + best["without"])))
    print("same messages found: %s" % same)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
