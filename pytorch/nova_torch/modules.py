"""NovaConv2d, a drop-in for torch.nn.Conv2d, and replace_conv2d(), which swaps a model's layers."""
import torch
from torch import nn

from .functional import _error_budget, conv2d, describe, layer_reason, transform_kernel_size


class NovaConv2d(nn.Conv2d):
    """torch.nn.Conv2d with the same parameters, state_dict keys and results, run by nova_torch.conv2d
    (NOVA where it serves the layer, PyTorch's convolution elsewhere). `transform` picks the Winograd
    transform ('auto', 'tuned' or a name); `max_error` bounds its predicted relative error (see
    nova_torch.conv2d); `relu=True` applies ReLU in NOVA's epilogue (as fuse_conv_bn_relu() sets it)."""

    def __init__(self, *args, transform="auto", relu=False, max_error=None, **kwargs):
        super().__init__(*args, **kwargs)
        transform_kernel_size(transform)
        _error_budget(max_error)
        self.transform = transform
        self.max_error = max_error
        self.relu = bool(relu)

    @classmethod
    def from_conv2d(cls, conv, *, transform="auto", relu=False, max_error=None):
        """A NovaConv2d that shares conv's parameters (an optimiser holding them keeps working)."""
        if not isinstance(conv, nn.Conv2d):
            raise TypeError(f"from_conv2d needs a torch.nn.Conv2d, got {type(conv).__name__}")
        new = cls(conv.in_channels, conv.out_channels, conv.kernel_size, stride=conv.stride, padding=conv.padding,
                  dilation=conv.dilation, groups=conv.groups, bias=conv.bias is not None,
                  padding_mode=conv.padding_mode, device="meta", transform=transform, relu=relu,
                  max_error=max_error)
        new.weight = conv.weight
        new.bias = conv.bias
        new.train(conv.training)
        return new

    def unsupported_reason(self, dtype=None):
        """Why NOVA cannot serve this layer whatever the input (None when it can); `dtype`: the
        input's, default the weight's."""
        if self.padding_mode != "zeros":
            return f"padding_mode={self.padding_mode!r}: NOVA pads with zeros"
        if self.weight.device.type not in ("cpu", "cuda", "meta"):
            return f"device {self.weight.device.type}: NOVA serves cpu and cuda tensors"
        reason, _ = layer_reason(self.weight.shape, dtype or self.weight.dtype, self.stride, self.padding,
                                 self.dilation, self.groups)
        r = transform_kernel_size(self.transform)
        if reason is None and r is not None and r != self.weight.shape[-1]:
            reason = (f"transform {self.transform}: for {r}x{r} filters, the layer's are "
                      f"{self.weight.shape[-2]}x{self.weight.shape[-1]}")
        return reason

    def forward(self, input):
        if self.padding_mode != "zeros":
            out = self._conv_forward(input, self.weight, self.bias)
            return torch.relu(out) if self.relu else out
        return conv2d(input, self.weight, self.bias, self.padding, stride=self.stride, dilation=self.dilation,
                      groups=self.groups, transform=self.transform, relu=self.relu, max_error=self.max_error)

    def extra_repr(self):
        extra = f", transform={self.transform!r}" + (", relu=True" if self.relu else "")
        extra += f", max_error={self.max_error}" if self.max_error is not None else ""
        return super().extra_repr() + extra


def describe_model(model, *inputs):
    """Runs model(*inputs) once (no gradients) and returns, for each NovaConv2d call in order,
    (module name, nova_torch.describe() of that call): which transform and layout each layer ran
    and its predicted error, or why PyTorch ran it."""
    calls = []
    names = {m: name for name, m in model.named_modules()}

    def note(layer, args):
        calls.append((names.get(layer, ""), describe(args[0], layer.weight, layer.bias, layer.padding,
                                                      stride=layer.stride, dilation=layer.dilation,
                                                      groups=layer.groups, transform=layer.transform,
                                                      max_error=layer.max_error)))

    hooks = [m.register_forward_pre_hook(note) for m in model.modules() if isinstance(m, NovaConv2d)]
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for h in hooks:
            h.remove()
    return calls


class SwapReport:
    """What replace_conv2d() did: `swapped` (module names), `left` ((name, reason) pairs)."""

    def __init__(self):
        self.swapped, self.left = [], []

    def __repr__(self):
        lines = [f"replace_conv2d: {len(self.swapped)} swapped, {len(self.left)} left"]
        lines += [f"  swapped {name}" for name in self.swapped]
        lines += [f"  left    {name}: {reason}" for name, reason in self.left]
        return "\n".join(lines)


def replace_conv2d(model, *, filter=None, transform="auto", max_error=None):
    """Swaps every torch.nn.Conv2d in `model` (nested ones included) that NOVA can serve for a
    NovaConv2d sharing its parameters, in place, with `transform` and `max_error` (see
    nova_torch.conv2d). `filter(name, conv)` may veto a layer. Layers already NovaConv2d are left as
    they are, so a second call swaps nothing. Returns a SwapReport."""
    transform_kernel_size(transform)
    _error_budget(max_error)
    report = SwapReport()
    if isinstance(model, nn.Conv2d):
        report.left.append(("", "the model itself is a Conv2d: use NovaConv2d.from_conv2d(model)"))
        return report
    for parent_name, parent in list(model.named_modules()):
        for child_name, child in list(parent.named_children()):
            name = f"{parent_name}.{child_name}" if parent_name else child_name
            if isinstance(child, NovaConv2d):
                report.left.append((name, "already a NovaConv2d"))
                continue
            if not isinstance(child, nn.Conv2d):
                continue
            if type(child) is not nn.Conv2d:
                report.left.append((name, f"{type(child).__name__} subclasses Conv2d: its forward may differ"))
                continue
            if filter is not None and not filter(name, child):
                report.left.append((name, "excluded by filter"))
                continue
            candidate = NovaConv2d.from_conv2d(child, transform=transform, max_error=max_error)
            reason = candidate.unsupported_reason()
            if reason is not None:
                report.left.append((name, reason))
                continue
            setattr(parent, child_name, candidate)
            report.swapped.append(name)
    return report
