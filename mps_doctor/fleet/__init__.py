"""Many machines' reports in one view: `summarize` (summarize.py pure, collect.py reads the files)."""
