// C++ wrapper over nova/jit.h: failures become nova::Error with the loader's explanation.
#pragma once

#include "nova/jit.h"
#include "nova/runtime.hpp"

#include <string>

namespace nova {

class JitError : public Error {
 public:
  JitError(nova_status_t status, std::string detail)
      : Error(status), detail_(std::string(nova_status_string(status)) + ": " + std::move(detail)) {}
  const char* what() const noexcept override { return detail_.c_str(); }

 private:
  std::string detail_;
};

inline nova_transform_info_t load_transform(const std::string& json_path) {
  nova_transform_info_t info{};
  if (const nova_status_t st = nova_transform_load(json_path.c_str(), &info); st != NOVA_STATUS_SUCCESS)
    throw JitError(st, nova_jit_last_error());
  return info;
}

inline nova_compile_report_t compile_transform(const std::string& name, const std::string& arch) {
  nova_compile_report_t report{};
  if (const nova_status_t st = nova_transform_compile(name.c_str(), arch.c_str(), &report); st != NOVA_STATUS_SUCCESS)
    throw JitError(st, nova_jit_last_error());
  return report;
}

}  // namespace nova
