#!/usr/bin/env fish
# mps-doctor <version> fix plan for /Users/runner/work/proj/proj/.venv/bin/python
# not ready: an operation gives wrong results on mps: matmul-batch16; 1 failure, 3 warnings, 15
# passed
# setup: a venv, Python from homebrew, pip, fish. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Upgrade torch and torchvision to the newest pair for this machine
#   Silent correctness bugs of this kind shipped in torch releases (pytorch#109457, #118115) and in
#   virtualized GPUs (actions/runner-images#14380). Upgrade torch and macOS; until then train on the
#   CPU.
/Users/runner/work/proj/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.15.*' 'torchvision==0.29.*'

# 2/3 This Mac has 7 GiB of unified memory.
#   MPS may use about three quarters of it; larger models run out of memory or swap. A lower cap
#   turns swapping into a clear out-of-memory error; smaller batches avoid both.
set -gx PYTORCH_MPS_HIGH_WATERMARK_RATIO 1.0
set -gx PYTORCH_MPS_LOW_WATERMARK_RATIO 0.8

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/runner/work/proj/proj/.venv/bin/python --device cpu
