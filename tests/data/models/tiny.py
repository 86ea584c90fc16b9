"""A TARGET for the tests: a two-layer MLP whose factory takes batch= and returns its own loss."""
import torch


def make(batch=4):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    inputs = torch.randn(batch, 8)
    labels = torch.randint(0, 2, (batch,))
    return model, (inputs,), lambda output: torch.nn.functional.cross_entropy(output, labels.to(output.device))


def float64(batch=4):
    """The same MLP in float64, as a model built from numpy float64 arrays ends up."""
    model, inputs, loss = make(batch)
    return model.double(), (inputs[0].double(),), loss


def bfloat16(batch=4):
    model, inputs, loss = make(batch)
    return model.to(torch.bfloat16), (inputs[0].to(torch.bfloat16),), loss


def crash():
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)


def hang():
    import time

    time.sleep(600)


def broken():
    raise RuntimeError("the factory of this test is broken on purpose")


def not_a_model():
    return "model", torch.zeros(1)


class Masked(torch.nn.Module):
    """An MLP whose output is masked by torch.isin on token ids: isin and AdamW's lerp_ are two operators that some
    releases lack on MPS."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 2)
        self.register_buffer("allowed", torch.tensor([1, 3, 5]))

    def forward(self, x, ids):
        keep = torch.isin(ids, self.allowed).to(x.dtype)
        return self.fc(x) * keep.unsqueeze(1)


def masked(batch=4):
    torch.manual_seed(0)
    inputs = torch.randn(batch, 8)
    ids = torch.arange(batch)
    return Masked(), (inputs, ids), lambda output: output.pow(2).mean()
