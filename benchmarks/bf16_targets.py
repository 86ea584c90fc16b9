"""The built-ins of `mps-doctor model` in bfloat16, as TARGETs: `mps-doctor model benchmarks/bf16_targets.py:resnet18`.

Each wraps the built-in factory (child/mpsd_builtins.py) and converts the model and its floating-point inputs to
bfloat16; the loss is computed in float32 from the bfloat16 output, as mixed-precision training does.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mps_doctor", "child"))
import mpsd_builtins  # noqa: E402


def bf16(name, batch):
    model, inputs, loss = mpsd_builtins.factory(torch, name)(batch)
    inputs = tuple(t.to(torch.bfloat16) if t.is_floating_point() else t for t in inputs)
    return model.to(torch.bfloat16), inputs, lambda output: loss(output.float())


def resnet18(batch=16):
    return bf16("torchvision:resnet18", batch)


def vit_b_16(batch=4):
    return bf16("torchvision:vit_b_16", batch)


def transformer_block(batch=16):
    return bf16("mps-doctor:transformer-block", batch)


def mnist(batch=64):
    return bf16("mps-doctor:mnist", batch)
