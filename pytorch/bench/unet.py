"""A UNet-style model (conv-BN-ReLU pairs, max-pool down, transposed-conv up, skip concatenations),
as the whole-model benchmark and the fusion tests use it. No weights: random initialisation."""
import torch
from torch import nn


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_channels=3, classes=2, width=32, depth=4):
        super().__init__()
        widths = [width * 2 ** i for i in range(depth + 1)]
        self.stem = double_conv(in_channels, widths[0])
        self.down = nn.ModuleList(double_conv(a, b) for a, b in zip(widths[:-1], widths[1:]))
        self.up = nn.ModuleList(nn.ConvTranspose2d(b, a, 2, stride=2) for a, b in zip(widths[:-1], widths[1:]))
        self.merge = nn.ModuleList(double_conv(2 * a, a) for a in widths[:-1])
        self.head = nn.Conv2d(widths[0], classes, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = [self.stem(x)]
        for block in self.down:
            skips.append(block(self.pool(skips[-1])))
        x = skips.pop()
        for up, merge in zip(reversed(self.up), reversed(self.merge)):
            x = merge(torch.cat([up(x), skips.pop()], dim=1))
        return self.head(x)
