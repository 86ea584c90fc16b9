"""pytorch/pytorch#160829 (torch 2.7.1, macOS 15.6, Apple M4 Max): `nn.CTCLoss` raised NotImplementedError for
'aten::_ctc_loss' on MPS. https://github.com/pytorch/pytorch/issues/160829"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/160829"
RELEASE, OPERATOR, FIXED_IN = "2.7.1", "aten::_ctc_loss", None


def make(batch=2):
    torch.manual_seed(0)
    steps, classes, length = 12, 5, 4
    model = torch.nn.Sequential(torch.nn.Linear(8, classes), torch.nn.LogSoftmax(dim=-1))
    frames = torch.randn(steps, batch, 8)
    targets = torch.randint(1, classes, (batch, length))
    ctc = torch.nn.CTCLoss()

    def loss(log_probs):
        return ctc(log_probs, targets.to(log_probs.device), torch.full((batch,), steps, dtype=torch.long),
                   torch.full((batch,), length, dtype=torch.long))

    return model, (frames,), loss
