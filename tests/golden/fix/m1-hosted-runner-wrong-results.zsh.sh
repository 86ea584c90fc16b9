#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/runner/work/proj/proj/.venv/bin/python
# not ready: an operation gives wrong results on mps: matmul-batch16; 1 failure, 3 warnings, 13
# passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/4 Upgrade torch and torchvision to the newest pair for this machine
#   an operation gives wrong results on mps: matmul-batch16. Correctness bugs of this kind were
#   fixed in later torch releases.
/Users/runner/work/proj/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.15.*' 'torchvision==0.29.*'

# 2/4 Use the CPU on this machine (gate MPS on a bare-metal Mac)
#   Inside a virtual machine MPS results are not trustworthy (actions/runner-images#14380).
mps-doctor check --device cpu --python /Users/runner/work/proj/proj/.venv/bin/python

# 3/4 This Mac has 7 GiB of unified memory.
#   MPS may use about three quarters of it; larger models run out of memory or swap. A lower cap
#   turns swapping into a clear out-of-memory error; smaller batches avoid both.
# export PYTORCH_MPS_HIGH_WATERMARK_RATIO=1.0 PYTORCH_MPS_LOW_WATERMARK_RATIO=0.8

# 4/4 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/runner/work/proj/proj/.venv/bin/python --device mps
