"""pytorch/pytorch#132711 (torch 2.5.0.dev20240805, and "the latest stable version as well"): `F.unfold` fell back to the
CPU for 'aten::im2col' on MPS. pytorch/pytorch#151820 (torch 2.6.0) then reports that im2col "was implemented" and only
its backward, col2im, still falls back. https://github.com/pytorch/pytorch/issues/132711"""
import torch
import torch.nn.functional as F

THREAD = "https://github.com/pytorch/pytorch/issues/132711"
RELEASE, OPERATOR, FIXED_IN = "2.5.0.dev20240805", "aten::im2col", "2.6"


class Patches(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = torch.nn.Linear(18, 4)

    def forward(self, x):
        return self.mix(F.unfold(x, kernel_size=3, padding=1, stride=1).transpose(1, 2))


def make(batch=2):
    torch.manual_seed(0)
    return Patches(), (torch.randn(batch, 2, 8, 8),)
