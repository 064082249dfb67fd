"""nova_torch.conv2d: a stride-1 r x r convolution through libnova_runtime, with PyTorch's own
convolution for everything the runtime does not serve.

The public function decides from tensor metadata alone (so that torch.compile traces it) whether
NOVA can serve the call; if so it calls the custom op `nova::conv2d` (registered with the
dispatcher on PyTorch 2.x: a fake implementation and an autograd formula; an autograd.Function on
older PyTorch), else torch.nn.functional.conv2d, and the reason is logged and counted.
"""
import collections
import concurrent.futures
import ctypes
import logging
import re
import weakref

import torch
import torch.nn.functional as F

from . import _runtime

log = logging.getLogger("nova_torch")

# Fallback reasons seen by eager calls, with their counts (fallback_counts()).
_fallbacks = collections.Counter()


if hasattr(torch, "compiler") and hasattr(torch.compiler, "is_compiling"):  # PyTorch >= 2.3
    _is_compiling = torch.compiler.is_compiling
else:
    def _is_compiling():
        dynamo = getattr(torch, "_dynamo", None)
        return bool(dynamo is not None and dynamo.is_compiling())


def _note_fallback(reason):
    if _is_compiling():  # counted when the compiled graph's fallback runs is not possible: skip
        return
    if reason not in _fallbacks:
        log.debug("nova_torch: falling back to torch.nn.functional.conv2d: %s", reason)
    _fallbacks[reason] += 1


_enabled = True


def set_enabled(enabled):
    """Turns NOVA on or off for every later call (off: all run torch.nn.functional.conv2d, counted as
    the reason "disabled"), for A/B comparisons in one process. Returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, bool(enabled)
    return previous


def fallback_counts():
    """A Counter of the reasons eager calls fell back to torch.nn.functional.conv2d."""
    return collections.Counter(_fallbacks)


def _pair(value, what):
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) == 1:
        return (value[0], value[0])
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"nova_torch.conv2d: {what} must be an int or a pair of ints, got {value!r}")
    return value


# The torch dtypes NOVA serves and their nova_dtype_t.
_DTYPES = {torch.float32: _runtime.DTYPE_FP32, torch.float16: _runtime.DTYPE_FP16,
           torch.bfloat16: _runtime.DTYPE_BF16}


def transform_kernel_size(transform):
    """r of a transform name f<m>x<r>_<pointset>; None for 'auto' and 'tuned'. ValueError for
    anything else."""
    if transform in ("auto", "tuned"):
        return None
    match = re.fullmatch(r"f(\d+)x(\d+)_[a-z0-9_]+", transform) if isinstance(transform, str) else None
    if not match:
        raise ValueError(f"nova_torch: {transform!r} is not a transform name (f<m>x<r>_<points>, e.g. "
                         f"{sorted(_runtime.TRANSFORM_NAMES)[0]}), 'auto' or 'tuned'")
    return int(match.group(2))


def _is_nhwc(x):
    """Channels-last strides that are not also plain contiguous ones (C = 1 or H = W = 1 are both)."""
    return x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()


def layer_reason(weight_shape, dtype, stride, padding, dilation, groups):
    """Why NOVA cannot serve a convolution of this filter shape, dtype and arguments whatever the
    input (None when it can), and the symmetric padding it would use."""
    r = weight_shape[-1]
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"nova_torch.conv2d: padding must be an int, a pair, 'same' or 'valid', got {padding!r}")
        pads = (0, 0) if padding == "valid" else ((r - 1) // 2,) * 2
        if padding == "same" and r % 2 == 0:
            return "padding='same' with an even kernel pads asymmetrically", 0
    else:
        pads = _pair(padding, "padding")
    if _pair(stride, "stride") != (1, 1):
        return f"stride {tuple(_pair(stride, 'stride'))}: NOVA serves stride 1", 0
    if _pair(dilation, "dilation") != (1, 1):
        return f"dilation {tuple(_pair(dilation, 'dilation'))}: NOVA serves dilation 1", 0
    if groups != 1:
        return f"groups={groups}: NOVA serves groups=1", 0
    if weight_shape[-2] != r:
        return f"kernel {weight_shape[-2]}x{r}: NOVA serves square kernels", 0
    if r not in _runtime.KERNEL_SIZES:
        return f"kernel {r}x{r}: no generated transform (sizes {sorted(_runtime.KERNEL_SIZES)})", 0
    if pads[0] != pads[1]:
        return f"padding {pads}: NOVA serves equal padding on both axes", 0
    if not 0 <= pads[0] <= 2:
        return f"padding {pads[0]}: NOVA serves 0..2", 0
    if dtype not in _DTYPES:
        return f"dtype {dtype}: NOVA serves float16, bfloat16 and float32", 0
    return None, pads[0]


def _check(x, weight, bias, stride, padding, dilation, groups):
    """Raises ValueError for inputs no convolution accepts; returns (reason, pad): why NOVA does not
    serve the call (None when it does) and the symmetric padding it would use."""
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise ValueError("nova_torch.conv2d: input and weight must be tensors")
    if x.dim() not in (3, 4):
        raise ValueError(f"nova_torch.conv2d: input must be 4-D (N, C, H, W) or 3-D (C, H, W), got shape "
                         f"{tuple(x.shape)}")
    if weight.dim() != 4:
        raise ValueError(f"nova_torch.conv2d: weight must be 4-D (K, C/groups, r, r), got shape {tuple(weight.shape)}")
    if weight.device != x.device or (bias is not None and bias.device != x.device):
        where = f"input on {x.device}, weight on {weight.device}" + (
            f", bias on {bias.device}" if bias is not None else "")
        raise ValueError(f"nova_torch.conv2d: tensors on different devices ({where}); move them to one device")
    if weight.dtype != x.dtype or (bias is not None and bias.dtype != x.dtype):
        kinds = f"input {x.dtype}, weight {weight.dtype}" + (f", bias {bias.dtype}" if bias is not None else "")
        raise ValueError(f"nova_torch.conv2d: mixed dtypes ({kinds}); convert them to one dtype or use autocast")
    channels = x.shape[-3]
    if not isinstance(groups, int) or groups < 1 or channels % groups or weight.shape[1] * groups != channels:
        raise ValueError(f"nova_torch.conv2d: weight {tuple(weight.shape)} with groups={groups} does not fit "
                         f"input with {channels} channels")
    if bias is not None and tuple(bias.shape) != (weight.shape[0],):
        raise ValueError(f"nova_torch.conv2d: bias must have shape ({weight.shape[0]},), got {tuple(bias.shape)}")

    reason, pad = layer_reason(weight.shape, x.dtype, stride, padding, dilation, groups)
    if reason is not None:
        return reason, 0
    r = weight.shape[-1]
    if x.device.type not in ("cpu", "cuda"):
        return f"device {x.device.type}: NOVA serves cpu and cuda tensors", 0
    if x.numel() == 0 or weight.numel() == 0:
        return "an empty tensor", 0
    if x.shape[-2] + 2 * pad < r or x.shape[-1] + 2 * pad < r:
        return f"image {tuple(x.shape[-2:])} with padding {pad} is smaller than the {r}x{r} filter", 0
    return None, pad


def _autocast(x, weight, bias):
    """Under CUDA autocast, the dtype F.conv2d would run in (PyTorch's autocast does not know the op)."""
    if not x.is_cuda:
        return x, weight, bias
    if hasattr(torch, "get_autocast_dtype"):  # PyTorch >= 2.4
        if not torch.is_autocast_enabled("cuda"):
            return x, weight, bias
        dtype = torch.get_autocast_dtype("cuda")
    else:
        if not torch.is_autocast_enabled():
            return x, weight, bias
        dtype = torch.get_autocast_gpu_dtype()
    cast = (lambda t: t if t is None or t.dtype == dtype or not t.is_floating_point() else t.to(dtype))
    return cast(x), cast(weight), cast(bias)


class _PerTensor:
    """Values derived from a tensor (its transformed filter, its fp32 copy), kept while the tensor
    lives and its data stay the same: the same storage address, dtype, device, shape, strides and
    PyTorch version counter (bumped by every in-place change: optimiser steps, load_state_dict).
    Held beside the tensor (by id, dropped with it), not on it, so that pickling a model never
    carries them."""

    def __init__(self):
        self._slots = {}

    def get(self, t, key, make):
        try:
            version = t._version
        except RuntimeError:  # inference tensors carry no version counter: nothing can be kept
            return make()
        state = (t.data_ptr(), t.dtype, t.device, version, tuple(t.shape), tuple(t.stride()))
        ident = id(t)
        slot = self._slots.get(ident)
        if slot is None or slot[0]() is not t:
            slots = self._slots
            slot = [weakref.ref(t, lambda _ref, i=ident: slots.pop(i, None)), state, {}]
            self._slots[ident] = slot
        elif slot[1] != state:
            slot[1], slot[2] = state, {}
        value = slot[2].get(key)
        if value is None:
            value = slot[2][key] = make()
        return value

    def clear(self):
        self._slots.clear()

    def bytes(self):
        return sum(v.numel() * v.element_size() for slot in list(self._slots.values()) for v in slot[2].values())


_derived = _PerTensor()


def filter_cache_bytes():
    """Bytes held by transformed filters and fp32 copies of 16-bit biases (freed with their tensors)."""
    return _derived.bytes()


def clear_filter_cache():
    _derived.clear()


class _Plan:
    __slots__ = ("desc", "filter", "workspace_bytes")

    def __init__(self, handle, key):
        _device, n, c, h, w, k, r, pad, nhwc, dtype, transform, max_error, algorithm = key
        d = _runtime.ConvDesc()
        _runtime._lib.nova_conv_desc_init(ctypes.byref(d))
        d.n, d.c, d.h, d.w, d.k, d.kernel_size, d.pad = n, c, h, w, k, r, pad
        d.layout = _runtime.LAYOUT_NHWC if nhwc else _runtime.LAYOUT_NCHW
        d.dtype = _DTYPES[dtype]
        d.transform = transform.encode()
        d.max_error = max_error
        d.algorithm = algorithm
        self.desc = d
        self.filter = _runtime.FilterPlan()
        _runtime.check(_runtime._lib.nova_filter_plan(handle.ptr, ctypes.byref(d), ctypes.byref(self.filter)),
                       "nova_filter_plan")
        ws = ctypes.c_size_t()
        _runtime.check(_runtime._lib.nova_conv_workspace_size(handle.ptr, ctypes.byref(d), ctypes.byref(ws)),
                       "nova_conv_workspace_size")
        self.workspace_bytes = ws.value


_plans = {}


def _plan(handle, x, k, r, pad, nhwc, transform, max_error, algorithm):
    """The plan (descriptor, filter plan, workspace) of a call, made once per shape and options."""
    n, c, h, w = x.shape
    key = (x.device, n, c, h, w, k, r, pad, nhwc, x.dtype, transform, max_error, algorithm)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = _Plan(handle, key)
    return plan


def _effective_weight(weight, flip):
    """The filter the op applies: the weight, or for the data gradient its flipped transpose."""
    return weight.flip(2, 3).transpose(0, 1) if flip else weight


if hasattr(torch._C, "_cuda_getCurrentRawStream"):  # the stream pointer without a Stream object
    def _current_stream(device):
        return torch._C._cuda_getCurrentRawStream(device.index)
else:
    def _current_stream(device):
        return torch.cuda.current_stream(device).cuda_stream
_current_device = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)


def _call(handle, x, fn, *args):
    """Runs a runtime call on PyTorch's current stream of x's device (the GPU handle's stream is
    switched under its lock when it differs), with that device current."""
    if handle.lock is None:
        return fn(handle.ptr, *args)
    if _current_device() != x.device.index:
        with torch.cuda.device(x.device):
            return _call(handle, x, fn, *args)
    stream = _current_stream(x.device)
    with handle.lock:
        if handle.stream != stream:
            status = _runtime._lib.nova_set_stream(handle.ptr, stream)
            if status != _runtime.SUCCESS:
                return status
            handle.stream = stream
        return fn(handle.ptr, *args)


def _transformed_filter(handle, plan, x, weight, flip):
    w32 = _effective_weight(weight.detach(), flip).to(torch.float32).contiguous()
    u = torch.empty(plan.filter.bytes, dtype=torch.uint8, device=x.device)
    scratch = (torch.empty(plan.filter.scratch_bytes, dtype=torch.uint8, device=x.device)
               if plan.filter.scratch_bytes else None)
    status = _call(handle, x, _runtime._lib.nova_filter_transform_into, ctypes.byref(plan.desc), w32.data_ptr(),
                   ctypes.byref(plan.filter), u.data_ptr(), scratch.data_ptr() if scratch is not None else None)
    _runtime.check(status, "nova_filter_transform_into")
    return u


_filter_streams = {}
_filter_thread = None


def _kept(x, make):
    """make() for a value the cache keeps across calls. On the GPU it runs on a helper thread and
    a side stream ordered after PyTorch's current one and before its later work: a CUDA-graph pool
    that the calling thread allocates into (torch.compile's reduce-overhead warm-up, which refuses
    memory that outlives its runs) never holds it. Capture itself should find the cache warm: run the
    model once before capturing, as PyTorch advises for any capture."""
    global _filter_thread
    if x.device.type != "cuda":
        return make()
    current = torch.cuda.current_stream(x.device)
    side = _filter_streams.get(x.device.index)
    if side is None:
        side = _filter_streams[x.device.index] = torch.cuda.Stream(x.device)
    if _filter_thread is None:
        _filter_thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="nova_torch_filters")

    def on_side_stream():
        with torch.cuda.device(x.device), torch.cuda.stream(side):
            return make()

    side.wait_stream(current)
    value = _filter_thread.submit(on_side_stream).result()
    current.wait_stream(side)
    value.record_stream(current)
    return value


def _fp32_bias(x, bias):
    if bias is None:
        return None
    if bias.dtype == torch.float32 and bias.is_contiguous():
        return bias
    return _derived.get(bias, "fp32", lambda: _kept(x, lambda: bias.detach().to(torch.float32).contiguous()))


def _output(x, k, r, pad, nhwc):
    n, _, h, w = x.shape
    fmt = torch.channels_last if nhwc else torch.contiguous_format
    return torch.empty((n, k, h + 2 * pad - r + 1, w + 2 * pad - r + 1), dtype=x.dtype, device=x.device,
                       memory_format=fmt)


# Statuses after which the call is served by PyTorch instead; any other is an error.
_FALLBACK_STATUSES = frozenset({_runtime.INVALID_ARGUMENT, _runtime.NOT_SUPPORTED, _runtime.UNKNOWN_TRANSFORM,
                                _runtime.SIZE_OVERFLOW, _runtime.NO_GPU, _runtime.INACCURATE})


def _conv2d_impl(x, weight, bias, padding, transform, max_error, relu, flip):
    """The op on real tensors: NOVA, or F.conv2d where the runtime refuses the call."""
    r = weight.shape[-1]
    k = weight.shape[1] if flip else weight.shape[0]
    nhwc = _is_nhwc(x)
    if not nhwc and not x.is_contiguous():
        x = x.contiguous()
    y = _output(x, k, r, padding, nhwc)
    try:
        handle = _runtime.handle_for(x.device)
        # The fused kernel's 16-byte NHWC loads and stores; such views at odd offsets take the 3-pass path.
        aligned = not nhwc or (x.data_ptr() % 16 == 0 and y.data_ptr() % 16 == 0)
        plan = _plan(handle, x, k, r, padding, nhwc, transform, max_error,
                     _runtime.ALGO_AUTO if aligned else _runtime.ALGO_THREE_PASS)
        u = _derived.get(weight, (plan.filter.layout, plan.filter.bytes, flip),
                         lambda: _kept(x, lambda: _transformed_filter(handle, plan, x, weight, flip)))
        b32 = _fp32_bias(x, bias)
        ws = (torch.empty(plan.workspace_bytes, dtype=torch.uint8, device=x.device)
              if plan.workspace_bytes else None)
        status = _call(handle, x, _runtime._lib.nova_conv_forward_with_filter, ctypes.byref(plan.desc), x.data_ptr(),
                       ctypes.byref(plan.filter), u.data_ptr(), b32.data_ptr() if b32 is not None else None,
                       int(relu), y.data_ptr(), ws.data_ptr() if ws is not None else None, plan.workspace_bytes)
        _runtime.check(status, "nova_conv_forward_with_filter")
        return y
    except _runtime.NovaError as e:
        named = transform not in ("auto", "tuned")
        if named and (e.status == _runtime.UNKNOWN_TRANSFORM or transform_kernel_size(transform) != r):
            names = ", ".join(sorted(_runtime.TRANSFORM_NAMES))
            raise ValueError(f"nova_torch: unknown transform {transform!r} for a {r}x{r} filter "
                             f"(built: {names}; or 'auto', 'tuned')") from e
        if e.status not in _FALLBACK_STATUSES:
            raise
        _note_fallback(str(e))
    out = F.conv2d(x, _effective_weight(weight, flip), bias, padding=padding)
    return torch.relu_(out) if relu else out


def _gradients(x, weight, y, has_bias, padding, transform, max_error, relu, flip, needs, grad):
    """Gradients of y = relu?(conv(x, w_eff) + b): the data gradient is the stride-1 convolution of
    grad with w_eff's flipped transpose at padding r - 1 - pad (through NOVA where that padding is
    served); the weight gradient through PyTorch."""
    if relu:
        grad = grad * (y > 0).to(grad.dtype)
    r = weight.shape[-1]
    w_eff = _effective_weight(weight, flip)
    gx = gw = gb = None
    if needs[0]:
        back_pad = r - 1 - padding
        if 0 <= back_pad <= 2:
            gx = _op(grad, weight, None, back_pad, transform, max_error, False, not flip)
        else:
            gx = torch.nn.grad.conv2d_input(x.shape, w_eff, grad, padding=padding)
    if needs[1]:
        gw = torch.nn.grad.conv2d_weight(x, w_eff.shape, grad, padding=padding)
        if flip:
            gw = gw.flip(2, 3).transpose(0, 1)
    if needs[2] and has_bias:
        gb = grad.sum((0, 2, 3))
    return gx, gw, gb


if hasattr(torch.library, "custom_op"):  # PyTorch >= 2.4: the dispatcher's custom op
    from typing import Optional

    @torch.library.custom_op("nova::conv2d", mutates_args=())
    def _op(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], padding: int, transform: str,
            max_error: float, relu: bool, flip: bool) -> torch.Tensor:
        return _conv2d_impl(x, weight, bias, padding, transform, max_error, relu, flip)

    @_op.register_fake
    def _(x, weight, bias, padding, transform, max_error, relu, flip):
        return _output(x, weight.shape[1] if flip else weight.shape[0], weight.shape[-1], padding, _is_nhwc(x))

    def _setup_context(ctx, inputs, output):
        x, weight, bias, padding, transform, max_error, relu, flip = inputs
        ctx.save_for_backward(x, weight, output if relu else None)
        ctx.args = (bias is not None, padding, transform, max_error, relu, flip)

    def _backward(ctx, grad):
        x, weight, y = ctx.saved_tensors
        return _gradients(x, weight, y, *ctx.args, ctx.needs_input_grad, grad) + (None,) * 5

    _op.register_autograd(_backward, setup_context=_setup_context)
else:  # older PyTorch (Debian's 1.13): the same op as an autograd.Function
    class _Conv2dFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, weight, bias, padding, transform, max_error, relu, flip):
            y = _conv2d_impl(x, weight, bias, padding, transform, max_error, relu, flip)
            ctx.save_for_backward(x, weight, y if relu else None)
            ctx.args = (bias is not None, padding, transform, max_error, relu, flip)
            return y

        @staticmethod
        def backward(ctx, grad):
            x, weight, y = ctx.saved_tensors
            return _gradients(x, weight, y, *ctx.args, ctx.needs_input_grad, grad) + (None,) * 5

    _op = _Conv2dFunction.apply


_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


def _needs_dispatcher(x, weight, bias):
    """Whether the call must go through the registered op: while torch.compile traces, when autograd
    records, or for tensor subclasses (fake tensors, functorch wrappers). Otherwise (eager inference)
    the op's implementation is called directly: the same code without the dispatcher's host time."""
    if _is_compiling() or type(x) not in _PLAIN_TENSORS or type(weight) not in _PLAIN_TENSORS:
        return True
    if bias is not None and type(bias) not in _PLAIN_TENSORS:
        return True
    return torch.is_grad_enabled() and (x.requires_grad or weight.requires_grad or
                                        (bias is not None and bias.requires_grad))


def conv2d(input, weight, bias=None, padding=1, *, stride=1, dilation=1, groups=1, transform="auto", relu=False,
           max_error=None):
    """y = conv2d(input, weight) + bias, then ReLU if `relu`: torch.nn.functional.conv2d's result.

    NOVA serves stride 1, dilation 1, groups 1, square kernels with a generated transform, padding
    0..2 (int, equal pair, 'same' for odd kernels, 'valid'), float16, bfloat16 and float32, CPU and
    CUDA tensors; everything else runs torch.nn.functional.conv2d (explain() says why). channels_last
    input runs NHWC without a copy, and the output keeps the input's memory format. `transform`:
    'auto' (default), 'tuned', or a transform name (nova_torch.transforms()). `max_error`: the
    largest predicted relative error (predicted_error()) a transform may have, default the dtype's
    budget (float16 1e-2, bfloat16 3e-2, float32 1e-5); smaller trades speed for accuracy, and a
    layer no transform fits runs PyTorch's convolution.
    """
    input, weight, bias = _autocast(input, weight, bias)
    reason, pad = _check(input, weight, bias, stride, padding, dilation, groups)
    if reason is None and not _enabled:
        reason = "disabled (nova_torch.set_enabled(False))"
    if reason is not None:
        _note_fallback(reason)
        out = F.conv2d(input, weight, bias, stride, padding, dilation, groups)
        return F.relu(out) if relu else out
    run = _op if _needs_dispatcher(input, weight, bias) else _conv2d_impl
    budget = _error_budget(max_error)
    if input.dim() == 3:
        return run(input.unsqueeze(0), weight, bias, pad, transform, budget, bool(relu), False).squeeze(0)
    return run(input, weight, bias, pad, transform, budget, bool(relu), False)


def predicted_error(transform, dtype, channels):
    """The precision model's relative RMS error of one NOVA convolution (docs/design.md §6), as the
    library computes it (nova_conv_predicted_error) for a forward that keeps the Winograd-domain
    product M in fp32: the transformed input and filter stored at unit roundoff u give 0.7 u amp2D;
    in float32 every stage rounds at u and the sum over `channels` grows that part as sqrt(1 + C/3);
    the output's own rounding (u / sqrt(3)) adds in quadrature. Where the GPU's 3-pass pipeline
    stores M in 16 bits (the error budget allows it), the storage part is sqrt(3/2) larger:
    describe() gives the library's prediction of what runs."""
    r = next((t[2] for t in _runtime.TRANSFORMS if t[0] == transform), None)
    if r is None:
        raise ValueError(f"nova_torch: no transform named {transform!r}")
    if dtype not in _DTYPES:
        raise ValueError(f"nova_torch: no precision model for {dtype}: NOVA serves float16, bfloat16 and float32")
    d = _runtime.ConvDesc()
    _runtime._lib.nova_conv_desc_init(ctypes.byref(d))
    d.n, d.c, d.h, d.w, d.k, d.kernel_size = 1, channels, 2 * r, 2 * r, 1, r
    d.dtype = _DTYPES[dtype]
    d.transform = transform.encode()
    d.allow_inaccurate = 1  # the model of any transform, within the budget or not
    error = ctypes.c_double()
    _runtime.check(_runtime._lib.nova_conv_predicted_error(_runtime.handle_for(torch.device("cpu")).ptr,
                                                           ctypes.byref(d), ctypes.byref(error)),
                   "nova_conv_predicted_error")  # the CPU keeps M in fp32
    return error.value


def _error_budget(max_error):
    """The descriptor's max_error: 0 for the dtype's default; ValueError unless positive and finite."""
    if max_error is None:
        return 0.0
    if not isinstance(max_error, (int, float)) or not 0 < max_error < float("inf"):
        raise ValueError(f"nova_torch: max_error must be a positive finite number or None, got {max_error!r}")
    return float(max_error)


def describe(input, weight, bias=None, padding=1, *, stride=1, dilation=1, groups=1, transform="auto",
             max_error=None):
    """What conv2d() would run for these arguments, as a dict: "runs" ("nova" or "torch"), and
    either "reason" (why PyTorch runs it) or "transform" (the canonical name "auto"/"tuned"/an
    alias resolves to), "layout" and "predicted_error" (the library's prediction for what runs,
    nova_conv_predicted_error: predicted_error() of the transform, sqrt(3/2) x where the GPU stores M in 16
    bits)."""
    input, weight, bias = _autocast(input, weight, bias)
    reason, pad = _check(input, weight, bias, stride, padding, dilation, groups)
    if reason is not None:
        return {"runs": "torch", "reason": reason}
    x = input.unsqueeze(0) if input.dim() == 3 else input
    try:
        handle = _runtime.handle_for(x.device)
        plan = _plan(handle, x, weight.shape[0], weight.shape[-1], pad, _is_nhwc(x), transform,
                     _error_budget(max_error), _runtime.ALGO_AUTO)
        name = ctypes.c_char_p()
        _runtime.check(_runtime._lib.nova_conv_transform_name(handle.ptr, ctypes.byref(plan.desc), ctypes.byref(name)),
                       "nova_conv_transform_name")
        error = ctypes.c_double()
        _runtime.check(_runtime._lib.nova_conv_predicted_error(handle.ptr, ctypes.byref(plan.desc), ctypes.byref(error)),
                       "nova_conv_predicted_error")
    except _runtime.NovaError as e:
        return {"runs": "torch", "reason": str(e)}
    return {"runs": "nova", "transform": name.value.decode(), "layout": "NHWC" if _is_nhwc(x) else "NCHW",
            "predicted_error": error.value}


def explain(input, weight, bias=None, padding=1, *, stride=1, dilation=1, groups=1, transform="auto",
            max_error=None):
    """describe() in one line: the NOVA transform and layout conv2d() would run, or why it would fall
    back to torch.nn.functional.conv2d."""
    d = describe(input, weight, bias, padding, stride=stride, dilation=dilation, groups=groups, transform=transform,
                 max_error=max_error)
    if d["runs"] == "torch":
        return f"torch.nn.functional.conv2d: {d['reason']}"
    return (f"NOVA on {input.device}: transform {d['transform']}, {d['layout']}, {input.dtype}, "
            f"predicted relative error {d['predicted_error']:.1e}")


def transforms():
    """The transforms the library was built with, then those load_transform added: (name, m, r, points, amp2d) each."""
    return _runtime.TRANSFORMS
