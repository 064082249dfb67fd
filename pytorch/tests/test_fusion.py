"""fuse_conv_bn_relu on torchvision's ResNet-18, a VGG-BN feature stack and a UNet-style model:
the same outputs with no BatchNorm left and the ReLUs in NOVA's epilogue."""
import operator

import pytest
import torch
import torchvision
from torch import nn

import nova_torch
from nova_torch import NovaConv2d
from conftest import rel_l2
from test_modules import model_tolerance, small_resnet
from unet import UNet


def randomise_batchnorm(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return model.eval()


MODELS = {
    "resnet18": (lambda device: small_resnet(device), (2, 3, 32, 32)),
    "vgg11_bn features": (lambda device: torchvision.models.vgg.make_layers(
        torchvision.models.vgg.cfgs["A"], batch_norm=True).to(device), (2, 3, 32, 32)),
    "unet": (lambda device: UNet(width=8, depth=3).to(device), (1, 3, 32, 32)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_fused_model_matches_the_original(device, name):
    make, shape = MODELS[name]
    model = randomise_batchnorm(make(device))
    x = torch.randn(*shape, device=device)
    with torch.no_grad():
        ref = model.double().cpu()(x.double().cpu())
        model.float().to(device)
        fused = nova_torch.fuse_conv_bn_relu(model)
        y = fused(x)
    assert not any(isinstance(m, nn.BatchNorm2d) for m in fused.modules())
    assert any(isinstance(m, nn.BatchNorm2d) for m in model.modules())  # the original is untouched
    with_relu = [m for m in fused.modules() if isinstance(m, NovaConv2d) and m.relu]
    assert with_relu and all(m.bias is not None for m in with_relu)
    assert rel_l2(y, ref) <= model_tolerance(fused, x)


def test_resnet_blocks_keep_the_relu_after_the_sum():
    fused = nova_torch.fuse_conv_bn_relu(small_resnet("cpu"))
    block = fused.get_submodule("layer1.0")
    assert block.conv1.relu and not block.conv2.relu  # conv2's ReLU follows the residual sum
    modules = dict(fused.named_modules())
    sums = [n for n in fused.graph.nodes if n.op == "call_function" and n.target in (operator.add, operator.iadd)]
    assert len(sums) == 8  # one per BasicBlock, each still followed by its ReLU
    for node in sums:
        (user,) = node.users
        assert user.op == "call_module" and isinstance(modules[user.target], nn.ReLU)


def test_training_models_and_untraceable_ones_are_refused():
    model = small_resnet("cpu").train()
    with pytest.raises(ValueError, match="eval"):
        nova_torch.fuse_conv_bn_relu(model)

    class DataDependent(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 3, 3, padding=1)

        def forward(self, x):
            return self.conv(x) if x.sum() > 0 else x

    with pytest.raises(ValueError, match="replace_conv2d"):
        nova_torch.fuse_conv_bn_relu(DataDependent().eval())
