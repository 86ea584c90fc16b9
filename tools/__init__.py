"""Maintainer tools, run from a checkout of mps-doctor; not part of the package."""
