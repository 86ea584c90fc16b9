"""bench flags a noisy measurement (windows that vary by more than 10% of their mean) instead of reporting it plainly."""

import json
import os
import statistics

import jsonschema
import pytest

from mps_doctor import exit_codes
from mps_doctor.bench import NOISY_VARIATION, BenchOptions, BenchReport, DeviceRun, bench_to_dict
from mps_doctor.render.bench_text import render_bench_text
from tests.paths import ROOT_DIR

SCHEMA = os.path.join(ROOT_DIR, "mps_doctor", "data",
                      "bench.schema.json")
STEADY = (34.1, 34.7, 34.66, 35.0, 34.2)
# A run that another program disturbed: two windows of five twice as slow (measured like this on the shared
# 2-core machine while a test suite ran beside it).
DISTURBED = (34.1, 71.9, 34.66, 68.0, 34.2)


def report(*runs, epochs=0):
    return BenchReport(BenchOptions(device="auto", epochs=epochs), "/usr/bin/python3", "2.13.0+cpu", runs, "data")


def test_the_variation_is_the_standard_deviation_over_the_mean():
    run = DeviceRun("cpu", window_ms=DISTURBED)
    assert run.variation == pytest.approx(statistics.stdev(DISTURBED) / statistics.mean(DISTURBED))
    assert run.noisy and not DeviceRun("cpu", window_ms=STEADY).noisy


@pytest.mark.parametrize(("windows", "noisy"), [
    ((10.0,), False),  # one window: nothing to judge
    ((10.0, 10.0), False),
    ((9.0, 11.0), True),  # stdev 1.41 over mean 10: 14%
    ((9.4, 10.6), False),  # 8.5%
    ((0.0, 0.0), False),
])
def test_noisy_only_above_the_threshold(windows, noisy):
    run = DeviceRun("cpu", window_ms=windows)
    assert run.noisy is noisy
    assert run.variation is None or (run.variation > NOISY_VARIATION) is noisy


def test_a_noisy_run_is_flagged_in_its_row_and_warned_about_and_exits_0():
    text = render_bench_text(report(DeviceRun("cpu", name="x86_64 CPU, 2 threads", window_ms=DISTURBED)))
    row = next(line for line in text.splitlines() if line.startswith("  cpu ("))
    assert row.endswith("  noisy")
    warning = next(line for line in text.splitlines() if line.startswith("warning: "))
    assert "cpu is noisy: its timing windows vary by 40% (standard deviation over mean, 34.10 to 71.90 ms/step)" \
           in warning and "more than the 10%" in warning and "--windows" in warning
    assert report(DeviceRun("cpu", window_ms=DISTURBED)).exit_code() == exit_codes.READY


def test_a_steady_run_is_reported_plainly():
    text = render_bench_text(report(DeviceRun("cpu", name="x86_64 CPU, 2 threads", window_ms=STEADY)))
    assert "noisy" not in text and "warning" not in text
    assert report(DeviceRun("cpu", window_ms=STEADY)).status == ("pass", "")


def test_epochs_are_named_as_epochs_and_every_warning_has_its_line():
    runs = (DeviceRun("cpu", window_ms=(100.0, 100.0)), DeviceRun("mps", window_ms=(100.0, 160.0)))
    text = render_bench_text(report(*runs, epochs=2))
    warnings = [line for line in text.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2 and "mps is noisy: its epochs vary" in warnings[0] and "slower than the CPU" in warnings[1]


def test_the_json_says_so_and_validates():
    doc = bench_to_dict(report(DeviceRun("cpu", name="x86_64 CPU, 2 threads", cold_first_step_ms=58.0,
                                         window_ms=DISTURBED, final_loss=0.5)))
    run = doc["runs"][0]
    assert run["noisy"] is True and run["variation"] == pytest.approx(0.40, abs=0.01)
    assert doc["status"] == "warn" and doc["message"].startswith("cpu is noisy")
    with open(SCHEMA) as handle:
        jsonschema.validate(json.loads(json.dumps(doc)), json.load(handle))
