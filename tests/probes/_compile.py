"""What the probes of hooks under torch.compile share (docs/faq/compile.md, the cheat sheet's row)."""

from __future__ import annotations

import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(4, 8), nn.Linear(8, 2)

    def forward(self, x):
        return self.l2(self.l1(x).relu())
