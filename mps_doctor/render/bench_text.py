"""The text form of a bench run: a table, a bar chart of images per second, and the speedup."""

from typing import List

from mps_doctor.bench import BenchReport
from mps_doctor.render.safe import visible
from mps_doctor.words import shorten

BLOCKS = " ▏▎▍▌▋▊▉█"


def bar(value: float, largest: float, width: int, unicode: bool) -> str:
    """A horizontal bar of VALUE against LARGEST, WIDTH cells wide."""
    if largest <= 0:
        return ""
    cells = value / largest * width
    if not unicode:
        return "#" * max(1, int(round(cells)))
    full, rest = int(cells), cells - int(cells)
    return "█" * full + (BLOCKS[int(rest * 8)] if rest * 8 >= 1 else "") or "▏"


def count(number: int, noun: str) -> str:
    """'1 window', '5 windows'."""
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


def render_bench_text(report: BenchReport, unicode: bool = True) -> str:
    """The bench report for a person: what was measured, per-device figures, the bar chart, the verdict."""
    opts = report.options
    lines: List[str] = [
        "mps-doctor bench: pytorch/examples MNIST Net, batch %d, Adadelta, torch %s" % (opts.batch, report.torch_version),
        "  data: %s" % report.data,
    ]
    lines += ["  %s" % note for note in report.notes]
    if opts.epochs:
        lines.append("  %s per device after %s; ms/step = epoch time / steps" % (
            count(opts.epochs, "epoch"), count(opts.warmup, "warm-up step")))
    else:
        lines.append("  %s, then %s of %s; device synchronized before every clock read"
                     % (count(opts.warmup, "warm-up step"), count(opts.windows, "window"), count(opts.steps, "step")))
    lines.append("")
    header = "  %-34s %10s %18s %10s %9s" % ("device", "cold step", "warm ms/step", "images/s", "TFLOP/s")
    lines += [header, "  " + "-" * (len(header) - 2)]
    good = [r for r in report.runs if r.median_ms]
    for run in report.runs:
        label = "%s (%s)" % (run.device, run.name) if run.name else run.device
        if run.unavailable:
            lines.append("  %-34s not available" % label)
            continue
        if run.error:
            lines.append("  %-34s %s%s" % (label, "" if run.timed_out else "failed: ", run.error))
            continue
        spread = " ±%.0f%%" % (run.spread * 50) if run.spread is not None else ""
        lines.append("  %-34s %8.0f ms %12.2f%-6s %10.0f %9.3f%s" % (
            shorten(label, 34), run.cold_first_step_ms or 0, run.median_ms, spread, run.images_per_second, run.tflops,
            "  noisy" if run.noisy else ""))
        if run.peak_tflops:
            share = run.tflops / run.peak_tflops
            why = ": this small network is launch-bound at this batch" if share < 0.1 else ""
            lines.append("  %-34s %.1f%% of the %.1f TFLOP/s FP32 peak (information only%s)" % (
                "", 100 * share, run.peak_tflops, why))
        for epoch in run.epochs:
            lines.append("  %-34s epoch: %.1f s for %d images" % ("", epoch["seconds"], epoch["images"]))
    if good:
        lines.append("")
        largest = max(r.images_per_second for r in good)
        lines.append("  images per second (higher is better)")
        for run in good:
            lines.append("  %-5s %s %s" % (run.device, bar(run.images_per_second, largest, 40, unicode).ljust(40),
                                           f"{run.images_per_second:,.0f}"))
    lines.append("")
    status, message = report.status
    if report.speedup is not None:
        accel = report.accelerator
        lines.append("%s is %.2fx %s than the CPU on this network and batch (median ms/step, same run)." % (
            accel.device, report.speedup if report.speedup >= 1 else 1 / report.speedup,
            "faster" if report.speedup >= 1 else "slower"))
    if status in ("fail", "timeout"):
        lines.append(("timed out: " if status == "timeout" else "error: ") + message)
    lines += ["warning: " + warning for warning in report.warnings]
    return visible("\n".join(lines) + "\n")
