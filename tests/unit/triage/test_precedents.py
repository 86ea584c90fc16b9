"""triage/precedents.py: the memory of confirmed threads, and how triage uses it when no line of a paste decides."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mps_doctor.checking.model import CHECK_FIRST, Status
from mps_doctor.errors import UsageError
from mps_doctor.render.triage import render_triage
from mps_doctor.triage import precedents
from mps_doctor.triage.engine import triage
from mps_doctor.triage.precedents import (
    MIN_CUES,
    NO_PRECEDENTS,
    from_document,
    issue_words,
    learn,
    load,
    tells_trouble,
    words,
)

GPU_UNUSED = ("cuda gpu not used windows training runs on cpu slow nvidia geforce rtx card installed pip torch "
              "why is my gpu idle")
MAC_WORDS = "mac m1 mps float64 error metal macos apple silicon convert tensor double unsupported framework"


@pytest.fixture(autouse=True)
def nothing_common(monkeypatch):
    """In a memory of four cases every word is held by a tenth of them: here no word is common, so each is a cue."""
    monkeypatch.setattr(precedents, "COMMON_SHARE", 1.01)


def toy_model():
    """Two causes, each from two threads, sharing no words but 'torch'."""
    return learn([
        ("thread/1", "torch.cuda-built", words(GPU_UNUSED)),
        ("thread/2", "torch.cuda-built", words(GPU_UNUSED + " again")),
        ("thread/3", "mps.float64-unsupported", words(MAC_WORDS + " torch")),
        ("thread/4", "mps.float64-unsupported", words(MAC_WORDS + " torch please")),
    ])


def test_words_are_lower_cased_identifiers_with_their_dotted_parts():
    assert words("RuntimeError: torch.cuda.is_available() False sm_61 cu121") >= {
        "runtimeerror", "torch.cuda.is_available", "false", "sm_61", "cu121"}
    assert words("") == frozenset()


def test_common_words_are_no_cues(monkeypatch):
    monkeypatch.setattr(precedents, "COMMON_SHARE", 0.6)
    model = toy_model()
    assert "torch" in model.common and "gpu" not in model.common
    assert model.cues(words("torch torch gpu")) == 1


def test_mentions_home_folders_and_volumes_are_not_words():
    got = issue_words("cc @someonesname see /Users/jdoe/x and /Volumes/MyDisk2/y and C:\\Users\\kim\\z", "t")
    assert not {"someonesname", "jdoe", "mydisk2", "kim"} & got
    assert {"see", "x", "y", "z"} <= got


@pytest.mark.parametrize("title,text,trouble", [
    ("Thank you for this great project", "", False),
    ("Feature request: add a dark theme", "Thanks!", False),
    ("GPU not used", "", True),
    ("question", "RuntimeError: something", True),
    ("MPS not available", "Never mind, it works now after a restart. Thanks for the help!", False),
    # rvc#414: "won't", with a straight or a typographic apostrophe, and "doesn’t".
    ("Training won't complete", "", True),
    ("Training won’t complete", "", True),
    ("The GPU doesn’t show up", "", True),
    ("A wonton recipe", "", False),
    # rvc#414's title: an English word written against Chinese characters, and the Chinese word for "unable".
    ("MacOS Apple M1无法训练won't complete the the training process", "", True),
    ("训练won't complete", "", True),
    ("MacOS Apple M1无法训练", "", True),
    ("学習率０で止まってしまう問題。", "", True),
    ("运行报错", "", True),
    ("エラーが出ます", "", True),
    ("GPU 오류", "", True),
    # review13 H3: questions, requests and thanks in Chinese, Japanese and Korean, and trouble words negated.
    ("谢谢你的项目", "", False),
    ("能不能支持Apple Silicon的MPS加速？", "", False),
    ("请教一个关于MPS的问题", "", False),
    ("Apple SiliconのMPSに対応できないでしょうか？", "", False),
    ("已解决，谢谢", "按照 README 重新安装以后没问题了，谢谢作者！没有错误。", False),
    ("감사합니다", "문제없이 잘 작동합니다. 오류 없이 됩니다!", False),
    ("ありがとう", "エラーなしで動きました", False),
    # review13 L1: an accented word is no English one, and "cant" alone is not "can't".
    ("Merci, c'est noté", "Trabalho notável! Joyeux Noël", False),
    ("Thanks! I cant wait to try it", "", False),
    ("Canton and notary", "", False),
    # Inside a word or an identifier ("notebook", "cannot_be_here") a word tells nothing, as with \b before.
    ("notebook for the knowledge base", "", False),
    ("cannot_be_here_only_name", "", False),
    ("A wonton recipe", "see readonly_cpu_notes", False),
])
def test_only_an_issue_that_tells_trouble_is_answered(title, text, trouble):
    assert tells_trouble(text, title) is trouble


def test_issue_words_replace_secrets_before_reading():
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    assert not any(token.lower() in word for word in issue_words("my token is %s" % token, "title"))


def test_a_word_of_one_thread_is_not_learned():
    model = toy_model()
    assert "again" not in model.vocabulary and "please" not in model.vocabulary
    assert {"gpu", "mps", "torch"} <= model.vocabulary


def test_the_likeliest_cause_is_the_one_whose_threads_share_the_words():
    model = toy_model()
    ranked = model.ranked(words(GPU_UNUSED))
    assert ranked[0][0] == "torch.cuda-built"
    assert sum(share for _, share in ranked) == pytest.approx(1.0)
    assert model.likeliest(words(MAC_WORDS)).cause == "mps.float64-unsupported"


def test_too_few_cues_name_nothing():
    model = toy_model()
    few = frozenset(sorted(words(GPU_UNUSED))[:MIN_CUES - 1])
    assert model.likeliest(few) is None
    assert model.likeliest(words(GPU_UNUSED)) is not None


def test_a_cause_ruled_out_is_never_named():
    model = toy_model()
    got = model.likeliest(words(GPU_UNUSED), frozenset({"torch.cuda-built"}))
    assert got is None or got.cause != "torch.cuda-built"


def test_an_empty_memory_names_nothing():
    assert NO_PRECEDENTS.likeliest(words(GPU_UNUSED)) is None
    assert NO_PRECEDENTS.ranked(words(GPU_UNUSED)) == []


def test_the_document_round_trips():
    model = toy_model()
    again = from_document(json.loads(json.dumps(model.document())))
    assert again == model


@pytest.mark.parametrize("doc", [
    None, {}, {"causes": {}}, {"causes": {"x": {"cases": 0, "total": 0, "counts": {}}}, "vocabulary": []},
    {"causes": {"x": {"cases": "many"}}, "vocabulary": []}, {"causes": [], "vocabulary": 3},
    # Counts that would reach log() below zero, or overflow: a negative count, one above its cases, a wrong total.
    {"causes": {"x": {"cases": 2, "total": -1, "counts": {"a": -1}}}, "vocabulary": ["a"]},
    {"causes": {"x": {"cases": 2, "total": 9, "counts": {"a": 9}}}, "vocabulary": ["a"]},
    {"causes": {"x": {"cases": 2, "total": 5, "counts": {"a": 1}}}, "vocabulary": ["a"]},
    {"causes": {"x": {"cases": 2, "total": 1, "counts": {"b": 1}}}, "vocabulary": ["a"]},
])
def test_a_malformed_document_is_refused(doc):
    with pytest.raises(ValueError):
        from_document(doc)


def test_a_missing_or_broken_file_gives_an_empty_memory(tmp_path):
    assert load(str(tmp_path / "absent.json")) == NO_PRECEDENTS
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert load(str(broken)) == NO_PRECEDENTS


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_ranked_without_error(text):
    model = toy_model()
    ranked = model.ranked(words(text))
    assert [cause for cause, _ in ranked] and all(0.0 <= share <= 1.0 for _, share in ranked)


# --- in triage ----------------------------------------------------------------------------------------------------

WINDOWS_GPU_IDLE = ("I installed the requirements with pip on Windows 11 and my NVIDIA GeForce RTX 3060 is never used.\n"
                    "Training runs on the CPU and is very slow. Why is the GPU not used?\n")


def test_an_issue_nothing_decides_gets_the_precedent_as_a_suspicion():
    report = triage(WINDOWS_GPU_IDLE, title="GPU not used, training runs on CPU", precedents=toy_model())
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    result = report.result("torch.cuda-built")
    assert result.status == Status.FAIL and result.summary.startswith(precedents.SUSPECTED_FROM_PRECEDENTS)
    assert result.remedy.actions == ()


def test_without_a_title_the_memory_is_not_asked():
    report = triage(WINDOWS_GPU_IDLE, precedents=toy_model())
    assert report.verdict.root_cause is None


def test_an_unrecognizable_text_under_a_title_may_get_a_precedent_and_otherwise_stays_refused():
    text = "training is slow and the gpu sits idle, cuda gpu not used windows nvidia geforce rtx card installed pip torch\n"
    with pytest.raises(UsageError):
        triage(text)
    report = triage(text, title="why is my gpu idle", precedents=toy_model())
    assert report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    with pytest.raises(UsageError):
        triage("hello there\n", title="a question", precedents=NO_PRECEDENTS)


def test_a_layer_the_pasted_facts_pass_is_never_suspected():
    # collect_env says torch is built with CUDA 12.1: the memory's torch.cuda-built is ruled out by the paste.
    text = ("PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Microsoft Windows 11 Pro\n"
            "Is CUDA available: True\n" + WINDOWS_GPU_IDLE)
    report = triage(text, title="GPU not used", precedents=toy_model())
    assert report.verdict.root_cause != "torch.cuda-built"
    assert report.result("torch.cuda-built").status == Status.PASS


def test_a_cause_the_paste_decides_is_not_replaced_by_a_precedent():
    text = "RuntimeError: Torch not compiled with CUDA enabled\n"
    report = triage(text, title="mps float64 metal apple silicon mac m1 macos unsupported double tensor framework",
                    precedents=toy_model())
    assert not report.verdict.summary.startswith("problem found (mps): " + precedents.SUSPECTED_FROM_PRECEDENTS)
    assert precedents.SUSPECTED_FROM_PRECEDENTS not in report.verdict.summary


def test_the_reply_of_a_precedent_holds_no_fix_and_no_pasted_markup():
    hostile = WINDOWS_GPU_IDLE + "@maintainer <img src=x onerror=alert(1)> [click](https://evil.example/)\n"
    report = triage(hostile, title="GPU not used <script>", precedents=toy_model())
    assert report.verdict.suspected
    reply = render_triage(report, "markdown")
    assert "**Fix:**" not in reply
    assert "<img" not in reply and "<script>" not in reply and "](https://evil" not in reply and "@maintainer" not in reply
    assert "mps-doctor check --format markdown" in reply
    text = render_triage(report, "text")
    assert "To decide it, check that machine itself, run: mps-doctor check" in text and "mps-doctor fix" not in text


def test_an_issue_without_trouble_words_is_refused_as_before():
    for title in ("Thank you for this great project, it is very useful and I love it",
                  "Feature request: add support for exporting the model to a new format"):
        for body in ("", "Thanks!"):
            with pytest.raises(UsageError):
                triage(body, title=title)


HEALTHY_LINUX = ("PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
                 "Python version: 3.11.7 (main) [GCC 11.4.0] (64-bit runtime)\nIs CUDA available: True\n"
                 "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\nNvidia driver version: 550.54.14\n")
APPLE_M2 = "Apple M2 Pro MacBook Pro, macOS 14.4 (arm64). Python 3.11.7 arm64, torch 2.5.1\n"


@pytest.mark.parametrize("text,title,never", [
    # review11: a suspicion of another device's chain, or of a layer the stated facts decide.
    (HEALTHY_LINUX, "'mps' NotImplementedError -FYI", {"os.macos", "python.rosetta", "macos.version", "cuda.driver",
                                                        "cuda.available", "torch.import", "torch.cuda-built"}),
    (HEALTHY_LINUX, "Apple silicon (m1 Mac) compatibility is broken", {"os.macos", "hardware.apple-silicon", "os.linux"}),
    (APPLE_M2, "Server execution error", {"os.linux", "python.rosetta", "hardware.apple-silicon", "os.macos"}),
    (APPLE_M2, "Torch not compiled with CUDA enabled on my Mac?", {"python.rosetta", "hardware.apple-silicon"}),
])
def test_the_shipped_memory_never_suspects_what_the_paste_rules_out(text, title, never):
    report = triage(text, title=title)
    assert report.verdict.root_cause not in never, report.verdict.summary


def test_a_catalogue_cause_of_another_device_is_ruled_out():
    report = triage(HEALTHY_LINUX, title="float64 is not supported on MPS, TypeError when I convert to double")
    assert report.verdict.root_cause is None or not report.verdict.root_cause.startswith("mps.")


# A Windows paste that shows a CPU build of torch and names no accelerator: read alone it is about the CPU by default.
WINDOWS_CPU_BUILD = ("PS C:\\work\\project> python -c \"import torch; print(torch.__version__)\"\n2.3.1+cpu\n"
                     "Training runs but is very slow.\n")
# Its title speaks of no accelerator either (a title that does is read with the paste first, as a maintainer reads it).
GPU_IDLE_TITLE = "training not used on windows: runs on cpu, slow, why is my card idle"


def test_a_paste_read_as_the_cpu_by_default_may_be_suspected_on_the_accelerator_its_words_point_at():
    alone = triage(WINDOWS_CPU_BUILD, title="a question", precedents=NO_PRECEDENTS)
    assert alone.options.device == "cpu" and alone.verdict.root_cause is None
    report = triage(WINDOWS_CPU_BUILD, title=GPU_IDLE_TITLE, precedents=toy_model())
    assert report.options.device == "cuda" and report.verdict.root_cause == "torch.cuda-built" and report.verdict.suspected
    result = report.result("torch.cuda-built")
    assert result.summary == ("suspected from earlier threads: not met: torch was built with CUDA; the paste does not "
                              "say that CUDA was wanted")
    assert result.remedy.actions == () and result.remedy.key == CHECK_FIRST
    # The device's reason counts lines as the reply does, the title's line first: the title names Windows.
    assert report.source["device_from"] == ("earlier threads worded like this one were about CUDA (the title and text "
                                            "alone: Windows without an accelerator named (line 1))")
    assert [fact["lines"] for fact in report.source["facts"] if fact["fact"] == "host.system"] == [[1]]
    assert "torch.cuda_version" in {fact["fact"] for fact in report.source["facts"]}


def test_a_paste_that_answers_that_it_has_no_gpu_stays_on_the_cpu():
    text = WINDOWS_CPU_BUILD + "- GPU (e.g., RTX 3090): none\n"
    report = triage(text, title=GPU_IDLE_TITLE, precedents=toy_model())
    assert report.options.device == "cpu" and report.verdict.root_cause is None


def test_on_another_device_a_layer_the_stated_facts_pass_or_a_catalogue_cause_is_still_ruled_out():
    cuda_built = triage("PyTorch version: 2.3.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Microsoft Windows 11 Pro\n",
                        device="cuda")
    assert cuda_built.result("torch.cuda-built").status == Status.PASS
    assert "torch.cuda-built" in precedents.ruled_out(cuda_built, ["torch.cuda-built"], elsewhere=True)
    cpu_built = triage(WINDOWS_CPU_BUILD, device="cuda")
    assert cpu_built.result("torch.cuda-built").status == Status.FAIL
    assert precedents.ruled_out(cpu_built, ["torch.cuda-built"], elsewhere=True) == frozenset()
    assert precedents.ruled_out(cpu_built, ["cuda.out-of-memory"], elsewhere=True) == {"cuda.out-of-memory"}


def test_review12_another_devices_reading_never_suspects_a_layer_after_one_that_fails():
    # H1: Windows, a "+cpu" build, no graphics card: on CUDA, torch.cuda-built fails, and nothing after it was judged.
    text = ("PS C:\\work> python -c \"import torch; print(torch.__version__)\"\n2.3.1+cpu\n"
            "This laptop has no graphics card at all, integrated only. Training runs but is very slow.\n")
    report = triage(text, title=GPU_IDLE_TITLE, precedents=toy_model())
    assert report.verdict.root_cause in (None, "torch.cuda-built")
    cpu_built = triage(WINDOWS_CPU_BUILD, device="cuda")
    after = [r.id for r in cpu_built.results if r.layer is not None and r.layer > cpu_built.result("torch.cuda-built").layer]
    assert after and set(after) <= precedents.ruled_out(cpu_built, after, elsewhere=True)


def test_review12_a_title_that_names_a_mac_keeps_cuda_out_and_a_linux_paste_keeps_mps_out():
    mac = triage(WINDOWS_CPU_BUILD.replace("PS C:\\work> ", "% "), title="training on my MacBook Pro M2 not used: runs on "
                 "cpu, slow, why is my card idle", precedents=toy_model())
    assert mac.options.device != "cuda" and mac.verdict.root_cause is None
    linux = triage("OS: Ubuntu 22.04.3 LTS (x86_64)\nPython version: 3.11.4\nPyTorch version: 2.3.1\n"
                   "Training runs but is very slow.\n", title="Apple silicon not detected, metal not used, slow",
                   precedents=learn([("t/1", "python.rosetta", words(MAC_WORDS + " slow metal silicon detected")),
                                     ("t/2", "python.rosetta", words(MAC_WORDS + " slow metal silicon detected used"))]))
    assert linux.verdict.root_cause != "python.rosetta" and linux.options.device != "mps"
    # Nor is a Linux paste told that it is not macOS: MPS is never read for a system that states it runs elsewhere.
    not_a_mac = learn([("t/1", "os.macos", words(MAC_WORDS + " slow metal silicon detected")),
                       ("t/2", "os.macos", words(MAC_WORDS + " slow metal silicon detected used"))])
    assert triage("OS: Ubuntu 22.04.3 LTS (x86_64)\nPyTorch version: 2.3.1\nTraining runs but is very slow.\n",
                  title="float64 error metal convert tensor double unsupported framework detected slow",
                  precedents=not_a_mac).verdict.root_cause is None


@pytest.mark.parametrize("body,title", [
    ("Thank you for this great project!\n", "Question: how do I use my card instead of the cpu for training? slow"),
    ("Just a question, thanks!\n", "Feature request: an option to train on the card instead of cpu, slow"),
    ("Thanks for the great project! Training works on windows with pip install torch, just a question.\n",
     "Question: how to use the card instead of cpu for training on windows, slow"),
])
def test_review12_thanks_or_a_question_under_a_question_title_is_never_moved_to_a_device(body, title):
    try:
        report = triage(body, title=title, precedents=toy_model())
    except UsageError:
        return
    assert report.verdict.root_cause is None


def test_review12_a_cpu_chosen_by_the_user_or_a_long_paste_is_not_moved():
    assert triage(WINDOWS_CPU_BUILD, device="cpu", title=GPU_IDLE_TITLE, precedents=toy_model()).options.device == "cpu"
    for chosen in ("$ python train.py --device cpu --epochs 10\n", "- use_cpu: True\n", "device = 'cpu'\n"):
        report = triage(WINDOWS_CPU_BUILD + chosen, title=GPU_IDLE_TITLE, precedents=toy_model())
        assert report.options.device == "cpu" and report.verdict.root_cause is None, chosen
    long = WINDOWS_CPU_BUILD + "".join("step %d loss 0.5\n" % i for i in range(2000))
    assert triage(long, title=GPU_IDLE_TITLE, precedents=toy_model()).verdict.root_cause is None


def test_review12_only_a_paste_read_as_the_cpu_by_default_is_read_on_another_device():
    asked = []
    cuda = triage(WINDOWS_GPU_IDLE, title="a question", precedents=NO_PRECEDENTS)
    assert cuda.options.device == "cuda"
    precedents.suspicion(toy_model(), issue_words(WINDOWS_GPU_IDLE, GPU_IDLE_TITLE), cuda, lambda d: asked.append(d))
    assert asked == []
    cpu = triage(WINDOWS_CPU_BUILD, title="a question", precedents=NO_PRECEDENTS)
    precedents.suspicion(toy_model(), issue_words(WINDOWS_CPU_BUILD, GPU_IDLE_TITLE), cpu, lambda d: asked.append(d))
    assert asked == ["cuda", "mps"]


def test_review12_on_another_device_a_layer_its_stated_facts_fail_is_kept_and_on_its_own_it_is_ruled_out():
    stated = triage("PyTorch version: 2.3.1\nCUDA used to build PyTorch: None\nOS: Microsoft Windows 11 Pro\n", device="cuda")
    assert stated.result("torch.cuda-built").status == Status.FAIL
    assert {f["parser"] for f in stated.source["facts"] if f["fact"] == "torch.cuda_version"} == {"collect_env"}
    assert precedents.ruled_out(stated, ["torch.cuda-built"], elsewhere=True) == frozenset()
    assert precedents.ruled_out(stated, ["torch.cuda-built"]) == {"torch.cuda-built"}


def test_the_shipped_memory_is_used_by_default():
    shipped = load()
    assert shipped.cases > 0 and shipped.vocabulary
    report = triage(WINDOWS_GPU_IDLE, title="GPU not used, training runs on CPU")
    assert report.verdict.root_cause is not None
