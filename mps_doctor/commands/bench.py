"""`mps-doctor bench`: time the MNIST network of pytorch/examples on the CPU and the accelerator, measured correctly."""

import json
import os
import sys

import click

from mps_doctor import exit_codes
from mps_doctor.commands.options import (
    CONTEXT,
    bench_timeout_option,
    device_option,
    format_option,
    output_option,
    python_option,
)
from mps_doctor.commands.shared import fail, local_doctor
from mps_doctor.errors import DoctorError, UsageError
from mps_doctor.output import stderr_is_unicode, stdout_is_unicode, write_output


@click.command("bench", context_settings=CONTEXT, epilog=exit_codes.bench_help_text())
@device_option(help="Accelerator to compare with the CPU (auto, as in check: mps on macOS, cuda where torch sees a GPU, "
               "else the CPU alone).")
@python_option(help="Run the benchmark in this interpreter.")
@click.option("--batch", type=click.IntRange(1, 8192), default=64, show_default=True)
@click.option("--steps", type=click.IntRange(1, 100000), default=20, show_default=True, help="Steps per timed window.")
@click.option("--windows", type=click.IntRange(1, 1000), default=5, show_default=True, help="Timed windows (median reported).")
@click.option("--warmup", type=click.IntRange(0, 100000), default=10, show_default=True, help="Untimed steps after the cold one.")
@click.option("--epochs", type=click.IntRange(0, 1000), default=0, help="Train like pytorch/examples' MNIST: N "
              "epochs of 60,000 images (or of --data-dir's training set) per device.")
@click.option("--data-dir", metavar="DIR", type=click.Path(exists=True, file_okay=False),
              help="Your MNIST, e.g. torchvision's root (DIR/MNIST/raw/*-idx?-ubyte[.gz]).")
@click.option("--pipeline", type=click.Choice(("resident", "loader")), default=None,
              help="resident: data on the device; loader: a DataLoader like pytorch/examples'. Default: resident, loader with --epochs.")
@click.option("--workers", type=click.IntRange(0, 64), default=0, show_default=True, help="DataLoader num_workers.")
@click.option("--no-cpu", is_flag=True, help="Measure the accelerator alone.")
@format_option("text", "json")
@output_option()
@bench_timeout_option()
@click.option("--no-progress", is_flag=True, help="No progress line on stderr (also off in CI or when stderr is not a "
              "terminal).")
def bench(device, python, batch, steps, windows, warmup, epochs, data_dir, pipeline, workers, no_cpu, fmt, output, timeout,
          no_progress):
    """Time the MNIST network of pytorch/examples on the CPU vs the accelerator, measured correctly."""
    import platform

    from mps_doctor.bench import BenchOptions, BenchUnavailable, bench_to_dict, run_bench
    from mps_doctor.probe.default_target import default_python
    from mps_doctor.render.progress import status_line

    try:
        if data_dir:
            check_data_dir(data_dir)
        options = BenchOptions(device=device, batch=batch, warmup=warmup, windows=windows, steps=steps, epochs=epochs,
                               pipeline=pipeline, workers=workers, data_dir=data_dir, include_cpu=not no_cpu, timeout=timeout)
        target, why = default_python() if python is None else (python, "--python")
        with status_line(sys.stderr, os.environ, enabled=not no_progress) as progress:
            report = run_bench(target, options, platform.system(), progress, chosen_because=why)
        if fmt == "json":
            text = json.dumps(bench_to_dict(report), indent=2) + "\n"
        else:
            from mps_doctor.render.bench_text import render_bench_text

            text = render_bench_text(report, unicode=stdout_is_unicode())
        write_output(text, output)
    except BenchUnavailable as error:
        fail(explained(error))
    except DoctorError as error:
        fail(error)
    sys.exit(report.exit_code())


def explained(error: DoctorError) -> DoctorError:
    """ERROR after printing, on stderr, the root cause and remedy that `check` finds in what the bench's child
    found (the same classification and commands); the error names that root cause. Where check finds none (or its
    policy does not load), ERROR itself, which names the check to run."""
    from mps_doctor.bench import BenchUnavailable
    from mps_doctor.diagnosis import stopped_by
    from mps_doctor.render.text import fix_command, render_root_cause

    try:
        report = stopped_by(error.target, error.device) if error.target is not None else None
    except DoctorError:
        report = None
    if report is None:
        return error
    click.echo(render_root_cause(report, unicode=stderr_is_unicode(), fix=fix_command(report, local_doctor())), err=True)
    return BenchUnavailable("%s: %s" % (error.what, report.result(report.verdict.root_cause).summary))


def check_data_dir(data_dir: str) -> None:
    """Fail early, as a usage error, when --data-dir holds no readable MNIST training split."""
    from mps_doctor.child.mpsd_idx import IdxError, load_split

    try:
        load_split(data_dir, train=True)
    except IdxError as exc:
        raise UsageError("--data-dir: %s" % exc)
