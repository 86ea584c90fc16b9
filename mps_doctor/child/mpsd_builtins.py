"""The built-in TARGETs of `mps-doctor model`: factories that need no download (random weights, random inputs).

Each factory follows the TARGET convention: `factory(batch=N)` returns `(model, example_inputs, loss_fn)`, where
example_inputs are the positional arguments of `model(...)` and `loss_fn(output)` returns the scalar loss.
"""

# The default batch of each built-in: small enough that a CPU step of the largest (ViT-B/16) stays near a second.
DEFAULT_BATCH = {"torchvision:resnet18": 16, "torchvision:vit_b_16": 4, "mps-doctor:transformer-block": 16,
                 "mps-doctor:mnist": 64}
NAMES = tuple(DEFAULT_BATCH)


def generator(torch):
    """A CPU generator with a fixed seed, so every run draws the same inputs."""
    return torch.Generator().manual_seed(0)


def classifier(torch, model, batch, shape, classes):
    """(MODEL, a random batch of SHAPE, cross entropy against random labels of CLASSES classes)."""
    gen = generator(torch)
    images = torch.randn((batch,) + shape, generator=gen)
    labels = torch.randint(0, classes, (batch,), generator=gen)
    return model, (images,), lambda output: torch.nn.functional.cross_entropy(output, labels.to(output.device))


def resnet18(torch, batch):
    """torchvision's ResNet-18 (weights=None: nothing is downloaded) on 224x224 images, 1000 classes; where
    torchvision does not import, the same architecture built here, so that its operators are still traced."""
    torch.manual_seed(0)
    try:
        import torchvision

        model = torchvision.models.resnet18(weights=None)
    except Exception:  # not installed, or a build that does not load against this torch (no torchvision::nms)
        model = resnet18_copy(torch)
    return classifier(torch, model, batch, (3, 224, 224), 1000)


# What the load stage reports as the module of the copy below.
COPY_MODULE = "mps-doctor's copy of torchvision.models.resnet (torchvision does not import here)"


def resnet18_copy(torch):
    """ResNet-18 as torchvision/models/resnet.py builds it (BasicBlock, layers [2, 2, 2, 2], a 7x7 stem, a 1x1
    downsample where the shape changes, Kaiming-normal convolutions): the same modules, so the same operators."""
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super(BasicBlock, self).__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + identity)

    class ResNet(nn.Module):
        def __init__(self):
            super(ResNet, self).__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            widths, blocks, inplanes = (64, 128, 256, 512), [], 64
            for index, planes in enumerate(widths):
                stride = 1 if index == 0 else 2
                blocks.append(nn.Sequential(BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes)))
                inplanes = planes
            self.layer1, self.layer2, self.layer3, self.layer4 = blocks
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, 1000)
            for module in self.modules():
                if isinstance(module, nn.Conv2d):
                    nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")
                elif isinstance(module, nn.BatchNorm2d):
                    nn.init.constant_(module.weight, 1)
                    nn.init.constant_(module.bias, 0)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    ResNet.__module__ = COPY_MODULE
    return ResNet()


def vit_b_16(torch, batch):
    """torchvision's ViT-B/16 (weights=None) on 224x224 images, 1000 classes."""
    import torchvision

    torch.manual_seed(0)
    return classifier(torch, torchvision.models.vit_b_16(weights=None), batch, (3, 224, 224), 1000)


def transformer_block(torch, batch):
    """A small language-model block: token embedding, one nn.TransformerEncoderLayer (d_model 256, 8 heads, causal
    mask), a vocabulary head; next-token cross entropy on random tokens of length 128."""
    nn = torch.nn
    vocab, width, length = 1000, 256, 128

    class Block(nn.Module):
        def __init__(self):
            super(Block, self).__init__()
            self.embed = nn.Embedding(vocab, width)
            self.layer = nn.TransformerEncoderLayer(width, 8, 4 * width, dropout=0.1, batch_first=True)
            self.head = nn.Linear(width, vocab)

        def forward(self, tokens):
            mask = torch.triu(torch.full((tokens.shape[1], tokens.shape[1]), float("-inf"), device=tokens.device), 1)
            return self.head(self.layer(self.embed(tokens), src_mask=mask))

    torch.manual_seed(0)
    gen = generator(torch)
    tokens = torch.randint(0, vocab, (batch, length + 1), generator=gen)
    inputs, targets = tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()

    def loss(output):
        return torch.nn.functional.cross_entropy(output.reshape(-1, vocab), targets.to(output.device).reshape(-1))

    return Block(), (inputs,), loss


def mnist(torch, batch):
    """The pytorch/examples MNIST network of `check` and `bench` (child/mpsd_net.py), NLL loss, random 28x28 digits."""
    import mpsd_net

    model = mpsd_net.make_model("cpu")
    gen = generator(torch)
    images = torch.randn(batch, 1, 28, 28, generator=gen)
    labels = torch.randint(0, 10, (batch,), generator=gen)
    return model, (images,), lambda output: torch.nn.functional.nll_loss(output, labels.to(output.device))


FACTORIES = {"torchvision:resnet18": resnet18, "torchvision:vit_b_16": vit_b_16,
             "mps-doctor:transformer-block": transformer_block, "mps-doctor:mnist": mnist}


def factory(torch, name):
    """The built-in NAME as a TARGET factory taking batch=."""
    make = FACTORIES[name]

    def built(batch=None):
        return make(torch, batch or DEFAULT_BATCH[name])

    return built
