"""mps-doctor: is the Apple GPU (or CUDA, or the CPU) usable for PyTorch from this Python, and if not, why."""

__version__ = "0.1.0"
