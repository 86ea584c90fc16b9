#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /home/dev/proj/.venv/bin/python
# not ready: no kernels for GPU0 Tesla P40 (6.1) in this wheel (built for sm_75 sm_80 sm_86 sm_90
# sm_100 sm_120); 1 failure, 0 warnings, 14 passed
# setup: a venv, Python from system, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torch 2.13 from the CUDA 12.6 index, pinned with torchvision
#   Every CUDA kernel then fails with 'no kernel image is available for execution on the device'.
#   Another CUDA build of the same release covers this GPU.
/home/dev/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.13.*' 'torchvision==0.28.*' --index-url https://download.pytorch.org/whl/cu126

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /home/dev/proj/.venv/bin/python --device cuda
