"""Every summary the doctor shortens ends at a word with an ellipsis (words.shorten), never mid-word."""

import dataclasses
import os
import re

from mps_doctor.bench import BenchOptions, BenchReport, DeviceRun, device_run
from mps_doctor.checking.model import Options
from mps_doctor.facts import ErrorInfo
from mps_doctor.probe.target import last_line
from mps_doctor.render.bench_text import render_bench_text
from mps_doctor.report import run_checks
from mps_doctor.triage.paste import first_sentence, stripped_line
from tests.machines import load_machine, replay_facts
from tests.paths import ROOT_DIR

ROOT = ROOT_DIR
# A long message whose words all differ, so that a word cut inside is visible as a word the message lacks.
LONG = " ".join("word%03d" % n for n in range(120))


def cut_at_a_word(text, original=LONG):
    """TEXT is ORIGINAL's first whole words and '...'."""
    assert text.endswith("..."), text
    kept = text[:-3].split()
    return kept == original.split()[:len(kept)] and len(kept) > 0


def with_torch(machine, **changes):
    facts = replay_facts(load_machine(machine))
    torch = dataclasses.replace(facts.target.torch, **changes)
    return dataclasses.replace(facts, target=dataclasses.replace(facts.target, torch=torch))


def test_an_import_error_remedy_is_cut_at_a_word():
    facts = with_torch("m2-native-torch213", import_error=ErrorInfo("ImportError", LONG))
    result = run_checks(facts, Options(device="auto", requested_device="auto")).result("torch.import")
    assert len(result.remedy.problem) <= 300 and cut_at_a_word(result.remedy.problem, "ImportError: " + LONG)


def test_the_cuda_unavailable_summary_is_cut_at_a_word():
    facts = with_torch("linux-h200-cuda", cuda_available=False, cuda_devices=(),
                       warnings=("UserWarning: CUDA initialization: " + LONG,))
    result = run_checks(facts, Options(device="cuda", requested_device="cuda")).result("cuda.available")
    reason = result.summary.split(": ", 1)[1]
    assert len(reason) <= 160 and cut_at_a_word(reason)


def test_pasted_text_and_child_messages_are_cut_at_a_word():
    assert cut_at_a_word(first_sentence(LONG)) and cut_at_a_word(stripped_line(LONG)) and cut_at_a_word(last_line(LONG))
    run = device_run({"device": "mps", "error": {"type": "RuntimeError", "message": LONG}}, {})
    assert cut_at_a_word(run.error, "RuntimeError: " + LONG)


def test_a_long_device_name_in_the_bench_table_is_cut_at_a_word():
    run = DeviceRun("cuda", name="NVIDIA GeForce RTX 4090 Laptop GPU with a long name", window_ms=(2.0, 2.0))
    text = render_bench_text(BenchReport(BenchOptions(device="cuda"), "python", "2.13.0", (run,), "data"))
    row = next(line for line in text.splitlines() if line.startswith("  cuda ("))
    assert row.startswith("  cuda (NVIDIA GeForce RTX 4090...")


def test_no_string_is_cut_by_a_bare_slice():
    """Shortening goes through words.shorten: a slice like text[:300] outside it would cut mid-word again."""
    allowed = {
        # Tensors, bytes and buffers, not text.
        "mps_doctor/child/",
        # A bound on pasted input before it is read, not a summary.
        "mps_doctor/triage/text.py",
    }
    found = []
    for folder, _, files in os.walk(os.path.join(ROOT, "mps_doctor")):
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), ROOT)
            if not name.endswith(".py") or any(path.startswith(a) for a in allowed):
                continue
            with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if re.search(r"\[:\s*\d{2,}\s*\]", line) or re.search(r'\]\s*\+\s*"(\.\.\.|…)"', line):
                        found.append("%s:%d: %s" % (path, number, line.strip()))
    assert found == []
