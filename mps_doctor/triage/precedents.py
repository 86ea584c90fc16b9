"""Precedents: when no line of a paste decides a cause, the cause that confirmed threads worded like it most often had.

A maintainer who has read many threads recognizes the next one before it names its cause ("GPU not used" on Windows is
usually a CPU build). This is that memory, learned from the dev share of tests/pasted/ (never the held-out share): a
naive Bayes model over the words of each case's title and text, counted once per case. Its answer is a suspicion: it
fails the cause's layer as `suspected`, says how it was reached, and its only advice is the full check on that machine.
The model is derived data (`python -m tools.precedents` writes it from the corpus; a test keeps the two equal).
"""

import functools
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

from mps_doctor.checking.model import CheckResult, Remedy, Status
from mps_doctor.checking.registry import all_checks
from mps_doctor.known_errors import by_id
from mps_doctor.report import Report
from mps_doctor.secrets import scrub
from mps_doctor.triage.paste import first_sentence

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "precedents.json"

# A word: an identifier with its dotted or colon-joined parts ("torch.cuda.is_available", "sm_61", "cu121"), bounded so
# that reading stays linear in the text's length.
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,60}(?:[.:][A-Za-z0-9_]{1,60}){0,8}")
# A word is learned only when the texts of this many threads hold it: what threads share, not one reporter's names.
MIN_THREADS = 2
# Naive Bayes' additive smoothing of word counts, chosen by leave-threads-out validation on the dev share
# (docs/measurements.md, round 11).
SMOOTHING = 0.2
# The least share of the model's belief that its likeliest cause must hold to be said, and the least number of learned
# words the text must share with the model: below either, the precedent is too thin to name.
MIN_SHARE = 0.5
MIN_WORDS = 8


def words(text: str) -> FrozenSet[str]:
    """The distinct words of TEXT, lower-cased."""
    return frozenset(word.lower() for word in WORD.findall(text))


def issue_words(text: str, title: Optional[str] = None) -> FrozenSet[str]:
    """The words of an issue: its TITLE and TEXT, with secrets replaced first (as triage reads a paste)."""
    return words(scrub((title or "") + "\n\n" + text))


@dataclass(frozen=True)
class Cause:
    """What the model knows of one cause: how many cases had it, and how many of those held each word."""

    cases: int
    counts: Dict[str, int]
    total: int


@dataclass(frozen=True)
class Precedent:
    """The likeliest cause of a text among those the model learned, its share of the model's belief, and how many
    learned cases and words it stands on."""

    cause: str
    share: float
    cases: int
    learned_cases: int
    shared_words: int


@dataclass(frozen=True)
class Precedents:
    """A naive Bayes model of causes over words."""

    causes: Dict[str, Cause]
    vocabulary: FrozenSet[str]

    @property
    def cases(self) -> int:
        return sum(cause.cases for cause in self.causes.values())

    def ranked(self, text_words: Iterable[str]) -> List[Tuple[str, float]]:
        """Every cause with its share of the belief (they sum to 1) given TEXT_WORDS, likeliest first."""
        known = frozenset(text_words) & self.vocabulary
        cases, size, unseen = self.cases, len(self.vocabulary), math.log(SMOOTHING)
        scores = []
        for cause_id, cause in self.causes.items():
            # A word the cause's cases never held counts log(SMOOTHING); only the words they held are looked at, so that
            # a long paste costs no more than its words.
            held = known & cause.counts.keys() if len(known) < len(cause.counts) else cause.counts.keys() & known
            score = math.log(cause.cases / cases) + len(known) * (unseen - math.log(cause.total + SMOOTHING * size)) + \
                sum(math.log(cause.counts[word] + SMOOTHING) - unseen for word in held)
            scores.append((score, cause_id))
        if not scores:
            return []
        top = max(score for score, _ in scores)
        weights = [(math.exp(score - top), cause_id) for score, cause_id in scores]
        whole = sum(weight for weight, _ in weights)
        return sorted(((cause_id, weight / whole) for weight, cause_id in weights), key=lambda item: (-item[1], item[0]))

    def likeliest(self, text_words: FrozenSet[str], ruled_out: FrozenSet[str] = frozenset()) -> Optional[Precedent]:
        """The cause to suspect for a text of TEXT_WORDS, the likeliest not RULED_OUT (what the text's own facts clear),
        or None when the text shares too few learned words or that cause holds too little of the belief (MIN_WORDS,
        MIN_SHARE)."""
        shared = len(text_words & self.vocabulary)
        ranked = [item for item in self.ranked(text_words) if item[0] not in ruled_out] if shared >= MIN_WORDS else []
        if not ranked or ranked[0][1] < MIN_SHARE:
            return None
        cause_id, share = ranked[0]
        return Precedent(cause_id, share, self.causes[cause_id].cases, self.cases, shared)

    def document(self) -> Dict[str, Any]:
        """The model as data/precedents.json holds it."""
        return {"min_threads": MIN_THREADS, "vocabulary": sorted(self.vocabulary),
                "causes": {cause_id: {"cases": cause.cases, "total": cause.total, "counts": dict(sorted(cause.counts.items()))}
                           for cause_id, cause in sorted(self.causes.items())}}


def learn(cases: Iterable[Tuple[str, str, FrozenSet[str]]]) -> Precedents:
    """The model of CASES, each (its thread, its confirmed cause, its words): a word is learned when the cases of at
    least MIN_THREADS threads hold it."""
    cases = list(cases)
    threads: Dict[str, set] = {}
    for thread, _, case_words in cases:
        for word in case_words:
            threads.setdefault(word, set()).add(thread)
    vocabulary = frozenset(word for word, holders in threads.items() if len(holders) >= MIN_THREADS)
    counted: Dict[str, Dict[str, int]] = {}
    numbers: Dict[str, int] = {}
    for _, cause_id, case_words in cases:
        numbers[cause_id] = numbers.get(cause_id, 0) + 1
        counts = counted.setdefault(cause_id, {})
        for word in case_words & vocabulary:
            counts[word] = counts.get(word, 0) + 1
    return Precedents({cause_id: Cause(numbers[cause_id], counts, sum(counts.values()))
                       for cause_id, counts in counted.items()}, vocabulary)


def from_document(doc: Any) -> Precedents:
    """The model that DOC (Precedents.document) holds; ValueError when it is malformed."""
    try:
        causes = {str(cause_id): Cause(int(entry["cases"]), {str(w): int(n) for w, n in entry["counts"].items()},
                                       int(entry["total"]))
                  for cause_id, entry in doc["causes"].items()}
        vocabulary = frozenset(str(word) for word in doc["vocabulary"])
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ValueError("malformed precedents: %s" % error) from None
    if any(cause.cases < 1 or cause.total < 0 for cause in causes.values()):
        raise ValueError("malformed precedents: a cause without cases")
    return Precedents(causes, vocabulary)


@functools.lru_cache(maxsize=2)
def load(path: str = str(DATA_FILE)) -> Precedents:
    """The shipped model; an empty one (no precedent is ever named) when the file is missing or unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            return from_document(json.load(handle))
    except (OSError, ValueError):
        return Precedents({}, frozenset())


NO_PRECEDENTS = Precedents({}, frozenset())

SUSPECTED_FROM_PRECEDENTS = "suspected from earlier threads"


def what_it_is(cause_id: str) -> str:
    """CAUSE_ID in words: what its layer requires, failing, or the first sentence of its catalogue entry's cause."""
    layers = {spec.id: spec for spec in all_checks()}
    if cause_id in layers:
        return "not met: %s" % layers[cause_id].title
    try:
        return first_sentence(by_id(cause_id).cause)
    except KeyError:
        return cause_id


def with_precedent(report: Report, precedent: Precedent) -> Report:
    """REPORT, which names no cause, with PRECEDENT's cause failing as a suspicion: its layer's result when REPORT has
    one, else a result of its own; the only advice is the full check on the machine (the reply's closing lines)."""
    cause = precedent.cause
    summary = "%s: %s; no line of the paste decides it" % (SUSPECTED_FROM_PRECEDENTS, what_it_is(cause))
    why = ("Of the %d confirmed threads mps-doctor has learned from, the likeliest cause of those worded like this one "
           "(%d learned words in common) is this one, which %d of them had. It is a suspicion, not a finding: run the full "
           "check on that machine before changing anything." % (precedent.learned_cases, precedent.shared_words,
                                                                 precedent.cases))
    remedy = Remedy("No line of the paste decides the cause.", why, (), None, key="precedent",
                    title="Run the full check on that machine")
    existing = next((r for r in report.results if r.id == cause), None)
    catalogued = cause not in {spec.id for spec in all_checks()}
    result = CheckResult(cause, existing.title if existing else what_it_is(cause), existing.layer if existing else None,
                         Status.FAIL, summary, ("the likeliest cause of confirmed threads worded like this paste",), remedy)
    results = tuple(result if r.id == cause else r for r in report.results) if existing else report.results + (result,)
    counts = dict(report.verdict.counts, **{s.value: sum(1 for r in results if r.status == s) for s in Status})
    verdict = replace(report.verdict, state="problem-found", root_cause=cause, suspected=True,
                      known_error=cause if catalogued else None, counts=counts,
                      summary="problem found (%s): %s" % (report.options.device, summary))
    return replace(report, results=results, verdict=verdict)
