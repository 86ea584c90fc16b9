"""The release-facts refresh tool: `python -m tools.refresh` (docs/architecture.md)."""
