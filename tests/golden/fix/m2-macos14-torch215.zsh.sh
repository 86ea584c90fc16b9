#!/usr/bin/env zsh
# mps-doctor 0.1.0 fix plan for /Users/alex/proj/.venv/bin/python
# not ready: MPS is built but not available, on a new enough macOS; 1 failure, 1 warning, 14 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Run outside the sandbox or VM, with access to the GPU
#   Usual causes: a sandbox (an agent or app sandbox), an SSH or headless session without GPU
#   access, or no Metal device (pytorch#177819, openai/codex#10199). Run outside the sandbox and
#   check Metal support.
system_profiler SPDisplaysDataType
# look for 'Metal Support' in the output above

# 2/3 The minimum macOS for torch 2.15's MPS is not settled in the sources.
#   A docs page for 2.15 says 15.0+, while the PR dropping macOS 14 was closed unmerged.
# run: softwareupdate --list

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
