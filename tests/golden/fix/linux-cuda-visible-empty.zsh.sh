#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /home/dev/proj/.venv/bin/python
# not ready: CUDA_VISIBLE_DEVICES='' hides every GPU; 1 failure, 0 warnings, 12 passed
# setup: a venv, Python from system, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Make the GPUs visible again
#   An empty or invalid value (such as -1, often left in a shell profile) makes
#   torch.cuda.is_available() False without any error.
unset CUDA_VISIBLE_DEVICES
# also remove the setting from your shell profile if it is there
nvidia-smi -L

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /home/dev/proj/.venv/bin/python --device cuda
