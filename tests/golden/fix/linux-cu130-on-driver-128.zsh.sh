#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /home/dev/proj/.venv/bin/python
# not ready: the driver supports CUDA 12.8, but torch was built for CUDA 13.0; 1 failure, 0
# warnings, 11 passed
# setup: a venv, Python from system, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torch 2.13 from the CUDA 12.6 index, pinned with torchvision
#   torch then fails with 'The NVIDIA driver on your system is too old'. Update the driver, or
#   install the same torch built for an older CUDA from its index.
/home/dev/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.13.*' 'torchvision==0.28.*' --index-url https://download.pytorch.org/whl/cu126

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /home/dev/proj/.venv/bin/python --device cuda
