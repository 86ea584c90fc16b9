"""Dispatch for the probe child: stdlib and torch only, Python 3.7+."""
import json
import sys

from mpsd_frame import FRAME_MARK


def emit(event, stage, data=None):
    """Write one framed JSON line that the doctor reads back; stray prints by torch stay unframed."""
    sys.stdout.write(FRAME_MARK + json.dumps({"event": event, "stage": stage, "data": data}, default=str) + "\n")
    sys.stdout.flush()


def main(argv):
    """Run MODE (`check`, `bench` or `model`) with the JSON options in argv[1]."""
    mode = argv[0] if argv else "check"
    options = json.loads(argv[1]) if len(argv) > 1 else {}
    if mode == "check":
        import mpsd_probe

        mpsd_probe.run(options, emit)
    elif mode == "model":
        import mpsd_model

        mpsd_model.run(options, emit)
    elif mode == "bench":
        import mpsd_bench

        mpsd_bench.run(options, emit)
    else:
        emit("error", "dispatch", {"message": "unknown mode %r" % mode})
        sys.exit(2)
