#!/usr/bin/env fish
# mps-doctor <version> fix plan for /opt/homebrew/bin/python3
# not ready: torch is not installed in /opt/homebrew/bin/python3; 1 failure, 0 warnings, 12 passed
# setup: no virtual environment, Python from homebrew, pip, fish. Review before running: nothing
# here uses sudo or deletes an environment.

# 1/4 Create a virtual environment .venv with this Python
#   /opt/homebrew/bin/python3 is externally managed (PEP 668): pip refuses to install into it.
/opt/homebrew/bin/python3 -m venv .venv

# 2/4 Use the new environment
#   Activate it in every shell where you train.
source .venv/bin/activate.fish

# 3/4 Install torch and torchvision, pinned together
#   There is no torch in this environment. torch and torchvision from different releases fail at
#   import, so both are installed, pinned to one release.
.venv/bin/python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'

# 4/4 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python .venv/bin/python
