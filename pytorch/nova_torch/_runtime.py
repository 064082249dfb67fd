"""The C API of libnova_runtime (nova/runtime.h) through ctypes, and one handle per device.

ctypes rather than a compiled extension: the same package then runs on any PyTorch (Debian's 1.13
on the CPU, 2.x with CUDA) without being built against its headers. Calls release the GIL.
"""
import ctypes
import ctypes.util
import os
import threading

from . import _library

c_int, c_int64, c_size_t, c_uint64, c_void_p, c_char_p = (
    ctypes.c_int, ctypes.c_int64, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_char_p)

# nova_status_t, nova_backend_t, nova_layout_t, nova_dtype_t, nova_algo_t
SUCCESS, INVALID_ARGUMENT, NOT_SUPPORTED, UNKNOWN_TRANSFORM, SIZE_OVERFLOW = 0, 1, 2, 3, 4
WORKSPACE_TOO_SMALL, ALLOCATION_FAILED, NO_GPU, BACKEND_ERROR, MISALIGNED = 5, 6, 7, 8, 9
INACCURATE, FILTER_MISMATCH, FILE_ERROR, INVALID_CONFIG, TRANSFORM_EXISTS, COMPILE_FAILED = 10, 11, 12, 13, 14, 15
BACKEND_CPU, BACKEND_GPU = 0, 1
LAYOUT_NCHW, LAYOUT_NHWC = 0, 1
DTYPE_FP32, DTYPE_FP16, DTYPE_BF16 = 0, 1, 2
ALGO_AUTO, ALGO_THREE_PASS, ALGO_FUSED = 0, 1, 2


class ConvDesc(ctypes.Structure):
    _fields_ = [("n", c_int64), ("c", c_int64), ("h", c_int64), ("w", c_int64), ("k", c_int64),
                ("kernel_size", c_int), ("pad", c_int), ("stride", c_int), ("dilation", c_int),
                ("groups", c_int), ("layout", c_int), ("dtype", c_int), ("transform", c_char_p),
                ("algorithm", c_int), ("allow_inaccurate", c_int), ("max_error", ctypes.c_double)]


class FilterPlan(ctypes.Structure):
    _fields_ = [("bytes", c_size_t), ("scratch_bytes", c_size_t), ("layout", c_uint64)]


class TransformInfo(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("m", c_int), ("r", c_int), ("points", c_char_p), ("amp2d", ctypes.c_double)]


class NovaError(RuntimeError):
    """A status other than success from libnova_runtime; `status` is the nova_status_t value."""

    def __init__(self, status, what):
        self.status = status
        super().__init__(f"{what}: {_lib.nova_status_string(status).decode()}")


def _open(variable, built, name, hint):
    """The library named by $variable, else the one this package was built with, else the system's."""
    path = os.environ.get(variable) or built
    if not path or not os.path.exists(path):
        path = ctypes.util.find_library(name)
    if not path:
        raise ImportError(f"lib{name} not found: {hint}, or set {variable} to the library's path")
    return ctypes.CDLL(path), path


def _load():
    lib, path = _open("NOVA_RUNTIME_LIBRARY", _library.LIBRARY_PATH, "nova_runtime",
                      "build the project (cmake --build) or install it")
    handle_p = c_void_p
    desc_p = ctypes.POINTER(ConvDesc)
    plan_p = ctypes.POINTER(FilterPlan)
    signatures = {
        "nova_status_string": (c_char_p, [c_int]),
        "nova_transform_count": (c_int, []),
        "nova_transform_info": (c_int, [c_int, ctypes.POINTER(TransformInfo)]),
        "nova_conv_desc_init": (None, [desc_p]),
        "nova_create": (c_int, [ctypes.POINTER(handle_p), c_int, c_void_p]),
        "nova_destroy": (c_int, [handle_p]),
        "nova_set_stream": (c_int, [handle_p, c_void_p]),
        "nova_conv_transform_name": (c_int, [handle_p, desc_p, ctypes.POINTER(c_char_p)]),
        "nova_conv_workspace_size": (c_int, [handle_p, desc_p, ctypes.POINTER(c_size_t)]),
        "nova_conv_predicted_error": (c_int, [handle_p, desc_p, ctypes.POINTER(ctypes.c_double)]),
        "nova_filter_plan": (c_int, [handle_p, desc_p, plan_p]),
        "nova_filter_transform_into": (c_int, [handle_p, desc_p, c_void_p, plan_p, c_void_p, c_void_p]),
        "nova_conv_forward_with_filter": (c_int, [handle_p, desc_p, c_void_p, plan_p, c_void_p, c_void_p, c_int,
                                                  c_void_p, c_void_p, c_size_t]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib, path


_lib, LIBRARY_PATH = _load()


def check(status, what):
    if status != SUCCESS:
        raise NovaError(status, what)


def _transforms():
    out = []
    for i in range(_lib.nova_transform_count()):
        info = TransformInfo()
        check(_lib.nova_transform_info(i, ctypes.byref(info)), "nova_transform_info")
        out.append((info.name.decode(), info.m, info.r, info.points.decode(), info.amp2d))
    return tuple(out)


def _refresh():
    """Re-reads the transforms the library knows (after load_transform added one)."""
    global TRANSFORMS, KERNEL_SIZES, TRANSFORM_NAMES
    TRANSFORMS = _transforms()
    KERNEL_SIZES = frozenset(t[2] for t in TRANSFORMS)
    TRANSFORM_NAMES = frozenset(t[0] for t in TRANSFORMS)


# (name, m, r, points, amp2d) of every transform the library was built with or has loaded.
TRANSFORMS = KERNEL_SIZES = TRANSFORM_NAMES = None
_refresh()

_jit = None
_jit_lock = threading.Lock()


def _load_jit():
    """libnova_jit, beside the runtime it was built with: $NOVA_JIT_LIBRARY, the build's, or the system's."""
    global _jit
    with _jit_lock:
        if _jit is None:
            lib, _ = _open("NOVA_JIT_LIBRARY", getattr(_library, "JIT_LIBRARY_PATH", ""), "nova_jit",
                           "it is built with the tools (NOVA_BUILD_TOOLS=ON): build or install it")
            lib.nova_transform_load.restype, lib.nova_transform_load.argtypes = c_int, [c_char_p,
                                                                                       ctypes.POINTER(TransformInfo)]
            lib.nova_jit_last_error.restype, lib.nova_jit_last_error.argtypes = c_char_p, []
            _jit = lib
    return _jit


def load_transform(path):
    """Loads a nova.transform/1 JSON into the library (nova_transform_load): verified exactly, generated,
    registered under its name for every later call; returns (name, m, r, points, amp2d)."""
    jit = _load_jit()
    info = TransformInfo()
    status = jit.nova_transform_load(os.fsencode(path), ctypes.byref(info))
    if status != SUCCESS:
        raise NovaError(status, f"nova_transform_load({path}): {jit.nova_jit_last_error().decode()}")
    _refresh()
    return (info.name.decode(), info.m, info.r, info.points.decode(), info.amp2d)


class Handle:
    """A nova_handle_t for one device. The GPU handle's stream is set before each call under `lock`
    (nova_set_stream must not overlap another call); the CPU handle needs no lock."""

    def __init__(self, backend, device_index):
        self.backend = backend
        self.device_index = device_index
        self.lock = threading.Lock() if backend == BACKEND_GPU else None
        self.stream = None  # the stream last set (nova_create's: the default stream)
        self.ptr = c_void_p()
        check(_lib.nova_create(ctypes.byref(self.ptr), backend, None), "nova_create")

    def __del__(self):
        if getattr(self, "ptr", None) and _lib is not None:
            _lib.nova_destroy(self.ptr)


_handles = {}
_handles_lock = threading.Lock()


def handle_for(device):
    """The handle of a torch.device, created on first use (the GPU one with its device current).
    A device the library cannot serve raises its NovaError again on every call, without retrying."""
    key = (device.type, device.index)
    h = _handles.get(key)
    if h is None:
        with _handles_lock:
            h = _handles.get(key)
            if h is None:
                try:
                    if device.type == "cpu":
                        h = Handle(BACKEND_CPU, None)
                    else:
                        import torch
                        with torch.cuda.device(device):
                            h = Handle(BACKEND_GPU, device.index)
                except NovaError as e:
                    h = e
                _handles[key] = h
    if isinstance(h, NovaError):
        raise h
    return h
