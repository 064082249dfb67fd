// Thin C++ RAII wrapper over the C API in nova/runtime.h: errors become nova::Error exceptions.
#pragma once

#include "nova/runtime.h"

#include <stdexcept>
#include <string>

namespace nova {

class Error : public std::runtime_error {
 public:
  explicit Error(nova_status_t status) : std::runtime_error(nova_status_string(status)), status_(status) {}
  nova_status_t status() const { return status_; }

 private:
  nova_status_t status_;
};

inline void check(nova_status_t status) {
  if (status != NOVA_STATUS_SUCCESS) throw Error(status);
}

struct ConvDesc : nova_conv_desc_t {
  ConvDesc() { nova_conv_desc_init(this); }
};

class Handle {
 public:
  explicit Handle(nova_backend_t backend = NOVA_BACKEND_CPU, void* stream = nullptr) {
    check(nova_create(&handle_, backend, stream));
  }
  ~Handle() { nova_destroy(handle_); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
  Handle& operator=(Handle&& other) noexcept {
    std::swap(handle_, other.handle_);
    return *this;
  }

  nova_handle_t get() const { return handle_; }

  std::string transform_name(const ConvDesc& desc) const {
    const char* name = nullptr;
    check(nova_conv_transform_name(handle_, &desc, &name));
    return name;
  }
  size_t workspace_size(const ConvDesc& desc) const {
    size_t bytes = 0;
    check(nova_conv_workspace_size(handle_, &desc, &bytes));
    return bytes;
  }
  double predicted_error(const ConvDesc& desc) const {
    double error = 0;
    check(nova_conv_predicted_error(handle_, &desc, &error));
    return error;
  }
  void transform_filter(const ConvDesc& desc, const float* weights, uint64_t version) {
    check(nova_filter_transform(handle_, &desc, weights, version));
  }
  void invalidate_filter(const float* weights) { check(nova_filter_invalidate(handle_, weights)); }
  void set_filter_cache_limit(size_t bytes) { check(nova_filter_cache_limit(handle_, bytes)); }
  size_t filter_cache_bytes() const {
    size_t bytes = 0;
    check(nova_filter_cache_bytes(handle_, &bytes));
    return bytes;
  }
  void forward(const ConvDesc& desc, const void* x, const float* weights, uint64_t version, void* y,
               const float* bias = nullptr, bool relu = false, void* workspace = nullptr, size_t workspace_bytes = 0) {
    check(nova_conv_forward(handle_, &desc, x, weights, version, bias, relu ? 1 : 0, y, workspace, workspace_bytes));
  }

 private:
  nova_handle_t handle_ = nullptr;
};

}  // namespace nova
