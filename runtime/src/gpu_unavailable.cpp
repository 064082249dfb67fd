// Built when the library has no GPU backend (NOVA_ENABLE_CUDA off): the GPU handle is refused.
#include "backend.hpp"

namespace nova::runtime {

nova_status_t make_gpu_backend(void*, std::unique_ptr<Backend>&) { return NOVA_STATUS_NO_GPU; }

}  // namespace nova::runtime
