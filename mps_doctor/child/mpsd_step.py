"""One training step of a `mps-doctor model` TARGET: the factory's result checked, inputs placed on a device, the
forward, loss, backward and AdamW step (stdlib and torch only, Python 3.7+; shared by child/mpsd_model.py and
child/mpsd_measure.py)."""
import mpsd_trace


class TargetError(Exception):
    """The TARGET cannot be loaded or does not follow the convention; WHERE names the part."""

    def __init__(self, where, message):
        Exception.__init__(self, message)
        self.where = where


class Built(object):
    """One factory result: the model and its example inputs, on the CPU, and the loss function (None: the default)."""

    def __init__(self, model, args, kwargs, loss):
        self.model, self.args, self.kwargs, self.loss = model, args, kwargs, loss


def build(torch, factory, batch, with_batch):
    """Call FACTORY (with batch=BATCH when WITH_BATCH and a batch is asked for) and check what it returned."""
    result = factory(batch=batch) if with_batch and batch else factory()
    if not isinstance(result, (tuple, list)) or len(result) not in (2, 3):
        raise TargetError("result", "the factory returned %s, not (model, example_inputs) or (model, example_inputs, "
                                    "loss_fn)" % type(result).__name__)
    model, inputs = result[0], result[1]
    loss = result[2] if len(result) == 3 else None
    if not isinstance(model, torch.nn.Module):
        raise TargetError("result", "the factory's first value is a %s, not a torch.nn.Module" % type(model).__name__)
    if isinstance(inputs, torch.Tensor):
        args, kwargs = (inputs,), {}
    elif isinstance(inputs, (tuple, list)):
        args, kwargs = tuple(inputs), {}
    elif isinstance(inputs, dict):
        args, kwargs = (), dict(inputs)
    else:
        raise TargetError("result", "example_inputs is a %s, not a tensor, a tuple of arguments or a dict of keyword "
                                    "arguments" % type(inputs).__name__)
    if loss is not None and not callable(loss):
        raise TargetError("result", "the factory's third value (the loss function) is not callable")
    return Built(model, args, kwargs, loss)


def batch_of(built):
    """The size of the first dimension of the first example input, the batch; None when there is none."""
    first = next(mpsd_trace.tensors((built.args, built.kwargs)), None)
    return int(first.shape[0]) if first is not None and first.dim() > 0 else None


def default_loss(output):
    """The loss when the factory gives none: the sum of the means of the output's floating-point tensors."""
    parts = [t.mean() for t in mpsd_trace.tensors(output) if t.is_floating_point() or t.is_complex()]
    if not parts:
        raise TargetError("loss", "the model's output holds no floating-point tensor; return a loss function as the "
                                  "factory's third value")
    return sum(parts[1:], parts[0]).real if parts[0].is_complex() else sum(parts[1:], parts[0])


def make_optimizer(torch, model):
    """AdamW over MODEL's parameters with torch's defaults (lr 1e-3)."""
    return torch.optim.AdamW(model.parameters(), lr=1e-3)


def train_step(model, args, kwargs, loss_fn, optimizer, tracer=None, after_backward=None):
    """Forward, loss, backward and the optimizer step, TRACER's phase set for each, AFTER_BACKWARD() called between
    backward and the optimizer; the loss, not read back."""
    if tracer is not None:
        tracer.phase = "forward"
    output = model(*args, **kwargs)
    loss = loss_fn(output) if loss_fn is not None else default_loss(output)
    if tracer is not None:
        tracer.phase = "backward"
    loss.backward()
    if after_backward is not None:
        after_backward()
    if tracer is not None:
        tracer.phase = "optimizer"
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


def place(value, device, dtype=None):
    """VALUE's tensors on DEVICE; with DTYPE, its floating-point tensors converted to it."""
    def move(tensor):
        if dtype is not None and tensor.is_floating_point():
            return tensor.to(device=device, dtype=dtype)
        return tensor.to(device)
    return mpsd_trace.mapped(value, move)
