#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# ready to train on mps; 0 failures, 1 warning, 19 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/4 Create /Users/alex/proj/.venv-py312 with a native arm64 Python 3.12
#   This Python was built against an old macOS SDK; pip may pick wrong wheel tags and old code
#   paths. A current Python build sees the real version.
/opt/homebrew/bin/brew install python@3.12
/opt/homebrew/bin/python3.12 -m venv /Users/alex/proj/.venv-py312

# 2/4 Install torch and torchvision in /Users/alex/proj/.venv-py312, pinned together
#   torch and torchvision from different releases fail at import; pinning both keeps pip from
#   pulling another torch.
/Users/alex/proj/.venv-py312/bin/python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'

# 3/4 Switch to the new environment
#   The old environment /Users/alex/proj/.venv is left as it was; remove it yourself once the new
#   one works.
# shellcheck source=/dev/null
. /Users/alex/proj/.venv-py312/bin/activate

# 4/4 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv-py312/bin/python
