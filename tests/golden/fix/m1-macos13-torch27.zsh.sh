#!/usr/bin/env zsh
# mps-doctor <version> fix plan for /Users/alex/proj/.venv/bin/python
# ready to train on mps; 0 failures, 1 warning, 19 passed
# setup: a venv, Python from homebrew, pip, zsh. Review before running: nothing here uses sudo or
# deletes an environment.

# 1/2 Upgrade macOS to 14.0 or newer for bfloat16, complex and FFT on MPS
#   torch 2.3-2.8 check for macOS 14 before these features; PYTORCH_ENABLE_MPS_FALLBACK does not
#   help, since the kernels exist and refuse. Upgrade macOS, or keep such tensors in float32,
#   real-valued, or on the CPU.
softwareupdate --list
# until then: float32 instead of bfloat16, real instead of complex tensors, torch.fft on the CPU

# 2/2 Check again
#   Confirms the fix and shows the next problem, if any.
mps-doctor check --python /Users/alex/proj/.venv/bin/python
