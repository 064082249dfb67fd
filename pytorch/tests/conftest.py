"""Shared helpers: the devices the tests run on (CPU always, CUDA where present), the FP64
reference and the relative L2 error the precision model predicts."""
import os
import sys

import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bench"))  # unet.py

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.fixture(params=DEVICES)
def device(request):
    return torch.device(request.param)


@pytest.fixture(autouse=True)
def _seed_and_strict_fp32():
    """A fixed seed, and float32 convolutions and matrix products in float32 on the GPU (PyTorch lets
    cuDNN use TF32 by default: errors near 3e-4 in the layers NOVA leaves to it)."""
    torch.manual_seed(1234)
    saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


def reference(x, w, b=None, padding=1, relu=False):
    """FP64 convolution of the very values given (already rounded to their dtype), on the CPU."""
    y = F.conv2d(x.detach().cpu().double(), w.detach().cpu().double(),
                 None if b is None else b.detach().cpu().double(), padding=padding)
    return F.relu(y) if relu else y


def rel_l2(y, ref):
    y = y.detach().cpu().double()
    assert torch.isfinite(y).all(), "non-finite output"
    return ((y - ref).norm() / ref.norm()).item()


def random_conv(n, c, h, w, k, r=3, dtype=torch.float32, device="cpu", bias=True):
    """Unit-variance input, weights scaled 1/sqrt(r r C) (outputs of unit scale), as the C++ tests."""
    x = torch.randn(n, c, h, w, dtype=torch.float64).to(device=device, dtype=dtype)
    wt = (torch.randn(k, c, r, r, dtype=torch.float64) / (r * r * c) ** 0.5).to(device=device, dtype=dtype)
    b = torch.randn(k, dtype=torch.float64).to(device=device, dtype=dtype) if bias else None
    return x, wt, b
