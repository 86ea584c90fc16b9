"""CUDA layers of the verdict (filled in by the CUDA work)."""
