"""Diagnosis from pasted text: clean it, parse what it holds into facts and evidence, run the same checks."""
