"""What `mps-doctor model` costs over one plain training step of the same TARGET, measured in one run: ratios.

"plain step": a fresh Python imports torch, builds the TARGET (the child's own factory code), moves it to DEVICE and
runs one forward, backward and AdamW step, synchronized: what a user's first step costs. "model, traced": the command
where it only loads and traces (--device mps where MPS is not available: the prediction). "model, measured": the whole
command on DEVICE (trace, observed step, memory at two batches, timed windows on DEVICE and the CPU, the batch scan,
parity).
Usage: python benchmarks/model_overhead.py [TARGET] [DEVICE] [ROUNDS]   (default mps-doctor:mnist cpu 3)
"""

import os
import statistics
import sys

from _timing import interleaved, summary

HERE = os.path.dirname(os.path.abspath(__file__))
CHILD = os.path.join(os.path.dirname(HERE), "mps_doctor", "child")
PLAIN = """
import sys
sys.path.insert(0, %r)
import torch, mpsd_probe
from mpsd_model import load_factory, takes_batch
from mpsd_step import build, make_optimizer, place, train_step
factory = load_factory(torch, %r)
built = build(torch, factory, None, takes_batch(factory))
model = built.model.to(%r)
optimizer = make_optimizer(torch, model)
train_step(model, place(built.args, %r), place(built.kwargs, %r), built.loss, optimizer)
mpsd_probe.synchronize(torch, %r)
"""

target = sys.argv[1] if len(sys.argv) > 1 else "mps-doctor:mnist"
device = sys.argv[2] if len(sys.argv) > 2 else "cpu"
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
sys.path.insert(0, os.path.dirname(HERE))
from mps_doctor.model.target import parse_target  # noqa: E402

spec = parse_target(target).child_options()
doctor = [sys.executable, "-m", "mps_doctor", "model", target, "--python", sys.executable, "--format", "json",
          "--no-progress"]
commands = {"plain step": [sys.executable, "-c", PLAIN % (CHILD, spec, device, device, device, device)],
            "model, traced": doctor + ["--device", "mps"], "model, measured": doctor + ["--device", device]}
times = interleaved(commands, rounds)
print("%s on %s, %d rounds" % (target, device, rounds))
print(summary(times))
plain, traced, measured = (statistics.median(v) for v in times.values())
print("ratio traced/plain = %.2f; measured/plain = %.2f" % (traced / plain, measured / plain))
