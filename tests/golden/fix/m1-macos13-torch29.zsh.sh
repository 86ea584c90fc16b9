#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# not ready: macOS 13.6.7 is too old for torch 2.9.1's MPS (needs 14.0+); 1 failure, 0 warnings, 11
# passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/3 Upgrade macOS (the lasting fix)
#   torch 2.9 installs on macOS 11.0 and later and runs on the CPU there, but its MPS backend checks
#   for macOS 14.0 and reports unavailable below it. torch.backends.mps.is_available() stays False;
#   torch's own error message often names the wrong minimum (pytorch#139425, #164943). Either
#   upgrade macOS, or pin torch 2.8, the newest whose MPS runs on macOS 13.6.7 (an unpinned
#   `pip install torch` gets 2.11 here, which has no MPS on this macOS).
softwareupdate --list

# 2/3 Or keep this macOS and pin torch 2.8, the newest whose MPS runs on macOS 13.6.7
#   Data row: torch 2.8 row of torch_releases.json (sourced) (an unpinned `pip install torch` gets
#   2.11 here, which has no MPS on this macOS).
/Users/alex/proj/.venv/bin/python -m pip install 'torch==2.8.*' 'torchvision==0.23.*'

# 3/3 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
