#!/usr/bin/env bash
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: Python runs under Rosetta (x86_64) on an arm64 Mac; 1 failure, 0 warnings, 10 passed
# setup: a venv, Python from python.org, pip, bash. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/5 Stop the terminal from running under Rosetta
#   This Python is a universal2 build: it runs as x86_64 only because the shell that starts it does.
#   The commands below say `arch -arm64` explicitly; for your own sessions untick 'Open using
#   Rosetta' in the terminal app's Get Info window.
# a native shell for this session: arch -arm64 /bin/bash -l

# 2/5 Create /Users/alex/proj/.venv-arm64 with a native arm64 Python 3.11
#   An x86_64 Python gets x86_64 torch wheels, which stop at 2.2.2 and never use the Apple GPU. A
#   new environment is created beside the old one; nothing is deleted.
# /Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11 is a universal2 build: `arch -arm64` runs it natively
arch -arm64 /Library/Frameworks/Python.framework/Versions/3.11/bin/python3.11 -m venv /Users/alex/proj/.venv-arm64

# 3/5 Install torch and torchvision in /Users/alex/proj/.venv-arm64, pinned together
#   torch and torchvision from different releases fail at import; pinning both keeps pip from
#   pulling another torch.
arch -arm64 /Users/alex/proj/.venv-arm64/bin/python -m pip install 'torch==2.15.*' 'torchvision==0.29.*'

# 4/5 Switch to the new environment
#   The old environment /Users/alex/proj/.venv is left as it was; remove it yourself once the new
#   one works.
# shellcheck source=/dev/null
. /Users/alex/proj/.venv-arm64/bin/activate

# 5/5 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv-arm64/bin/python
