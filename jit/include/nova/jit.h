/* NOVA JIT: transforms loaded at run time (libnova_jit). A transform found after the library was
 * built (nova-discover's JSON, nova.transform/1) is read, re-verified exactly, generated with
 * nova-codegen's emitters and registered with libnova_runtime; from then on descriptors (by name),
 * "auto" and "tuned" use it like a built-in one. The CPU backend runs it at once; the GPU backend
 * compiles its kernels with NVRTC for the device's architecture the first time it needs them,
 * through a disk cache ($NOVA_CACHE_DIR, else $XDG_CACHE_HOME/nova, else ~/.cache/nova).
 * Loading is process-wide and thread-safe; a transform stays loaded until the process ends. */
#ifndef NOVA_JIT_H
#define NOVA_JIT_H

#include "nova/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads json_path. NOVA_STATUS_FILE_ERROR (missing or unreadable), NOVA_STATUS_INVALID_CONFIG
 * (malformed JSON, a matrix or metric that fails exact verification, colliding points),
 * NOVA_STATUS_TRANSFORM_EXISTS (a built-in transform, or a loaded one with other content, has the
 * name); on any failure nothing is registered and nova_jit_last_error() says why. Loading the same
 * file again succeeds and adds nothing. info (nullable) receives the transform's, valid for the
 * process's life. */
NOVA_API nova_status_t nova_transform_load(const char* json_path, nova_transform_info_t* info);

/* What compiling a loaded transform's GPU kernels for one architecture took. */
typedef struct {
  double milliseconds; /* NVRTC's compile of every kernel group, or the cache reads */
  int from_cache;      /* 1 when every group came from the disk or memory cache */
  size_t image_bytes;  /* cubin bytes of every group */
} nova_compile_report_t;

/* Compiles (or finds in the cache) every GPU kernel of the loaded transform `name` for `arch`
 * ("sm_90a", "sm_80", ...), as the GPU backend would at first use, without needing a GPU: to fill
 * the cache ahead of time, or to check that a transform compiles. report is nullable.
 * NOVA_STATUS_UNKNOWN_TRANSFORM for a name nova_transform_load did not load (built-in transforms are
 * compiled into libnova_runtime), NOVA_STATUS_COMPILE_FAILED with the compiler's log in
 * nova_jit_last_error(). */
NOVA_API nova_status_t nova_transform_compile(const char* name, const char* arch, nova_compile_report_t* report);

/* Why the calling thread's last failed nova_transform_load or compile (including a GPU backend's
 * compile at first use) failed; "" when none has. Valid until the thread's next libnova_jit call. */
NOVA_API const char* nova_jit_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* NOVA_JIT_H */
