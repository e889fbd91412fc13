"""What the probes of torch's warnings share: the non-leaf `.grad` warning's text, and a fresh interpreter
to count warnings in."""

from __future__ import annotations

import tempfile
from pathlib import Path

from fieldnotes import runner

NON_LEAF_WARNING = "is not a leaf Tensor is being accessed"


def printed_by(code: str) -> str:
    """What `code`, run as a script in a fresh interpreter, prints (stdout and stderr): Python's warning
    filters and the once-per-line memory start empty there, as in a reader's script. The run is a fork
    of the engine's fork server (fieldnotes.runner), which has imported torch and nothing else."""
    runner.start_server(("torch",))
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "probe.py").write_text(code, encoding="utf-8")
        ran = runner.run_snippet(Path(folder), "probe.py", timeout=120)
    assert ran.exit_code == 0, ran.output
    return ran.output
