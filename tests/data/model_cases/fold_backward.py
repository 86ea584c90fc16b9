"""pytorch/pytorch#151820 (torch 2.6.0, Apple M4): the backward of `F.unfold` fell back to the CPU for 'aten::col2im' on
MPS. https://github.com/pytorch/pytorch/issues/151820"""
import torch
import torch.nn.functional as F

THREAD = "https://github.com/pytorch/pytorch/issues/151820"
RELEASE, OPERATOR, FIXED_IN = "2.6.0", "aten::col2im", None


class Unfolded(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.ones(1, 2, 8, 8))

    def forward(self, x):
        return F.unfold(x * self.scale, kernel_size=3, padding=1, stride=1)


def make(batch=2):
    torch.manual_seed(0)
    return Unfolded(), (torch.randn(batch, 2, 8, 8),), lambda out: out.sum()
