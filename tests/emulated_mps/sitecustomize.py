"""Test-suite only: with EMULATED_MPS set, this interpreter presents a Mac with MPS (see emulated_mps.py)."""
import os

if os.environ.get("EMULATED_MPS"):
    import emulated_mps

    emulated_mps.install()
