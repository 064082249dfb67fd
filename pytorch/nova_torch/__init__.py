"""nova_torch: NOVA's Winograd convolutions for PyTorch.

    model = torchvision.models.resnet50().cuda().half().to(memory_format=torch.channels_last).eval()
    report = nova_torch.replace_conv2d(model)      # every eligible Conv2d, in place
    fast = nova_torch.fuse_conv_bn_relu(model)      # inference: BatchNorm and ReLU into NOVA's epilogue

    nova_torch.load_transform("f5x3_fp16.json")    # a transform discovered after the build: no rebuild

conv2d() is the functional op (torch.ops.nova.conv2d underneath on PyTorch 2.x); explain() says what
it would run; fallback_counts() what fell back to PyTorch and why. docs/pytorch.md has the details.
"""
from .functional import (clear_filter_cache, conv2d, describe, explain, fallback_counts, filter_cache_bytes,
                         predicted_error, set_enabled, transforms)
from .fusion import fuse_conv_bn_relu
from .modules import NovaConv2d, SwapReport, describe_model, replace_conv2d
from ._runtime import LIBRARY_PATH, NovaError, load_transform

__all__ = ["conv2d", "describe", "explain", "predicted_error", "set_enabled", "fallback_counts", "filter_cache_bytes",
           "clear_filter_cache", "transforms", "NovaConv2d", "replace_conv2d", "describe_model", "SwapReport",
           "fuse_conv_bn_relu", "NovaError", "LIBRARY_PATH", "load_transform"]
