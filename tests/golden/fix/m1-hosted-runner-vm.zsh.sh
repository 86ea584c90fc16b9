#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/runner/work/proj/proj/.venv/bin/python
# ready to train on cpu; 0 failures, 0 warnings, 14 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.
# nothing to fix
