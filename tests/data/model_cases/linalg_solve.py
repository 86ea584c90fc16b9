"""pytorch/pytorch#151189 (torch 2.6.0, macOS 15.3.2): HiDream-I1's sampler raised NotImplementedError for
'aten::_linalg_solve_ex.result' on MPS. https://github.com/pytorch/pytorch/issues/151189"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/151189"
RELEASE, OPERATOR, FIXED_IN = "2.6.0", "aten::_linalg_solve_ex.result", None


class Solve(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.eye(4) * 2 + 0.1 * torch.randn(4, 4))

    def forward(self, b):
        return torch.linalg.solve(self.a, b.t()).t()


def make(batch=2):
    torch.manual_seed(0)
    return Solve(), (torch.randn(batch, 4),)
