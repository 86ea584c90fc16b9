"""Write mps_doctor/data/precedents.json, triage's memory of confirmed threads, from the dev share of tests/pasted/.

Run from a checkout after adding or relabelling pasted cases: `python -m tools.precedents`. Held-out cases are never
learned. `folds` and `fold_models` give what the corpus measurements use for dev cases: models that never saw the
case's own thread (leave-threads-out), so that the dev share measures what the memory carries to new threads.
"""

import glob
import hashlib
import json
import os
import sys
from typing import Dict, List, NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mps_doctor.triage.precedents import DATA_FILE, Precedents, issue_words, learn  # noqa: E402

PASTED = os.path.join(ROOT, "tests", "pasted")
# The number of groups of threads the dev share is split into for its measurement.
FOLDS = 10


class Case(NamedTuple):
    slug: str
    thread: str
    cause: str
    split: str
    title: str
    text: str


def corpus(folder: str = PASTED) -> List[Case]:
    """Every case of FOLDER, in slug order."""
    cases = []
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        with open(path[:-4] + ".json", encoding="utf-8") as handle:
            meta = json.load(handle)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        cases.append(Case(os.path.basename(path)[:-4], meta["url"], meta["expected_root_cause"], meta["split"],
                          meta["title"], text))
    return cases


def model_of(cases: List[Case]) -> Precedents:
    """The model learned from the dev cases among CASES."""
    return learn((case.thread, case.cause, issue_words(case.text, case.title)) for case in cases if case.split == "dev")


def fold_of(thread: str) -> int:
    """The group of THREAD (by its address's SHA-256), the same on every machine."""
    return int(hashlib.sha256(thread.encode("utf-8")).hexdigest(), 16) % FOLDS


def fold_models(cases: List[Case]) -> Dict[int, Precedents]:
    """For each group, the model of the dev cases of every other group."""
    return {fold: model_of([case for case in cases if fold_of(case.thread) != fold]) for fold in range(FOLDS)}


def document_text(model: Precedents) -> str:
    """The file's text for MODEL: JSON with one line per cause, so that a relabelled case shows as a small diff."""
    doc = model.document()
    compact = lambda value: json.dumps(value, sort_keys=True, separators=(",", ":"))  # noqa: E731
    causes = ",\n".join("%s:%s" % (json.dumps(cause_id), compact(entry)) for cause_id, entry in doc["causes"].items())
    return '{"min_threads":%d,\n"vocabulary":%s,\n"causes":{\n%s}}\n' % (doc["min_threads"], compact(doc["vocabulary"]),
                                                                        causes)


def main() -> int:
    model = model_of(corpus())
    with open(str(DATA_FILE), "w", encoding="utf-8") as handle:
        handle.write(document_text(model))
    print("wrote %s: %d causes, %d words, from %d dev cases" % (os.path.relpath(str(DATA_FILE), ROOT), len(model.causes),
                                                                 len(model.vocabulary), model.cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
