#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /home/dev/proj/.venv/bin/python3
# ready to train on cuda; 0 failures, 0 warnings, 17 passed
# setup: a uv venv, Python from system, uv, zsh. Review before running: nothing here uses sudo or
# deletes an environment.
# nothing to fix
