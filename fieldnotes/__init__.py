"""Build tooling of Autograd Field Notes: run each example in isolation and check it against its recorded output."""

DISTRIBUTION = "autograd-field-notes"
"""This project's own distribution (pyproject.toml's name): it pins torch; the cache leaves it out."""
