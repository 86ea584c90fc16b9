#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/miniconda3/envs/ml/bin/python
# not ready: Python runs under Rosetta (x86_64) on an arm64 Mac (Intel conda, osx-64); 1 failure, 1
# warning, 9 passed
# setup: a conda environment, Python from conda, conda, zsh. Review before running: nothing here
# uses sudo or deletes an environment.

# 1/4 Create the conda environment torch-arm64 (native arm64 Python 3.12) beside the current one
#   An x86_64 Python gets x86_64 torch wheels, which stop at 2.2.2 and never use the Apple GPU. A
#   new environment is created beside the old one; nothing is deleted.
CONDA_SUBDIR=osx-arm64 conda create -y -n torch-arm64 python=3.12
conda config --file /Users/alex/miniconda3/envs/torch-arm64/.condarc --set subdir osx-arm64

# 2/4 Install torch and torchvision, pinned together
#   pip wheels from PyPI are the MPS builds on Apple Silicon; inside a conda environment pip is the
#   supported route since the official conda channel was deprecated (pytorch/pytorch#138506).
conda run -n torch-arm64 python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'

# 3/4 Switch to the new environment
#   The old environment /Users/alex/miniconda3/envs/ml is left as it was; remove it yourself once
#   the new one works.
conda activate torch-arm64

# 4/4 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/miniconda3/envs/torch-arm64/bin/python
