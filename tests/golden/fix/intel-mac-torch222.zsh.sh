#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: Intel Mac (Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz): PyTorch's MPS backend needs Apple
# Silicon; 1 failure, 0 warnings, 9 passed
# setup: a venv, Python from homebrew-intel, pip, zsh. Review before running: nothing here uses sudo
# or deletes an environment.

# 1/2 Install the last Intel-Mac torch for the CPU
#   Current PyTorch wheels use MPS on Apple Silicon only, and Intel-Mac wheels stopped at torch
#   2.2.2 (PyTorch 2.2 release notes).
/Users/alex/proj/.venv/bin/python -m pip install torch==2.2.2 torchvision==0.17.2

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python --device cpu
