#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: `import torch` fails: a shared library of torch is missing or broken; 1 failure, 1
# warning, 13 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Reinstall torch and torchvision, pinned together
#   Reinstalling torch and torchvision as a matching pair restores a consistent install.
/Users/alex/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.13.*' 'torchvision==0.28.*'

# 2/3 Install numpy
#   Tensor.numpy(), torch.from_numpy() and most data loading code need numpy.
/Users/alex/proj/.venv/bin/python -m pip install numpy

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
