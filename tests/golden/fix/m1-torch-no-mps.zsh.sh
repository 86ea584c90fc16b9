#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: this torch was built without MPS (a git4c1d5e2 build, not the macOS arm64 wheel from
# PyPI); 1 failure, 0 warnings, 15 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Reinstall torch from PyPI, whose macOS arm64 wheel is the MPS build
#   The default PyPI wheel for macOS arm64 is the MPS build; x86_64 wheels and custom builds have no
#   MPS.
/Users/alex/proj/.venv/bin/python -m pip install --force-reinstall 'torch==2.15.*' 'torchvision==0.29.*'

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
