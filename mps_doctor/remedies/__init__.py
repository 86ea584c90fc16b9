"""Remedies: from the facts and the check results, an ordered plan of safe commands. Pure, like the checks."""
