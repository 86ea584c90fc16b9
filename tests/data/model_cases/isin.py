"""pytorch/pytorch#136148 (torch==2.0.1, transformers 4.34): generation raised NotImplementedError for
'aten::isin.Tensor_Tensor_out' on MPS; on OpenBMB/MiniCPM-V#490 the reporter of the same error wrote "pytorch update 2.4
is solve". https://github.com/pytorch/pytorch/issues/136148, https://github.com/OpenBMB/MiniCPM-V/issues/490"""
import torch

THREAD = "https://github.com/pytorch/pytorch/issues/136148"
RELEASE, OPERATOR, FIXED_IN = "2.0.1", "aten::isin.Tensor_Tensor_out", "2.4"


class StopTokens(torch.nn.Module):
    """A language-model head whose logits are masked at the stop tokens, as generation utilities do with isin."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(32, 8)
        self.head = torch.nn.Linear(8, 32)
        self.register_buffer("stop", torch.tensor([2, 7]))

    def forward(self, tokens):
        logits = self.head(self.embed(tokens))
        done = torch.isin(tokens, self.stop)
        return logits * (~done).unsqueeze(-1).to(logits.dtype)


def make(batch=2):
    torch.manual_seed(0)
    return StopTokens(), (torch.randint(0, 32, (batch, 6)),)
