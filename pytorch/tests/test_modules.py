"""NovaConv2d as a drop-in for nn.Conv2d; replace_conv2d on torchvision's ResNet-18 and nested
modules; state_dict round trips."""
import io

import pytest
import torch
import torchvision
from torch import nn

import nova_torch
from nova_torch import NovaConv2d
from conftest import random_conv, reference, rel_l2


def model_tolerance(model, x):
    """The sum over the model's NOVA layers of the precision model for what each runs on this input
    (each layer's relative error passed on at most once), with the tests' 2x allowance for small
    shapes."""
    predicted = [d["predicted_error"] for _, d in nova_torch.describe_model(model, x) if d["runs"] == "nova"]
    assert predicted, "no layer ran through NOVA"
    return 2.0 * sum(predicted)


def test_same_parameters_and_state_dict_keys(device):
    conv = nn.Conv2d(4, 6, 3, padding=1).to(device)
    nova = NovaConv2d(4, 6, 3, padding=1).to(device)
    assert list(nova.state_dict()) == list(conv.state_dict())
    nova.load_state_dict(conv.state_dict())
    x = torch.randn(2, 4, 7, 9, device=device)
    assert rel_l2(nova(x), reference(x, conv.weight, conv.bias)) <= 2 * nova_torch.predicted_error(
        nova_torch.describe(x, nova.weight, nova.bias)["transform"], torch.float32, 4)
    shared = NovaConv2d.from_conv2d(conv)
    assert shared.weight is conv.weight and shared.bias is conv.bias
    assert "transform='auto'" in repr(shared)


def test_padding_mode_other_than_zeros_falls_back():
    conv = NovaConv2d(3, 3, 3, padding=1, padding_mode="reflect")
    assert "padding_mode='reflect'" in conv.unsupported_reason()
    x = torch.randn(1, 3, 6, 6)
    assert torch.equal(conv(x), nn.Conv2d.forward(conv, x))


def small_resnet(device):
    model = torchvision.models.resnet18(num_classes=10).to(device).eval()
    with torch.no_grad():  # BatchNorm statistics that are not the identity
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
    return model


def test_replace_conv2d_on_resnet18(device):
    model = small_resnet(device)
    x = torch.randn(2, 3, 32, 32, device=device)
    with torch.no_grad():
        ref = model.double().cpu()(x.double().cpu())
        model.float().to(device)
        report = nova_torch.replace_conv2d(model)
        y = model(x)
    # ResNet-18: the stem (7x7, stride 2) and the three 1x1 stride-2 shortcuts stay; 16 3x3 convs
    # of which the three stride-2 ones stay.
    left = dict(report.left)
    assert left["conv1"].startswith("stride") and left["layer2.0.downsample.0"].startswith("stride")
    assert left["layer2.0.conv1"].startswith("stride")
    assert len(report.swapped) == 13 and "layer1.0.conv1" in report.swapped
    assert isinstance(model.layer1[0].conv1, NovaConv2d)
    assert rel_l2(y, ref) <= model_tolerance(model, x)
    assert "13 swapped" in repr(report)
    calls = dict(nova_torch.describe_model(model, x))
    assert calls["layer1.0.conv1"]["runs"] == "nova" and calls["layer1.0.conv1"]["layout"] == "NCHW"
    assert calls["layer1.0.conv1"]["transform"] in {t[0] for t in nova_torch.transforms()}

    again = nova_torch.replace_conv2d(model)  # idempotent
    assert again.swapped == []
    assert dict(again.left)["layer1.0.conv1"] == "already a NovaConv2d"


def test_replace_conv2d_nested_filter_and_root():
    model = nn.ModuleDict({"a": nn.Sequential(nn.Sequential(nn.Conv2d(3, 4, 3, padding=1))),
                           "b": nn.ModuleList([nn.Conv2d(4, 4, 3, padding=1), nn.Conv2d(4, 4, 5, padding=2)])})
    report = nova_torch.replace_conv2d(model, filter=lambda name, conv: name != "b.0")
    assert report.swapped == ["a.0.0", "b.1"]
    assert dict(report.left)["b.0"] == "excluded by filter"
    assert isinstance(model["a"][0][0], NovaConv2d) and type(model["b"][0]) is nn.Conv2d
    named = nova_torch.replace_conv2d(nn.Sequential(nn.Conv2d(3, 4, 5, padding=2)), transform="f4x3_fp16")
    assert "for 3x3 filters" in dict(named.left)["0"]
    assert "NovaConv2d.from_conv2d" in nova_torch.replace_conv2d(nn.Conv2d(3, 3, 3)).left[0][1]


def test_state_dict_round_trip(device):
    model = small_resnet(device)
    keys = list(model.state_dict())
    nova_torch.replace_conv2d(model)
    assert list(model.state_dict()) == keys
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    x = torch.randn(1, 3, 16, 16, device=device)
    with torch.no_grad():
        before = model(x)
        fresh = torchvision.models.resnet18(num_classes=10).to(device).eval()
        nova_torch.replace_conv2d(fresh)
        buffer.seek(0)
        fresh.load_state_dict(torch.load(buffer))
        assert torch.equal(fresh(x), before)
        whole = io.BytesIO()
        torch.save(model, whole)  # the transformed filters live beside the weights, not in them
        assert whole.tell() < 1.1 * buffer.getbuffer().nbytes


def test_a_second_optimiser_step_is_seen(device):
    conv = NovaConv2d(4, 4, 3, padding=1).to(device)
    opt = torch.optim.SGD(conv.parameters(), lr=0.1)
    x = torch.randn(2, 4, 8, 8, device=device)
    for _ in range(3):
        opt.zero_grad()
        conv(x).square().mean().backward()
        opt.step()
        with torch.no_grad():
            got = conv(x)
        want = reference(x, conv.weight, conv.bias)
        assert rel_l2(got, want) <= 2 * nova_torch.predicted_error(
            nova_torch.describe(x, conv.weight)["transform"], torch.float32, 4)
