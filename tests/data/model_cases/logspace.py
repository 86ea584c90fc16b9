"""pytorch/pytorch#141287, comment of 2025-07-06 (torch 2.7.1, MacBook Air M3): relative positional features built
with `logspace(..., device=self.device)` raised NotImplementedError for 'aten::logspace.out' on MPS.
https://github.com/pytorch/pytorch/issues/141287"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/141287"
RELEASE, OPERATOR, FIXED_IN = "2.7.1", "aten::logspace.out", None


class RelativePosFeatures(torch.nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.dim = dim
        self.proj = torch.nn.Linear(dim // 2, 1)

    def forward(self, single):
        seq_len = single.shape[1]
        half = self.dim // 2
        rel = torch.arange(2 * seq_len - 1, device=single.device) - (seq_len - 1)
        widths = torch.logspace(1, 3, half + 1, device=single.device)[:-1]
        features = (rel.abs().unsqueeze(-1) <= widths).to(single.dtype)
        return self.proj(features).sum() * single.mean()


def make(batch=2):
    torch.manual_seed(0)
    return RelativePosFeatures(), (torch.randn(batch, 6, 8),)
