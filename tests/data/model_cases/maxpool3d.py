"""pytorch/pytorch#158723 (3-D imagery): `nn.MaxPool3d` raised NotImplementedError for 'aten::max_pool3d_with_indices'
on MPS. The message carries torch's commit hash e2d141dbde55c2a4370fac5165b0561b6af4798b, the hash that a torch 2.7.1
user quotes in pytorch/pytorch#141287 (comment of 2025-07-06): torch 2.7.1.
https://github.com/pytorch/pytorch/issues/158723"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/158723"
RELEASE, OPERATOR, FIXED_IN = "2.7.1", "aten::max_pool3d_with_indices", None


def make(batch=2):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv3d(1, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool3d(2),
                                torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4 * 4, 2))
    return model, (torch.randn(batch, 1, 8, 8, 8),)
