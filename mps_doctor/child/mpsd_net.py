"""The pytorch/examples MNIST network and its training step, shared by the smoke layer and the bench.

Network and optimizer as in pytorch/examples mnist/main.py (the seed documents' experiment): conv 1->32,
conv 32->64, max-pool, dropout 0.25, fc 9216->128, dropout 0.5, fc 128->10, log-softmax; Adadelta lr 1.0.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# MNIST mean and standard deviation, as pytorch/examples normalizes with transforms.Normalize((0.1307,), (0.3081,)).
MNIST_MEAN, MNIST_STD = 0.1307, 0.3081
# One training step at batch 64 is 4.580 GFLOP (reference/performance.md section 4, matches FlopCounterMode).
STEP_FLOP_AT_64 = 4.580179968e9


class Net(nn.Module):
    """pytorch/examples mnist/main.py `Net`."""

    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def to_tensors(images, labels, count=None):
    """Turn IDX arrays into a normalized float32 N x 1 x 28 x 28 tensor and an int64 label tensor, on the CPU."""
    n = len(images) if count is None else min(count, len(images))
    pixels = torch.frombuffer(bytearray(images.data[: n * 784]), dtype=torch.uint8) if hasattr(torch, "frombuffer") \
        else torch.tensor(list(bytearray(images.data[: n * 784])), dtype=torch.uint8)
    x = pixels.reshape(n, 1, 28, 28).to(torch.float32).div_(255.0).sub_(MNIST_MEAN).div_(MNIST_STD)
    y = torch.tensor(list(bytearray(labels.data[:n])), dtype=torch.int64)
    return x, y


def make_model(device, seed=0):
    """A Net with weights drawn on the CPU from SEED, then moved, so every device starts from the same weights."""
    torch.manual_seed(seed)
    return Net().to(device)


def make_optimizer(model, light=False):
    """Adadelta with lr 1.0, as pytorch/examples; LIGHT gives the same update without importing torch.optim.

    Constructing a torch.optim optimizer imports torch._dynamo (0.9 s measured on torch 2.13), which would be
    most of the smoke layer's time budget; the bench always uses torch.optim.Adadelta like the seed.
    """
    if light:
        return LightAdadelta(list(model.parameters()), lr=1.0)
    return torch.optim.Adadelta(model.parameters(), lr=1.0)


class LightAdadelta(object):
    """torch.optim.Adadelta's single-tensor update (rho 0.9, eps 1e-6, no weight decay), in plain tensor ops."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6):
        self.params, self.lr, self.rho, self.eps = params, lr, rho, eps
        self.state = [(torch.zeros_like(p), torch.zeros_like(p)) for p in params]

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with torch.no_grad():
            for p, (square_avg, acc_delta) in zip(self.params, self.state):
                if p.grad is None:
                    continue
                grad = p.grad
                square_avg.mul_(self.rho).addcmul_(grad, grad, value=1 - self.rho)
                delta = acc_delta.add(self.eps).sqrt_().div_(square_avg.add(self.eps).sqrt_()).mul_(grad)
                acc_delta.mul_(self.rho).addcmul_(delta, delta, value=1 - self.rho)
                p.add_(delta, alpha=-self.lr)


def train_step(model, optimizer, x, y):
    """One forward, backward and optimizer step; returns the loss tensor without reading it (no host sync)."""
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.detach()
