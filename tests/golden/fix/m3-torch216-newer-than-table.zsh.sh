#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# ready to train on mps; 0 failures, 1 warning, 18 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 This mps-doctor's data/torch_releases.json ends at torch 2.15.
#   A newer mps-doctor knows the new release's Python range, macOS minimum and companions: update it
#   from where your team installs it (a newer checkout, wheel file or pinned git URL; never a name
#   on a package index, where no mps-doctor is published); `--version` shows the table's date and
#   newest row. Until then the installed torch's own answers are used.
mps-doctor --version

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
