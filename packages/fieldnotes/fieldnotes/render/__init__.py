"""Rendering: what a block or a page looks like in HTML (code spans, indentation, the autograd-graph fence)."""
