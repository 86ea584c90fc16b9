"""pytorch/pytorch#86549 (torch 1.13.0.dev20221004, macOS 13.0): `torch.logdet` of covariance matrices raised
NotImplementedError for 'aten::_linalg_slogdet.sign' on MPS. https://github.com/pytorch/pytorch/issues/86549"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/86549"
RELEASE, OPERATOR, FIXED_IN = "1.13.0.dev20221004", "aten::_linalg_slogdet.sign", None


class Entropy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)

    def forward(self, pos):
        centred = self.proj(pos) - self.proj(pos).mean(0, keepdim=True)
        sigma = torch.bmm(centred.unsqueeze(-1), centred.unsqueeze(1)).mean(0) + torch.eye(3, device=pos.device)
        return 0.25 * torch.logdet(sigma)


def make(batch=2):
    torch.manual_seed(0)
    return Entropy(), (torch.randn(batch * 4, 3),)
