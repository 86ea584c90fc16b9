"""pytorch/pytorch#108008 (the pull request that added it): a user on torch 2.1.1 still got NotImplementedError for
'aten::_weight_norm_interface' on MPS; its author answered that it "wasn't added in time for 2.1.1. It should be in the
next release of PyTorch" (2.2). https://github.com/pytorch/pytorch/pull/108008"""
import torch

THREAD = "https://github.com/pytorch/pytorch/pull/108008"
RELEASE, OPERATOR, FIXED_IN = "2.1.1", "aten::_weight_norm_interface", "2.2"


def make(batch=2):
    torch.manual_seed(0)
    layer = torch.nn.utils.weight_norm(torch.nn.Conv1d(4, 4, 3, padding=1))
    return torch.nn.Sequential(layer, torch.nn.ReLU()), (torch.randn(batch, 4, 16),)
