/* NOVA runtime: 3x3 (r x r) stride-1 Winograd convolution through the generated transforms.
 * C API. Every call returns a status; nova_status_string() explains it. No call aborts, and none
 * writes an output whose predicted error (docs/design.md §6) exceeds its dtype's budget unless the
 * descriptor asks for that transform by name and sets allow_inaccurate.
 *
 * Threads: a handle may be shared between threads, as a cuBLAS handle may. Any calls may run at
 * once on one handle or on several; each caller passes its own x, y and workspace. Calls that pass
 * no workspace use the handle's own and take turns for it; with their own workspaces they run
 * concurrently (on the GPU, in the order they reach the handle's stream). Only nova_destroy() and
 * nova_set_stream() must not overlap another call on the same handle. */
#ifndef NOVA_RUNTIME_H
#define NOVA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* The library is built with hidden visibility; only the C API is exported. */
#if defined(__GNUC__)
#define NOVA_API __attribute__((visibility("default")))
#else
#define NOVA_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  NOVA_STATUS_SUCCESS = 0,
  NOVA_STATUS_INVALID_ARGUMENT,    /* null pointer, zero or negative size, bad enum, padding out of 0..2,
                                    * negative or non-finite max_error */
  NOVA_STATUS_NOT_SUPPORTED,       /* stride, dilation, groups or kernel size Winograd cannot serve */
  NOVA_STATUS_UNKNOWN_TRANSFORM,   /* no generated or loaded transform with that name, or none fits "auto" */
  NOVA_STATUS_SIZE_OVERFLOW,       /* a tensor or workspace size does not fit the index types */
  NOVA_STATUS_WORKSPACE_TOO_SMALL, /* caller's workspace is smaller than nova_conv_workspace_size() */
  NOVA_STATUS_ALLOCATION_FAILED,   /* host or device memory could not be allocated */
  NOVA_STATUS_NO_GPU,              /* GPU backend requested but not built in, or no device present */
  NOVA_STATUS_BACKEND_ERROR,       /* CUDA/HIP/cuBLAS reported an error */
  NOVA_STATUS_MISALIGNED,          /* the GPU's fused kernel needs NHWC x and y at 16-byte boundaries */
  NOVA_STATUS_INACCURATE,          /* a named transform predicted beyond the dtype's error budget */
  NOVA_STATUS_FILTER_MISMATCH,     /* a caller's filter was transformed for another plan than the descriptor's */
  NOVA_STATUS_FILE_ERROR,          /* nova_transform_load: the file is missing or cannot be read */
  NOVA_STATUS_INVALID_CONFIG,      /* nova_transform_load: malformed JSON, or a config that fails exact verification */
  NOVA_STATUS_TRANSFORM_EXISTS,    /* nova_transform_load: another transform already has that name */
  NOVA_STATUS_COMPILE_FAILED,      /* a loaded transform's GPU kernels could not be compiled or loaded */
  NOVA_STATUS_RANGE_END = 0x7fffffff /* not a status: every int up to it is a value of the type, so that a status
                                      * this library does not know (a newer one's) reaches nova_status_string */
} nova_status_t;

typedef enum { NOVA_BACKEND_CPU = 0, NOVA_BACKEND_GPU = 1 } nova_backend_t;
typedef enum { NOVA_LAYOUT_NCHW = 0, NOVA_LAYOUT_NHWC = 1 } nova_layout_t;
/* fp16 tensors are IEEE binary16 bit patterns (uint16_t on the host, __half on the device); bf16
 * tensors are bfloat16 bit patterns, the upper 16 bits of an fp32 (uint16_t on the host,
 * __nv_bfloat16 on NVIDIA devices, hip_bfloat16 on AMD ones). */
typedef enum { NOVA_DTYPE_FP32 = 0, NOVA_DTYPE_FP16 = 1, NOVA_DTYPE_BF16 = 2 } nova_dtype_t;
/* How the GPU runs the convolution. THREE_PASS: input transform, batched GEMM, output transform.
 * FUSED: one kernel (fp16 or bf16, tiles up to 6 x 6, any C and K) that reads x and writes y in their own
 * layout, with no workspace; where V of every channel does not fit its shared memory (C beyond
 * ~130 for F(4,3) on an H100/H200), and for odd C or K, it takes the channels in chunks (slower).
 * NOT_SUPPORTED where it cannot run (fp32), and always on the CPU. AUTO: on the GPU in fp16 and
 * bf16, the path and transform a cost model calibrated on an H200 predicts fastest (within the
 * error budget; docs/runtime.md, "AUTO from a cost model"); fp32 runs THREE_PASS; the CPU always
 * runs its own path. */
typedef enum { NOVA_ALGO_AUTO = 0, NOVA_ALGO_THREE_PASS = 1, NOVA_ALGO_FUSED = 2 } nova_algo_t;

typedef struct nova_handle* nova_handle_t;

/* A convolution y = conv(x, w) (+ bias) (ReLU), x: N x C x H x W, w: K x C x r x r (fp32, always),
 * y: N x K x (H + 2 pad - r + 1) x (W + 2 pad - r + 1), layouts as given. Initialise with
 * nova_conv_desc_init() and set the fields you need. */
typedef struct {
  int64_t n, c, h, w, k;
  int kernel_size;        /* r; default 3 */
  int pad;                /* symmetric zero padding, 0..2; default 1 */
  int stride, dilation, groups; /* must be 1 (default) */
  nova_layout_t layout;   /* default NCHW */
  nova_dtype_t dtype;     /* x and y; default FP32 */
  const char* transform;  /* transform name, generated or loaded (nova_transform_load, nova/jit.h)
                           * (e.g. "f6x3_nova", or an alias such as
                           * "f6x3_fp16_dyadic", which names the same transform as "f6x3_fp16" and
                           * runs its kernels), "auto"/NULL (default), or
                           * "tuned": the first time the handle meets a shape (any call with the
                           * descriptor) it times, on scratch memory, the transform "auto" ranks best
                           * for each of the 3 best-ranked tile sizes and, with algorithm AUTO, the
                           * best fused one too, and keeps the fastest transform and path. "auto" is
                           * the same on every machine and run; "tuned" can differ where candidates
                           * are within timing noise. */
  nova_algo_t algorithm;  /* default AUTO; with FUSED, "auto" picks among the transforms it can fuse */
  int allow_inaccurate;   /* 0 (default): a transform named in `transform` whose predicted error
                           * 0.7 u amp2D exceeds the error budget (max_error) is refused with
                           * NOVA_STATUS_INACCURATE; 1: run it anyway */
  double max_error;       /* the error budget: the largest predicted relative error 0.7 u amp2D a
                           * transform may have, for "auto" and "tuned" to pick it and for a named one
                           * to run. 0 (default): the dtype's (fp16 1e-2, bf16 3e-2, fp32 1e-5).
                           * Smaller trades speed for accuracy (fp16 3e-3 leaves the F(4,3) transforms
                           * of amp2D < 8.8 and F(2,3)); none fitting it: NOVA_STATUS_UNKNOWN_TRANSFORM.
                           * The GPU's 3-pass pipeline stores the Winograd-domain product M in the
                           * 16-bit storage type (half its bytes) where sqrt(3/2) x 0.7 u amp2D still
                           * fits, else in fp32: a budget below that keeps M in fp32. */
} nova_conv_desc_t;

NOVA_API const char* nova_status_string(nova_status_t status);

/* The generated transforms this library was built with (one per config in configs/). */
typedef struct {
  const char* name;   /* f<m>x<r>_<pointset>, e.g. "f6x3_nova" */
  int m, r;           /* output tile and filter size */
  const char* points; /* "0,3/5,-3/5,1,-1,7/6,-7/6,inf" */
  double amp2d;       /* precision model: predicted relative error 0.7 * u * amp2d */
} nova_transform_info_t;

/* The transforms the library was built with, then those loaded at run time (nova/jit.h) in load
 * order: an index keeps naming the same transform, and the count only grows. */
NOVA_API int nova_transform_count(void);
NOVA_API nova_status_t nova_transform_info(int index, nova_transform_info_t* info);

NOVA_API void nova_conv_desc_init(nova_conv_desc_t* desc);

/* stream: a cudaStream_t / hipStream_t for the GPU backend (NULL = default stream); ignored on CPU.
 * The GPU backend serves the device that is current when the handle is created. */
NOVA_API nova_status_t nova_create(nova_handle_t* handle, nova_backend_t backend, void* stream);
NOVA_API nova_status_t nova_destroy(nova_handle_t handle);
/* The stream later calls on the handle run on (as cudnnSetStream): a framework passes its current
 * stream before each call. Like nova_destroy(), it must not overlap another call on the same handle;
 * the calls themselves never synchronise with the host except where documented (profile, and the
 * handle's filter cache when it transforms a filter). Ignored on the CPU backend. */
NOVA_API nova_status_t nova_set_stream(nova_handle_t handle, void* stream);

/* The transform that runs for this descriptor ("auto" or "tuned" resolved); the string lives as
 * long as the library. */
NOVA_API nova_status_t nova_conv_transform_name(nova_handle_t handle, const nova_conv_desc_t* desc, const char** name);

/* Bytes of workspace nova_conv_forward() needs: the transformed input and the Winograd-domain
 * product (3-pass), or 0 (fused). */
NOVA_API nova_status_t nova_conv_workspace_size(nova_handle_t handle, const nova_conv_desc_t* desc, size_t* bytes);

/* The precision model's predicted relative RMS error of the forward this descriptor runs
 * (docs/design.md §6): 0.7 u amp2D for V and U stored at unit roundoff u, times sqrt(3/2) where the
 * GPU's 3-pass pipeline stores M in the 16-bit storage type too, in fp32 grown by the sum over C as
 * sqrt(1 + C/3), with the output's own rounding u / sqrt(3) added in quadrature. */
NOVA_API nova_status_t nova_conv_predicted_error(nova_handle_t handle, const nova_conv_desc_t* desc, double* error);

/* Transforms and caches the filter. The cache is keyed by (weights pointer, version, transform):
 * bump `version` whenever the weights change, or call nova_filter_invalidate(). Weights freed and
 * reallocated at the same address are the same key: give them a new version or invalidate them.
 * forward() calls this itself on a cache miss. */
NOVA_API nova_status_t nova_filter_transform(nova_handle_t handle, const nova_conv_desc_t* desc, const float* weights,
                                    uint64_t version);
NOVA_API nova_status_t nova_filter_invalidate(nova_handle_t handle, const float* weights);
/* The filter cache holds at most `bytes` of transformed filters (default 1 GiB), least recently
 * used out first; a filter larger than the limit is used by its call and not kept. */
NOVA_API nova_status_t nova_filter_cache_limit(nova_handle_t handle, size_t bytes);
NOVA_API nova_status_t nova_filter_cache_bytes(nova_handle_t handle, size_t* bytes); /* held now */

/* Filters the caller holds (in a framework's allocator, or memory a CUDA graph owns) instead of the
 * handle's cache: nova_filter_plan() says how many bytes the transformed filter of a descriptor takes,
 * how much scratch its transform needs and what the bytes hold (`layout`: transform, GPU path and
 * element type; "auto" resolves on the whole shape, so two descriptors may need different filters).
 * nova_filter_transform_into() writes it on the handle's stream (no host synchronisation, nothing
 * allocated, nothing cached); nova_conv_forward_with_filter() runs a forward from it and refuses,
 * with NOVA_STATUS_FILTER_MISMATCH, a plan that differs from the descriptor's own. Filter and scratch
 * follow the same alignment rule as x and y. */
typedef struct {
  size_t bytes;          /* of the transformed filter */
  size_t scratch_bytes;  /* of scratch its transform needs; 0 when none */
  uint64_t layout;       /* identifies what the bytes hold; equal layouts and sizes are interchangeable */
} nova_filter_plan_t;

NOVA_API nova_status_t nova_filter_plan(nova_handle_t handle, const nova_conv_desc_t* desc, nova_filter_plan_t* plan);
NOVA_API nova_status_t nova_filter_transform_into(nova_handle_t handle, const nova_conv_desc_t* desc, const float* weights,
                                                  const nova_filter_plan_t* plan, void* filter, void* scratch);
NOVA_API nova_status_t nova_conv_forward_with_filter(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x,
                                                     const nova_filter_plan_t* plan, const void* filter,
                                                     const float* bias, int relu, void* y, void* workspace,
                                                     size_t workspace_bytes);

/* y = conv(x, w) + bias (bias: K floats, may be NULL), then ReLU if relu != 0. Pointers are host
 * memory on the CPU backend and device memory on the GPU backend. workspace may be NULL: the
 * handle then owns (and keeps) a workspace of the needed size. Where the GPU runs its fused kernel on
 * NHWC images, x and y must start at 16-byte boundaries (as cudaMalloc/hipMalloc memory does);
 * otherwise NOVA_STATUS_MISALIGNED, and NOVA_ALGO_THREE_PASS serves them. */
NOVA_API nova_status_t nova_conv_forward(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x,
                                const float* weights, uint64_t weights_version, const float* bias, int relu,
                                void* y, void* workspace, size_t workspace_bytes);

/* Per-stage cost of one forward pass, for planning fusion: times from device events (host clock on
 * the CPU backend) and the fewest bytes each stage must move through memory. A fused forward
 * reports its kernel as the GEMM stage (bytes: x, U and y); its input and output stages are empty
 * (0 ms, 0 bytes). */
typedef struct {
  double filter_ms, input_ms, gemm_ms, output_ms;         /* filter: the (normally cached) transform */
  double filter_bytes, input_bytes, gemm_bytes, output_bytes;
  double gemm_flops;                                       /* 2 * n^2 * K * C * P */
  int fused;        /* 0: the 3-pass pipeline ran; 1: a fused kernel (mma.sync, or MFMA on AMD); 2: the wgmma one */
  int fused_tiles;  /* the fused kernel's tile group: tiles one block multiplies together (0: 3-pass); the wgmma
                     * kernel's of the shape, where a grid whose groups of 8 all fit one wave runs 8 for 16 */
  int fused_input;  /* the wgmma kernel's input transform: 1 on the tensor cores (F(4,3) NHWC fp16, C = 64), else 0 */
} nova_stage_profile_t;

/* Runs nova_conv_forward() once stage by stage, synchronising between stages, and fills *profile.
 * The filter is transformed afresh (and cached). Slower than forward(): for measurement only. */
NOVA_API nova_status_t nova_conv_profile(nova_handle_t handle, const nova_conv_desc_t* desc, const void* x,
                                const float* weights, uint64_t weights_version, const float* bias, int relu,
                                void* y, void* workspace, size_t workspace_bytes, nova_stage_profile_t* profile);

/* FP64 direct convolution on the host (the reference every path is measured against). x, y as
 * desc->dtype/layout; accumulates in double. Works for any descriptor with stride 1 and any r. */
NOVA_API nova_status_t nova_conv_reference(const nova_conv_desc_t* desc, const void* x, const float* weights,
                                  const float* bias, int relu, void* y);

#ifdef __cplusplus
}
#endif

#endif /* NOVA_RUNTIME_H */
