#!/usr/bin/env zsh
# mps-doctor 0.1.0 fix plan for /Users/runner/work/proj/proj/.venv/bin/python
# not ready: MPS is not available inside a virtual machine (GitHub-hosted runner); 1 failure, 2
# warnings, 13 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Use the CPU on this machine (gate MPS on a bare-metal Mac)
#   Apple's Virtualization Framework exposes no MPS device (GitHub runner docs: 'Metal Performance
#   Shaders (MPS) are not supported'). Use the CPU in CI, or a bare-metal Mac.
mps-doctor check --device cpu --python /Users/runner/work/proj/proj/.venv/bin/python

# 2/3 This Mac has 7 GiB of unified memory.
#   MPS may use about three quarters of it; larger models run out of memory or swap.
# export PYTORCH_MPS_HIGH_WATERMARK_RATIO=1.0

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/runner/work/proj/proj/.venv/bin/python
