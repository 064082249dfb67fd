"""fuse_conv_bn_relu: BatchNorm folded into the convolution before it, and the bias and a following
ReLU moved into NOVA's epilogue, for inference."""
import copy

import torch
import torch.fx
from torch import nn

from .functional import transform_kernel_size
from .modules import NovaConv2d

_RELU_FUNCTIONS = (torch.relu, torch.nn.functional.relu)


def _is_module(node, modules, kind):
    return node.op == "call_module" and isinstance(modules.get(node.target), kind)


def _is_relu(node, modules):
    if _is_module(node, modules, nn.ReLU):
        return True
    if node.op == "call_function":
        return node.target in _RELU_FUNCTIONS
    return node.op == "call_method" and node.target in ("relu", "relu_")


def _folded(conv, bn, relu, transform, max_error):
    """A NovaConv2d computing relu?(bn(conv(x))) in eval mode: w' = w s, b' = (b - mean) s + beta,
    s = gamma / sqrt(var + eps), in float64 then rounded once to the weight's dtype."""
    w = conv.weight.detach().double()
    b = conv.bias.detach().double() if conv.bias is not None else torch.zeros(w.shape[0], dtype=torch.float64,
                                                                                device=w.device)
    mean, var = bn.running_mean.double(), bn.running_var.double()
    gamma = bn.weight.detach().double() if bn.weight is not None else torch.ones_like(mean)
    beta = bn.bias.detach().double() if bn.bias is not None else torch.zeros_like(mean)
    scale = gamma / torch.sqrt(var + bn.eps)
    fused = NovaConv2d(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, padding=conv.padding,
                       dilation=conv.dilation, groups=conv.groups, bias=True, padding_mode=conv.padding_mode,
                       device=conv.weight.device, dtype=conv.weight.dtype,
                       transform=getattr(conv, "transform", transform), relu=relu,
                       max_error=getattr(conv, "max_error", max_error))
    with torch.no_grad():
        fused.weight.copy_(w * scale.reshape(-1, 1, 1, 1))
        fused.bias.copy_((b - mean) * scale + beta)
    return fused.eval()


def fuse_conv_bn_relu(model, *, transform="auto", max_error=None):
    """Returns an inference copy of `model` (in eval mode; the model itself is not changed) in which
    every Conv2d followed only by a BatchNorm2d (and then optionally a ReLU) is one NovaConv2d with
    the BatchNorm folded into its weights and bias and the ReLU in its epilogue; a Conv2d followed
    directly by a ReLU takes it into its epilogue too. Every other Conv2d is swapped as
    replace_conv2d() would; `transform` and `max_error` as there (a NovaConv2d keeps its own). The
    model must trace with torch.fx (torchvision's ResNets, VGGs and
    UNet-style blocks do)."""
    if model.training:
        raise ValueError("fuse_conv_bn_relu folds BatchNorm's running statistics: call model.eval() first")
    transform_kernel_size(transform)
    try:
        traced = torch.fx.symbolic_trace(copy.deepcopy(model))
    except Exception as e:  # fx raises many kinds for untraceable Python
        raise ValueError(f"fuse_conv_bn_relu: torch.fx cannot trace {type(model).__name__} ({e}); "
                         f"use replace_conv2d() for it") from e
    modules = dict(traced.named_modules())
    graph = traced.graph
    for node in list(graph.nodes):
        if not _is_module(node, modules, nn.Conv2d) or len(node.users) != 1:
            continue
        conv = modules[node.target]
        consumer = next(iter(node.users))
        bn = None
        if _is_module(consumer, modules, nn.BatchNorm2d) and modules[consumer.target].track_running_stats:
            bn = modules[consumer.target]
            last = consumer
        else:
            last = node
        relu_node = next(iter(last.users)) if len(last.users) == 1 else None
        relu = relu_node is not None and _is_relu(relu_node, modules) and relu_node.args[0] is last
        if bn is None and not relu:
            continue
        if bn is not None:
            fused = _folded(conv, bn, relu, transform, max_error)
        else:
            fused = NovaConv2d.from_conv2d(conv, transform=getattr(conv, "transform", transform), relu=True,
                                           max_error=getattr(conv, "max_error", max_error))
        _replace_module(traced, node.target, fused)
        for done in ([consumer] if bn is not None else []) + ([relu_node] if relu else []):
            done.replace_all_uses_with(node)
            graph.erase_node(done)
        modules = dict(traced.named_modules())
    from .modules import replace_conv2d
    replace_conv2d(traced, transform=transform, max_error=max_error)
    graph.lint()
    traced.delete_all_unused_submodules()  # the folded BatchNorms and the absorbed ReLUs
    traced.recompile()
    return traced.eval()


def _replace_module(root, target, module):
    parent_name, _, name = target.rpartition(".")
    setattr(root.get_submodule(parent_name) if parent_name else root, name, module)
