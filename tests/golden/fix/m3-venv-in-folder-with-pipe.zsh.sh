#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/Thesis | ML/.venv/bin/python
# not ready: torch is not installed in /Users/alex/Thesis | ML/.venv/bin/python; 1 failure, 0
# warnings, 12 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Install torch and torchvision, pinned together
#   There is no torch in this environment. torch and torchvision from different releases fail at
#   import, so both are installed, pinned to one release.
'/Users/alex/Thesis | ML/.venv/bin/python' -m pip install 'torch==2.15.*' 'torchvision==0.29.*'

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python '/Users/alex/Thesis | ML/.venv/bin/python'
