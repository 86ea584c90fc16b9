"""Renderers: a Report in, text out. They never look at the machine."""
