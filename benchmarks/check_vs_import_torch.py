"""`mps-doctor check --quick` wall time divided by `python -c "import torch"` wall time, measured in one run.

Target (issue: the diagnosis engine): 1.25 or less. Usage: python benchmarks/check_vs_import_torch.py [ROUNDS]
"""

import statistics
import sys

from _timing import interleaved, summary

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
times = interleaved({
    "python -c 'import torch'": [sys.executable, "-c", "import torch"],
    "mps-doctor check --quick": [sys.executable, "-m", "mps_doctor", "check", "--quick", "--device", "cpu"],
}, rounds)
print(summary(times))
base, check = (statistics.median(v) for v in times.values())
print("ratio check/import = %.3f (target <= 1.25); overhead %.0f ms" % (check / base, (check - base) * 1e3))
