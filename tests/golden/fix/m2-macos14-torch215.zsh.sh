#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: MPS is built but not available, on a new enough macOS; 1 failure, 0 warnings, 16 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Run outside the sandbox or VM, with access to the GPU
#   Usual causes: a sandbox (an agent or app sandbox), an SSH or headless session without GPU
#   access, or no Metal device (pytorch#177819, openai/codex#10199). Run outside the sandbox and
#   check Metal support.
system_profiler SPDisplaysDataType
# look for 'Metal Support' in the output above
/Users/alex/proj/.venv/bin/python -c 'import torch; torch.ones(1, device="mps")'

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
