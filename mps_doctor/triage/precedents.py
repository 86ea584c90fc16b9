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
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from mps_doctor.checking.model import CHECK_FIRST, CheckResult, Remedy, Status
from mps_doctor.checking.registry import all_checks
from mps_doctor.known_errors import by_id
from mps_doctor.report import Report
from mps_doctor.secrets import home_user_names, scrub
from mps_doctor.triage.paste import FIX_LINE, first_sentence

DATA_FILE = Path(__file__).resolve().parent.parent / "data" / "precedents.json"

# A word: an identifier with its dotted or colon-joined parts ("torch.cuda.is_available", "sm_61", "cu121"), bounded so
# that reading stays linear in the text's length.
# A word right after "@" is a mention (a person), and one inside a longer run of word characters is not a word.
WORD = re.compile(r"(?<![\w@])[A-Za-z_][A-Za-z0-9_]{0,60}(?:[.:][A-Za-z0-9_]{1,60}){0,8}")
# A word is learned only when the texts of this many threads hold it: what threads share, not one reporter's names.
MIN_THREADS = 2
# Naive Bayes' additive smoothing of word counts, chosen by leave-threads-out validation on the dev share
# (docs/measurements.md, round 11).
SMOOTHING = 0.2
# A word that this share of the learned cases or more holds ("the", "is", "torch") tells causes apart too little to
# count as a cue.
COMMON_SHARE = 0.1
# The least share of the model's belief that its likeliest cause must hold to be said, and the least number of cues
# (learned words, not common ones) the text must hold: below either, the precedent is too thin to name.
MIN_SHARE = 0.5
MIN_CUES = 8


# Words that say something goes wrong: an issue the memory answers must say so in its title or text, so that a
# question, a request or thanks is never given a cause (every case it learned from is a report of trouble).
# English words are bounded by letters and digits other than Chinese, Japanese and Korean ones, not by \b: a title
# writes them against its own characters ("MacOS Apple M1无法训练won't complete", RVC-WebUI#414), which \w counts as word
# characters, and an accented word ("noté") is no "not".
NOT_CJK_WORD = r"[^\W\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef]"
# Chinese, Japanese and Korean words that only report trouble (review13 H3): error, went wrong, failed, unable, crashed,
# "stopped", "doesn't work"; not the words for "problem" (问题 also means "question") or "cannot" (不能 is inside 能不能,
# "could you"; できない inside できないでしょうか, "could it"), and none after a word that negates it ("没有错误", "エラー
# なし", "오류 없이").
CJK_TROUBLE = (r"(?<![没沒无無未不])(?<!没有)(?<!沒有)(?:错误|錯誤|报错|報錯|出错|出錯|失败|失敗|崩溃|崩潰)|无法|無法|"
               r"エラー(?!\s?(?:なし|無し|もなく|が出な|は出な))|止まっ|動かない|できなかった|"
               r"(?:오류|에러|실패)(?!\s?(?:없|가 없|가 나지 않))")
TROUBLE = re.compile(r"(?i)(?:error|exception)s?(?!%s)|(?<!%s)(?:fail(?:s|ed|ing|ure)?|not|no|cannot|can['’]t|unable|"
                     r"wrong|slow|crash(?:es|ed|ing)?|broken|missing|unavailable|unsupported|"
                     r"(?:does|do|is|was|are|wo|did|could)n['’]?t|problems?|bugs?|stuck|only|issues?|instead)(?!%s)|%s"
                     % (NOT_CJK_WORD, NOT_CJK_WORD, NOT_CJK_WORD, CJK_TROUBLE))


# A macOS volume's name (/Volumes/SSD2TB/...): the reporter's own, like a home folder's.
VOLUME = re.compile(r"/Volumes/([^/\s'\"]{1,64})")


def words(text: str) -> FrozenSet[str]:
    """The distinct words of TEXT, lower-cased."""
    return frozenset(word.lower() for word in WORD.findall(text))


def tells_trouble(text: str, title: Optional[str] = None) -> bool:
    """Whether the issue's TITLE or TEXT says that something goes wrong (TROUBLE), and its TEXT does not tell that it
    was fixed ("it works now after a restart": paste.FIX_LINE)."""
    return (TROUBLE.search(title or "") is not None or TROUBLE.search(text) is not None) and FIX_LINE.search(text) is None


def issue_words(text: str, title: Optional[str] = None) -> FrozenSet[str]:
    """The words of an issue: its TITLE and TEXT, with secrets replaced first (as triage reads a paste) and the names of
    the home folders and volumes it shows left out."""
    whole = scrub((title or "") + "\n\n" + text)
    personal = home_user_names(whole) + VOLUME.findall(whole)
    return words(whole) - {word for name in personal for word in words(name)}


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
    cues: int


@dataclass(frozen=True)
class Precedents:
    """A naive Bayes model of causes over words."""

    causes: Dict[str, Cause]
    vocabulary: FrozenSet[str]

    @property
    def cases(self) -> int:
        return sum(cause.cases for cause in self.causes.values())

    @functools.cached_property
    def common(self) -> FrozenSet[str]:
        """The learned words that COMMON_SHARE of the learned cases or more hold."""
        holders: Dict[str, int] = {}
        for cause in self.causes.values():
            for word, count in cause.counts.items():
                holders[word] = holders.get(word, 0) + count
        return frozenset(word for word, count in holders.items() if count >= COMMON_SHARE * self.cases)

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

    def cues(self, text_words: FrozenSet[str]) -> int:
        """How many of TEXT_WORDS are learned words that tell causes apart (not common ones)."""
        return len((text_words & self.vocabulary) - self.common)

    def likeliest(self, text_words: FrozenSet[str], ruled_out: FrozenSet[str] = frozenset()) -> Optional[Precedent]:
        """The cause to suspect for a text of TEXT_WORDS, the likeliest not RULED_OUT (what the text's own facts clear),
        or None when the text holds too few cues or that cause holds too little of the belief (MIN_CUES, MIN_SHARE)."""
        cues = self.cues(text_words)
        ranked = [item for item in self.ranked(text_words) if item[0] not in ruled_out] if cues >= MIN_CUES else []
        if not ranked or ranked[0][1] < MIN_SHARE:
            return None
        cause_id, share = ranked[0]
        return Precedent(cause_id, share, self.causes[cause_id].cases, self.cases, cues)

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
    """The model that DOC (Precedents.document) holds; ValueError when it is malformed or inconsistent (a count below 1
    or above its cause's cases, a total that is not the sum of its counts, a counted word outside the vocabulary)."""
    try:
        vocabulary = frozenset(str(word) for word in doc["vocabulary"])
        causes = {str(cause_id): Cause(int(entry["cases"]), {str(w): int(n) for w, n in entry["counts"].items()},
                                       int(entry["total"]))
                  for cause_id, entry in doc["causes"].items()}
    except (KeyError, TypeError, AttributeError, ValueError) as error:
        raise ValueError("malformed precedents: %s" % error) from None
    for cause_id, cause in causes.items():
        if cause.cases < 1 or cause.total != sum(cause.counts.values()) or \
                any(not 1 <= count <= cause.cases for count in cause.counts.values()) or not cause.counts.keys() <= vocabulary:
            raise ValueError("malformed precedents: cause %s is inconsistent" % cause_id)
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
# The facts that say whether torch sees its device: a layer that reads one and passes shows that the layers before it
# in the chain (the system, the driver, the Python, torch's import and build) work.
AVAILABILITY = ("torch.cuda_available", "torch.mps_available")


# The devices a paste read as the CPU by default (device.by_default) may have been about, in this order.
ACCELERATORS = ("cuda", "mps")


def ruled_out(report: Report, causes: Iterable[str], elsewhere: bool = False) -> FrozenSet[str]:
    """The CAUSES that REPORT's paste rules out (issue 20, item 5: a stated fact is never contradicted): a layer outside
    the chain of the report's device; one that passes, or whose every fact the paste states (the engine judged it on
    them); one before a layer that shows torch seeing its device, or after one that fails; a catalogue cause of other
    devices. ELSEWHERE: REPORT reads on an accelerator a paste that names none; a layer its stated facts fail there is
    not ruled out, and every catalogue cause is (the paste names no error)."""
    stated = {fact["fact"] for fact in (report.source or {}).get("facts", ()) if fact.get("parser") != "derived"}
    specs = {spec.id: spec for spec in all_checks()}
    chain = [r for r in report.results if r.layer is not None]
    seen = max((r.layer for r in chain if r.status == Status.PASS and set(specs[r.id].facts) & set(AVAILABILITY)),
               default=0)
    # A layer after one that fails was never judged ("skipped: ... failed"): the failing layer is what stands there.
    failed = min((r.layer for r in chain if r.status == Status.FAIL), default=None)
    cleared = {r.id for r in chain if r.status == Status.PASS or r.layer < seen or failed is not None and r.layer > failed}
    out = set()
    for cause in causes:
        spec = specs.get(cause)
        if spec is not None:
            failing = elsewhere and any(r.id == cause and r.status == Status.FAIL for r in chain)
            if cause in cleared or cause not in {r.id for r in chain} or not failing and spec.facts and all(
                    any(path in stated for path in requirement.split("|")) for requirement in spec.facts):
                out.add(cause)
            continue
        try:
            devices = by_id(cause).devices
        except KeyError:
            out.add(cause)
            continue
        if elsewhere or devices and report.options.device not in devices:
            out.add(cause)
    return frozenset(out)


def what_it_is(cause_id: str) -> str:
    """CAUSE_ID in words: what its layer requires, failing, or the first sentence of its catalogue entry's cause."""
    layers = {spec.id: spec for spec in all_checks()}
    if cause_id in layers:
        return "not met: %s" % layers[cause_id].title
    try:
        return first_sentence(by_id(cause_id).cause)
    except KeyError:
        return cause_id


def suspicion(memory: Precedents, text_words: FrozenSet[str], base: Report,
              elsewhere: Callable[[str], Optional[Report]]) -> Optional[Report]:
    """BASE, a report that names no cause, with the cause MEMORY suspects for a text of TEXT_WORDS; None when it
    suspects none. Where BASE reads the CPU only by default, the paste as ELSEWHERE(device) reads it on each accelerator
    (None: not by default) may hold the likelier suspicion (comfyui-rocm#131: a "+cpu" torch under "GPU not used")."""
    candidates = [(memory.likeliest(text_words, ruled_out(base, memory.causes)), base, False)]
    for device in ACCELERATORS if base.options.device == "cpu" else ():
        other = elsewhere(device)
        if other is not None:
            candidates.append((memory.likeliest(text_words, ruled_out(other, memory.causes, elsewhere=True)), other, True))
    named = [candidate for candidate in candidates if candidate[0] is not None]
    if not named:
        return None
    precedent, report, moved = max(named, key=lambda candidate: candidate[0].share)
    return with_precedent(report, precedent, moved)


def with_precedent(report: Report, precedent: Precedent, moved: bool = False) -> Report:
    """REPORT, which names no cause, with PRECEDENT's cause failing as a suspicion: its layer's result, or a result of
    its own for a catalogue cause; the only advice is the full check on the machine (CHECK_FIRST). MOVED: REPORT reads
    on the memory's device a paste triage reads as the CPU; its `device_from` is what the title and text alone chose."""
    cause = precedent.cause
    device = report.options.device.upper()
    summary = "%s: %s; no line of the paste decides it" % (SUSPECTED_FROM_PRECEDENTS, what_it_is(cause)) if not moved \
        else "%s: %s; the paste does not say that %s was wanted" % (SUSPECTED_FROM_PRECEDENTS, what_it_is(cause), device)
    why = ("Of the %d confirmed threads mps-doctor has learned from, %d had this cause, and it is the likeliest for a text "
           "with this one's words (%d of them tell causes apart). It is a suspicion, not a finding: run the full check "
           "on that machine before changing anything." % (precedent.learned_cases, precedent.cases, precedent.cues))
    remedy = Remedy("No line of the paste decides the cause.", why, (), None, key=CHECK_FIRST,
                    title="Run the full check on that machine")
    existing = next((r for r in report.results if r.id == cause), None)
    result = CheckResult(cause, existing.title if existing else what_it_is(cause), existing.layer if existing else None,
                         Status.FAIL, summary, ("the likeliest cause of confirmed threads worded like this paste",), remedy)
    results = tuple(result if r.id == cause else r for r in report.results) if existing else report.results + (result,)
    counts = dict(report.verdict.counts, **{s.value: sum(1 for r in results if r.status == s) for s in Status})
    verdict = replace(report.verdict, state="problem-found", root_cause=cause, suspected=True,
                      known_error=None if existing is not None and existing.layer is not None else cause, counts=counts,
                      summary="problem found (%s): %s" % (report.options.device, summary))
    source = report.source if not moved else dict(report.source, device_from=(
        "earlier threads worded like this one were about %s (the title and text alone: %s)" % (
            device, (report.source or {}).get("device_from", "nothing in the paste names a device"))))
    return replace(report, results=results, verdict=verdict, source=source)
