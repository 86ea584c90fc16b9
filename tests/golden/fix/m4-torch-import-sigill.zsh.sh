#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: `import torch` crashed with SIGILL (Illegal instruction); 1 failure, 0 warnings, 12
# passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torch and torchvision, pinned together
#   A crash or hang in the import leaves torch unusable. An Illegal instruction usually means a
#   torch build for a newer CPU, or an x86_64 build under Rosetta.
/Users/alex/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.15.*' 'torchvision==0.29.*'

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
