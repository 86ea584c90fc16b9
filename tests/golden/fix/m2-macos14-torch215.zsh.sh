#!/usr/bin/env zsh
# mps-doctor 0.1.0 fix plan for /Users/alex/proj/.venv/bin/python
# not ready: MPS is not available: torch 2.15.0 may need macOS 15 (its minimum is an open question);
# 1 failure, 1 warning, 14 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Upgrade macOS (the lasting fix)
#   torch 2.15.0 needs a newer macOS for MPS; Software Update in System Settings installs it.
softwareupdate --list

# 2/3 Or keep this macOS and pin torch 2.14, the newest whose MPS runs on macOS 14.7
#   Data row: torch 2.14 row of torch_releases.json (inferred).
/Users/alex/proj/.venv/bin/python -m pip install 'torch==2.14.*' 'torchvision==0.29.*'

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
