"""The checks, one module per subject; each registers its checks on import (checking/registry.py finds them)."""
