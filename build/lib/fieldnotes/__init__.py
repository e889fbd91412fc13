"""Build tooling of Autograd Field Notes: run each example in isolation and check it against its recorded output."""
