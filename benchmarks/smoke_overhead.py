"""What the smoke training step adds to `mps-doctor check`, measured in one run: ratio and difference.

Target (issue: smoke step and bench): at most 1.5 s over `check --quick` on a 2-core CPU.
Usage: python benchmarks/smoke_overhead.py [ROUNDS]
"""

import statistics
import sys

from _timing import interleaved, summary

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
times = interleaved({
    "mps-doctor check --quick": [sys.executable, "-m", "mps_doctor", "check", "--quick", "--device", "cpu"],
    "mps-doctor check": [sys.executable, "-m", "mps_doctor", "check", "--device", "cpu"],
}, rounds)
print(summary(times))
quick, full = (statistics.median(v) for v in times.values())
print("ratio check/check --quick = %.3f; smoke adds %.0f ms (target <= 1500 ms)" % (full / quick, (full - quick) * 1e3))
