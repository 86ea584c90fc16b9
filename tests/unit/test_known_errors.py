"""The known-error catalogue and the pasted-text corpus: every entry is real, sourced, and matches its own example."""

import glob
import json
import os
import re

import pytest

from mps_doctor.known_errors import load_catalogue as loaded_catalogue
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
CATALOGUE = os.path.join(ROOT, "mps_doctor", "data", "known_errors.json")
PASTED = os.path.join(ROOT, "tests", "pasted")
CHECK_ID = r"^[a-z]+(\.[a-z0-9-]+)+$"
DEVICES = {"mps", "cuda", "cpu"}
KINDS = {
    "collect_env", "lightning_env", "transformers_env", "accelerate_env", "conda_info", "pip_error", "uv_error",
    "install_log", "platform", "sw_vers", "nvidia_smi", "error_only", "mixed",
}
SPLITS = {"dev", "held-out"}
PLATFORMS = {"macos", "linux", "windows", None}


def load_catalogue():
    with open(CATALOGUE, encoding="utf-8") as handle:
        return json.load(handle)


ENTRIES = load_catalogue()["errors"]


def check_ids():
    from mps_doctor.checking.registry import all_checks

    return {spec.id for spec in all_checks()}


def case_names():
    return sorted(name[:-5] for name in os.listdir(PASTED) if name.endswith(".json"))


def test_catalogue_has_version_and_enough_entries():
    catalogue = load_catalogue()
    assert catalogue["version"] == 1
    assert len(ENTRIES) >= 32


def test_catalogue_ids_are_unique_and_dotted():
    ids = [entry["id"] for entry in ENTRIES]
    assert len(ids) == len(set(ids))
    for entry_id in ids:
        assert re.match(CHECK_ID, entry_id), entry_id


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["id"] for entry in ENTRIES])
def test_entry_pattern_matches_its_real_example(entry):
    pattern = re.compile(entry["pattern"], re.MULTILINE)
    assert pattern.search(entry["example"]), entry["id"]


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["id"] for entry in ENTRIES])
def test_entry_is_complete_and_sourced(entry):
    assert set(entry) >= {"id", "pattern", "example", "example_source", "cause", "fix", "layer", "devices", "sources"}
    assert entry["example_source"].startswith("https://")
    assert entry["sources"] and all(url.startswith("https://") for url in entry["sources"])
    assert entry["cause"].strip() and entry["fix"].strip()
    assert entry["devices"] and set(entry["devices"]) <= DEVICES
    assert entry["layer"] is None or entry["layer"] in check_ids()


def test_no_pattern_matches_another_entrys_example_by_accident():
    """Each example is claimed by its own entry; an overlap is allowed only where the narrower entry declares it."""
    ids = {entry["id"] for entry in ENTRIES}
    for entry in ENTRIES:
        for other in ENTRIES:
            if entry is other:
                continue
            if re.search(entry["pattern"], other["example"], re.MULTILINE):
                assert entry["id"] in other.get("more_specific_than", []), (entry["id"], other["id"])
        assert set(entry.get("more_specific_than", [])) <= ids


def test_macos_family_captures_the_stated_version():
    entry = next(e for e in ENTRIES if e["id"] == "mps.macos-too-old")
    for text, version in (
        ("RuntimeError: The MPS backend is supported on MacOS 12.3+.Current OS version can be queried using `sw_vers`",
         "12.3"),
        ("RuntimeError: The MPS backend is supported on macOS 14.0+. Current OS version can be queried using `sw_vers`",
         "14.0"),
    ):
        assert re.search(entry["pattern"], text).group("version") == version


def test_corpus_is_large_enough():
    assert len(case_names()) >= 45


@pytest.mark.per_case
@pytest.mark.parametrize("name", case_names())
def test_per_case_is_valid(name):
    with open(os.path.join(PASTED, name + ".json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    text_path = os.path.join(PASTED, name + ".txt")
    assert os.path.isfile(text_path)
    with open(text_path, "rb") as handle:
        assert handle.read().strip()
    assert meta["url"].startswith("https://")
    assert meta["title"].strip() and meta["confirmed_cause"].strip()
    assert meta["kind"] in KINDS
    assert meta["torch_version"] is None or re.match(r"^\d+\.\d+", meta["torch_version"])
    known = check_ids() | {entry["id"] for entry in ENTRIES}
    assert meta["expected_root_cause"] in known
    assert meta["split"] in SPLITS
    assert meta["platform"] in PLATFORMS


def test_every_corpus_text_has_its_json():
    texts = sorted(name[:-4] for name in os.listdir(PASTED) if name.endswith(".txt"))
    assert texts == case_names()


@pytest.mark.per_case
@pytest.mark.parametrize("name", case_names())
def test_per_case_expecting_a_known_error_contains_it(name):
    """A case whose confirmed cause is a catalogue entry holds text that the entry's pattern matches, in its text or in
    the issue's title, which triage reads when the text names no cause (GraphMAE#9 put DGL's message in the title)."""
    with open(os.path.join(PASTED, name + ".json"), encoding="utf-8") as handle:
        meta = json.load(handle)
    expected = meta["expected_root_cause"]
    entries = {entry["id"]: entry for entry in ENTRIES}
    if expected not in entries:
        assert expected in check_ids()
        return
    with open(os.path.join(PASTED, name + ".txt"), encoding="utf-8") as handle:
        text = meta["title"] + "\n\n" + handle.read()
    from mps_doctor.known_errors import unwrap
    pattern = re.compile(entries[expected]["pattern"], re.MULTILINE | re.IGNORECASE)
    assert pattern.search(text) or pattern.search(unwrap(text)), (name, expected)


def test_the_kinds_the_checks_ask_for_are_closed_and_each_has_entries():
    from mps_doctor.known_errors import IMPORT_FAILURE, KINDS, REMEDIES

    kinds = [entry.get("kind") for entry in ENTRIES if "kind" in entry]
    assert set(kinds) == set(KINDS)
    for entry in ENTRIES:
        assert entry.get("remedy") in (None,) + REMEDIES, entry["id"]
        assert (entry.get("kind") == IMPORT_FAILURE) == ("remedy" in entry), entry["id"]
        assert not entry.get("general") or entry.get("kind") in KINDS, entry["id"]


def test_general_entries_are_read_only_by_the_checks_that_ask_for_their_kind():
    from mps_doctor.known_errors import IMPORT_FAILURE, explain, find_all, first_of_kind, load_catalogue

    general = [error for error in load_catalogue() if error.general]
    assert general
    for error in general:
        assert error.id not in {match.error.id for match in find_all(error.example)}
        assert first_of_kind(error.kind, error.example).id == error.id
    assert explain("ModuleNotFoundError: No module named 'sympy'") is None
    assert first_of_kind(IMPORT_FAILURE, "ModuleNotFoundError: No module named 'sympy'").cause == \
        "a dependency of torch is missing"


def test_a_captured_group_is_its_first_occurrence_that_captures():
    from mps_doctor.known_errors import IMPORT_FAILURE, captured

    text = "No module named x\nNo module named 'sympy.core'\nNo module named 'jinja2'"
    assert captured(IMPORT_FAILURE, "module", text) == "sympy.core"
    assert captured(IMPORT_FAILURE, "module", "No module named x") is None
    assert captured(IMPORT_FAILURE, "no-such-group", text) is None


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["id"] for entry in ENTRIES])
def test_entry_actions_are_in_the_vocabulary(entry):
    """Every entry, and every `on` variant with a fix of its own, states its fix as actions that load."""
    from mps_doctor.known_errors import action_problems

    assert isinstance(entry.get("actions"), list), entry["id"]
    for system, variant in (entry.get("on") or {}).items():
        assert "fix" not in variant or isinstance(variant.get("actions"), list), (entry["id"], system)
    assert action_problems({"errors": [entry]}) == []


@pytest.mark.parametrize("action", [
    {"install_nightly": {}},
    {"run": ["sudo", "systemctl", "restart", "docker"]},
    {"run": ["python", "-m", "pip", "install", "torch"]},
    {"run": ["python", "-m", "pip", "install", "torch==X"]},
    {"run": ["nvidia-smi", "-i", "<index>"]},
    {"run": []},
    {"export": ["lower_case", "1"]},
    {"export": ["NAME", "$(id)"]},
    {"unset": ["NAME"]},
    {"install_packages": ["torch"]},
    {"install_packages": ["numpy; rm -rf ~"]},
    {"install_packages": ["numpy"], "upgrade": "yes"},
    {"install_torch": {"torch": "0.9"}},
    {"install_torch": {"nightly": True}},
    {"new_environment": {"python": "python3"}},
    {"check_again": {"device": "tpu"}},
    {"note": ""},
    {"note": "a", "run": ["uname"]},
    "export NAME=1",
])
def test_an_action_outside_the_vocabulary_fails_its_entry_and_is_dropped_at_load(action):
    """An unknown or malformed action is named by action_problems (this file's test of every entry fails on it); the
    catalogue still loads, with the entry and its valid actions only."""
    from mps_doctor.known_errors import action_problems, parse_catalogue

    doc = {"errors": [{"id": "x.y", "pattern": "boom", "cause": "c", "fix": "f",
                       "actions": [{"unset": "NAME"}, action]}]}
    problems = action_problems(doc)
    assert len(problems) == 1 and problems[0].startswith("x.y: ")
    (entry,) = parse_catalogue(doc)
    assert [(intent.kind, intent.words) for intent in entry.actions] == [("unset", ("NAME",))]


def test_an_on_variant_and_the_stale_reading_have_their_actions_checked_too():
    from mps_doctor.known_errors import action_problems, parse_catalogue

    doc = {"errors": [{"id": "x.y", "pattern": "boom", "cause": "c", "fix": "f", "actions": [],
                       "on": {"Darwin": {"fix": "g", "actions": [{"run": ["brew", "install", "x"]}, {"note": "n"}]}},
                       "when_macos_meets_it": {"actions": [{"open": "x"}]}}]}
    assert len(action_problems(doc)) == 2
    (entry,) = parse_catalogue(doc)
    assert entry.actions == () and [i.kind for i in entry.on("Darwin").actions] == ["note"]


def test_no_catalogue_pattern_is_slow_on_its_own_message_repeated():
    """A paste can repeat the start of any message many times on one line (an issue body is 64 KiB; the CLI reads
    5 MiB): every pattern stays linear there (a `\\w*` before an overlapping class made one cubic). Measured as growth,
    which a shared machine's load does not change: the two sizes are read in turn, best of five each, and four times
    the text may cost at most ten times the time (a quadratic pattern costs sixteen); a search under 50 ms at 64 KiB
    is not measured further (a quadratic one takes seconds there)."""
    import time

    def seconds(pattern, line):
        started = time.process_time()  # CPU time: other workers on the machine hardly change it
        pattern.search(line)
        return time.process_time() - started

    for error in loaded_catalogue():
        found = error.pattern.search(error.example)
        starts = (0, found.start()) if found else (0,)
        for start, size in ((start, size) for start in starts for size in (6, 11, 17, 40)):
            seed = error.example[start:start + size]
            if not seed.strip():
                continue
            line = (seed * (65536 // len(seed) + 1))[:65536]
            if seconds(error.pattern, line) < 0.05:
                continue
            small, large = zip(*((seconds(error.pattern, line[:16384]), seconds(error.pattern, line)) for _ in range(5)))
            assert min(large) < 10 * min(small), (error.id, seed, min(large), min(small))


def test_every_pasted_case_comes_from_a_thread_of_its_own():
    threads = {}
    for path in sorted(glob.glob(os.path.join(PASTED, "*.json"))):
        with open(path, encoding="utf-8") as handle:
            threads.setdefault(json.load(handle)["url"].rstrip("/"), []).append(os.path.basename(path))
    assert not {url: names for url, names in threads.items() if len(names) > 1}


def test_where_a_narrower_entry_occurs_the_broader_one_it_names_is_left_out():
    """`more_specific_than` holds at run time too: comfyui-supir-74's MPSGraph abort is the type-inference entry's."""
    from mps_doctor.known_errors import find_all
    text = ('loc("mps_add"("(mpsFileLoc): /AppleInternal/Library/BuildRoots/x/Library/Caches/com.apple.xbs/Sources/'
            'MetalPerformanceShadersGraph/mpsgraph/MetalPerformanceShadersGraph/Core/Files/MPSGraphUtilities.mm":228:0)):'
            " error: input types 'tensor<1x77x1xf16>' and 'tensor<1x77x768xf32>' are not broadcast compatible\n"
            "LLVM ERROR: Failed to infer result type(s).\n")
    assert [m.error.id for m in find_all(text)] == ["mps.graph-type-inference-abort"]


WRAPPED_FLOAT64 = ("TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework\n"
                   "doesn't support float64. Please use float32 instead.\n")


def test_a_message_wrapped_between_two_words_is_found_on_the_line_it_starts():
    """google-research/tabfm#68's float64 message, broken after "framework": found, shown as pasted, on line 1."""
    from mps_doctor.known_errors import find_all
    found = [(m.error.id, m.line, m.text) for m in find_all("log line\n" + WRAPPED_FLOAT64)]
    assert found == [("mps.float64-unsupported", 2, "Cannot convert a MPS Tensor to float64 dtype as the MPS framework\n"
                      "doesn't support float64")]


@pytest.mark.parametrize("text", [
    "as the MPS framework.\ndoesn't support float64",  # a sentence ended there
    "as the MPS framework\nDoesn't support float64",  # the next line starts a sentence of its own
    "as the MPS framework\n\ndoesn't support float64",  # a blank line between
    '  File "x.py", line 3, in train\n    model.to(torch.float64)',  # a traceback frame and its code
])
def test_unwrap_keeps_line_breaks_that_are_not_soft_wraps(text):
    from mps_doctor.known_errors import unwrap
    assert unwrap(text) == text


def test_unwrap_keeps_every_offset():
    from mps_doctor.known_errors import unwrap
    unwrapped = unwrap(WRAPPED_FLOAT64)
    assert len(unwrapped) == len(WRAPPED_FLOAT64) and unwrapped.count("\n") == WRAPPED_FLOAT64.count("\n") - 1


def test_the_runtimes_busy_or_unavailable_message_is_read_in_both_wordings():
    # libcudart.so of nvidia-cuda-runtime-cu11 11.7.99 and 11.8.89 and of nvidia-cuda-runtime-cu12 12.1.105, 12.4.127
    # and 12.8.90 (read from the PyPI wheels) holds "CUDA-capable device(s) is/are busy or unavailable"; the older
    # runtimes' "all CUDA-capable devices are busy or unavailable" is the wording of WSL#6098.
    entry = next(e for e in ENTRIES if e["id"] == "cuda.devices-unavailable")
    for message in ("RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
                    "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable"):
        assert re.search(entry["pattern"], message), message
