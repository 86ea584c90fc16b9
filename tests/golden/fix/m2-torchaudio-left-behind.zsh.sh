#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# ready to train on mps; 0 failures, 1 warning, 19 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torchvision and torchaudio pinned to torch's release
#   An unpinned `pip install torchvision` can pull in another torch, and mismatched builds fail at
#   import or at the first operator ('operator torchvision::nms does not exist').
/Users/alex/proj/.venv/bin/python -m pip install 'torch==2.13.*' 'torchvision==0.28.*' 'torchaudio>=2.11,<2.14'

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
