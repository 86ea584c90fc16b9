#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: MPS is not available inside a sandbox (CODEX_SANDBOX=seatbelt); 1 failure, 0 warnings,
# 16 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Run outside the sandbox
#   Sandboxed processes can be denied the Metal device, so MPS reports built but unavailable
#   (openai/codex#10199). Run the training, and this check, outside the sandbox.
# start a terminal that is not sandboxed and run the check from there

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
