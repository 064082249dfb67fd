"""Training through NOVA: a small CNN on synthetic data follows PyTorch's loss curve."""
import pytest
import torch
from torch import nn

import nova_torch


def synthetic_digits(count, generator):
    """Ten classes of 12x12 images: each class a fixed random pattern, plus noise."""
    patterns = torch.randn(10, 1, 12, 12, generator=generator)
    labels = torch.randint(0, 10, (count,), generator=generator)
    images = patterns[labels] + 0.8 * torch.randn(count, 1, 12, 12, generator=generator)
    return images, labels


def small_cnn():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(32, 10))


def train(model, images, labels, steps, device, autocast=False):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    losses = []
    for step in range(steps):
        batch = slice((step * 32) % len(images), (step * 32) % len(images) + 32)
        x, y = images[batch].to(device), labels[batch].to(device)
        opt.zero_grad()
        with torch.autocast("cuda", enabled=autocast):
            loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def loss_curves(device, steps=300, autocast=False):
    g = torch.Generator().manual_seed(7)
    images, labels = synthetic_digits(1024, g)
    torch.manual_seed(3)
    baseline = small_cnn().to(device)
    nova = small_cnn().to(device)
    nova.load_state_dict(baseline.state_dict())
    assert len(nova_torch.replace_conv2d(nova).swapped) == 3
    return (train(baseline, images, labels, steps, device, autocast),
            train(nova, images, labels, steps, device, autocast))


def assert_same_curve(base, nova):
    """Both learn (the loss falls to under a third), and NOVA's curve stays within the baseline's own
    step-to-step noise: the mean of the last 50 losses agrees within 2 standard deviations."""
    tail = lambda c: torch.tensor(c[-50:])
    assert tail(base).mean() < base[0] / 3 and tail(nova).mean() < nova[0] / 3
    assert abs(tail(nova).mean() - tail(base).mean()) <= 2 * tail(base).std()
    early = [abs(a - b) for a, b in zip(base[:20], nova[:20])]
    assert max(early) < 0.05  # identical start: the first steps differ only by rounding


def test_fp32_training_follows_pytorch(device):
    assert_same_curve(*loss_curves(device))


def test_fp16_autocast_training_follows_pytorch(device):
    if device.type != "cuda":
        pytest.skip("autocast to float16 is the GPU's")
    assert_same_curve(*loss_curves(device, autocast=True))
