"""tools/precedents.py: the shipped memory is the dev share's, rebuilt from the corpus, and the folds keep threads apart."""

from mps_doctor.triage.precedents import DATA_FILE
from tools.precedents import FOLDS, corpus, document_text, fold_models, fold_of, model_of

CASES = corpus()


def test_the_shipped_memory_is_the_corpus_dev_share_rebuilt():
    """Relabel or add a case, then run `python -m tools.precedents`: the file is derived, never edited."""
    with open(str(DATA_FILE), encoding="utf-8") as handle:
        assert handle.read() == document_text(model_of(CASES))


def test_only_dev_cases_are_learned():
    model = model_of(CASES)
    assert model.cases == sum(1 for case in CASES if case.split == "dev")
    held_out_only = {case.cause for case in CASES if case.split == "held-out"} - {
        case.cause for case in CASES if case.split == "dev"}
    assert not held_out_only & set(model.causes)


def test_each_fold_model_never_saw_its_own_threads():
    models = fold_models(CASES)
    assert sorted(models) == list(range(FOLDS))
    for fold, model in models.items():
        learned = sum(1 for case in CASES if case.split == "dev" and fold_of(case.thread) != fold)
        assert model.cases == learned < model_of(CASES).cases


def test_folds_are_stable_and_spread():
    # The same on every machine and in every process: SHA-256 of the address modulo FOLDS (9 for this one), not
    # Python's salted hash().
    assert FOLDS == 10 and fold_of("https://github.com/pytorch/pytorch/issues/1") == 9
    sizes = [sum(1 for case in CASES if case.split == "dev" and fold_of(case.thread) == fold) for fold in range(FOLDS)]
    assert min(sizes) > 0.5 * max(sizes)
