#!/usr/bin/env fish
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: Python 3.16 is not supported by current torch 2.15 (>=3.11,<3.16): pip will find no
# wheel; 1 failure, 0 warnings, 10 passed
# setup: a uv venv, Python from uv, uv, fish. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/4 Create /Users/alex/proj/.venv-py312 with a native arm64 Python 3.12
#   Current torch 2.15 supports Python >=3.11,<3.16. A new environment is created beside the old
#   one.
uv python install cpython-3.12-macos-aarch64-none
uv venv --python cpython-3.12-macos-aarch64-none /Users/alex/proj/.venv-py312

# 2/4 Install torch and torchvision in /Users/alex/proj/.venv-py312, pinned together
#   torch and torchvision from different releases fail at import; pinning both keeps pip from
#   pulling another torch.
uv pip install --python /Users/alex/proj/.venv-py312/bin/python 'torch==2.15.*' 'torchvision==0.29.*'

# 3/4 Switch to the new environment
#   The old environment /Users/alex/proj/.venv is left as it was; remove it yourself once the new
#   one works.
source /Users/alex/proj/.venv-py312/bin/activate.fish

# 4/4 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv-py312/bin/python
