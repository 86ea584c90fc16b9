#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# ready to train on mps; 0 failures, 1 warning, 17 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 platform.mac_ver() of /Users/alex/proj/.venv/bin/python answers 10.16.
#   This Python was built against an old macOS SDK; pip may pick wrong wheel tags and old code
#   paths. A current Python build sees the real version.
# uv python install 3.12

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
