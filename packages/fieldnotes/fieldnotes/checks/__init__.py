"""Checks of the written site (links); the claims and drift checks are the executed blocks' own."""
