"""pytorch/pytorch#88973 (torch 1.12.1, macOS 13.0.1): boolean-mask indexing `v[v > 5]` raised NotImplementedError for
'aten::index.Tensor' on MPS. https://github.com/pytorch/pytorch/issues/88973"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/88973"
RELEASE, OPERATOR, FIXED_IN = "1.12.1", "aten::index.Tensor", None


class Masked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        return y[y > 0]


def make(batch=2):
    torch.manual_seed(0)
    return Masked(), (torch.randn(batch, 4),)
