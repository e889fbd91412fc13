"""What the probes of the non-leaf `.grad` warning share: its text, and a fresh interpreter to count it in."""

from __future__ import annotations

import subprocess
import sys

NON_LEAF_WARNING = "is not a leaf Tensor is being accessed"


def stderr_of(code: str) -> str:
    """What `code` prints to stderr in a fresh interpreter: Python's warning filters and the once-per-line
    memory start empty there, as in a reader's script."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stderr
