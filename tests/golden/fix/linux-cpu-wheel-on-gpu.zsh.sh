#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /home/dev/proj/.venv/bin/python
# not ready: torch 2.13.0+cpu is a CPU-only build; 1 failure, 0 warnings, 10 passed
# setup: a venv, Python from system, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torch 2.13 from the CUDA 12.6 index, pinned with torchvision
#   Install the same release from the CUDA index that matches the driver ('nvidia-smi' shows the
#   newest CUDA it supports), torch and torchvision pinned together.
/home/dev/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.13.*' 'torchvision==0.28.*' --index-url https://download.pytorch.org/whl/cu126

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /home/dev/proj/.venv/bin/python --device cuda
