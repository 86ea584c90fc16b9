"""`mps-doctor model TARGET`: will this model train on the device, and on which torch (mps_doctor/model/)."""

import os
import sys

import click

from mps_doctor.commands.bench import explained
from mps_doctor.commands.options import (
    COLOR_HELP,
    CONTEXT,
    Seconds,
    device_option,
    format_option,
    output_option,
    python_option,
)
from mps_doctor.commands.shared import fail
from mps_doctor.errors import DoctorError
from mps_doctor.output import stdout_is_unicode, to_stdout, use_color, write_output
from mps_doctor.timeouts import MODEL_TIMEOUT_DEFAULT, MODEL_TIMEOUT_MAX, TIMEOUT_MIN

EXIT_CODES = ("\b\nExit codes: 0 ready (observed on the device, or predicted: every operator and dtype has a kernel), "
              "1 runs only with CPU fallbacks, will fail, the TARGET failed, torch does not import, or --timeout; "
              "2 usage error; 3 the doctor failed.")


@click.command("model", context_settings=CONTEXT, epilog=EXIT_CODES)
@click.argument("target", metavar="TARGET")
@device_option(help="Device to judge: mps is predicted from the kernel table where MPS is not available (Linux too).")
@python_option(help="Run the model in this interpreter (default: as check).")
@format_option("text", "json", "markdown")
@click.option("--torch", "torch_release", metavar="VERSION", help="Predict the operators and dtypes for this torch "
              "release (what-if) instead of the installed one.")
@click.option("--batch", type=click.IntRange(1, 1 << 20), help="Batch size, passed to a factory that takes batch=.")
@click.option("--timeout", type=Seconds(TIMEOUT_MIN, MODEL_TIMEOUT_MAX), default=MODEL_TIMEOUT_DEFAULT,
              show_default=True, metavar="SECONDS", help="Seconds the target interpreter may take (each run of the model).")
@click.option("--scan-seconds", type=Seconds(0, MODEL_TIMEOUT_MAX), metavar="SECONDS",
              help="Seconds the search for the batch from which the device beats the CPU may take, at most a sixth of "
                   "--timeout (0: no search; default: a sixth of --timeout, at most 60).")
@output_option()
@click.option("-v", "--verbose", is_flag=True, help="Show every operator, details and measurements.")
@click.option("--no-color", is_flag=True, help=COLOR_HELP)
@click.option("--no-redact", is_flag=True, help="Keep home folders and user names in --format markdown.")
@click.option("--no-progress", is_flag=True, help="No progress line on stderr.")
def model(target, device, python, fmt, torch_release, batch, timeout, scan_seconds, output, verbose, no_color, no_redact,
          no_progress):
    """Will this model train on the device, and on which torch? Operators, dtypes, memory, speed, parity.

    TARGET is path/to/file.py:factory, package.module:factory, or a built-in that needs no download:
    torchvision:resnet18, torchvision:vit_b_16 (weights=None), mps-doctor:transformer-block, mps-doctor:mnist.
    factory() returns (model, example_inputs) or (model, example_inputs, loss_fn), like torch.export's convention;
    a factory that takes batch= gets --batch.

    TARGET is code you choose to run: mps-doctor imports it and calls its factory in the target Python, as python
    would, so name only code you trust. It never runs a TARGET named in a saved report or pasted text.
    """
    from mps_doctor.bench import BenchUnavailable
    from mps_doctor.model.command import model_request, progress_callback, run_command
    from mps_doctor.render.progress import status_line

    try:
        with status_line(sys.stderr, os.environ, enabled=not no_progress) as line:
            request = model_request(target, device, python, batch, torch_release, timeout, progress_callback(line),
                                    scan_seconds)
            text, code = run_command(request, fmt, verbose, to_stdout(output) and use_color(no_color),
                                     stdout_is_unicode(), not no_redact)
        write_output(text, output)
    except BenchUnavailable as error:
        fail(explained(error))
    except DoctorError as error:
        fail(error)
    sys.exit(code)
