"""What the probes of torch's warnings share: the non-leaf `.grad` warning's text, and a fresh interpreter
to count warnings in."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.fresh_python import SCRIPTS

NON_LEAF_WARNING = "is not a leaf Tensor is being accessed"


def printed_by(code: str) -> str:
    """What `code`, run as a script in a fresh interpreter, prints (stdout and stderr): Python's warning
    filters and the once-per-line memory start empty there, as in a reader's script. The run is a fork
    of tests/fresh_python.py's server, which has imported torch and nothing else."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "probe.py").write_text(code, encoding="utf-8")
        ran = SCRIPTS.run("probe.py", Path(folder), timeout=120)
    assert ran.returncode == 0, ran.text
    return ran.text
