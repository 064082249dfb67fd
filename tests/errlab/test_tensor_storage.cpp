#include "nova/errlab/tensor_storage.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

using namespace nova::errlab;

TEST_CASE("storage types parse and print", "[storage]") {
  CHECK(parse_storage_type("fp16") == StorageType{Format::fp16, Granularity::tensor});
  CHECK(parse_storage_type("int8") == StorageType{Format::int8, Granularity::tensor});
  CHECK(parse_storage_type("int8-channel") == StorageType{Format::int8, Granularity::channel});
  CHECK(to_string(parse_storage_type("int8")) == "int8-tensor");
  CHECK(to_string(parse_storage_type("bf16")) == "bf16");
  CHECK_THROWS_WITH(parse_storage_type("fp8"), Catch::Contains("unknown number format 'fp8'"));
  CHECK(unit_roundoff(Format::fp16) == std::ldexp(1.0, -11));
  CHECK(unit_roundoff(Format::bf16) == std::ldexp(1.0, -8));
}

TEST_CASE("float storage rounds every element", "[storage]") {
  std::vector<double> v = {0.1, 1 + 0x1p-11, 70000.0, 0x1p-25};
  store(parse_storage_type("fp16"), TensorView{v.data(), 1, 1, 4});
  CHECK(v == std::vector<double>{round_to_fp16(0.1), 1.0, INFINITY, 0.0});
}

TEST_CASE("int8 storage: one scale per tensor or per channel", "[storage]") {
  // Layout [positions = 2][channels = 2][inner = 2]; channel 0 holds small values, channel 1 large.
  const std::vector<double> original = {0.01, -0.02, 100.0, -50.0,   // position 0
                                        0.015, 0.005, 25.0, 127.0};  // position 1
  std::vector<double> per_tensor = original, per_channel = original;
  store(parse_storage_type("int8-tensor"), TensorView{per_tensor.data(), 2, 2, 2});
  store(parse_storage_type("int8-channel"), TensorView{per_channel.data(), 2, 2, 2});

  // Per tensor: scale 127/127 = 1, so the small channel is crushed to zero.
  CHECK(per_tensor == std::vector<double>{0, 0, 100, -50, 0, 0, 25, 127});
  // Per channel: channel 0 gets scale 0.02/127 and keeps its values to within half a step.
  const double step0 = 0.02 / 127;
  for (int i : {0, 1, 4, 5}) CHECK(std::abs(per_channel[i] - original[i]) <= step0 / 2 * (1 + 1e-12));
  for (int i : {2, 3, 6, 7}) CHECK(per_channel[i] == per_tensor[i]);
}

TEST_CASE("int8 storage of a tensor holding inf or NaN is NaN, not a silent number", "[storage]") {
  std::vector<double> v = {1.0, INFINITY, 2.0};
  store(parse_storage_type("int8"), TensorView{v.data(), 1, 1, 3});
  for (double x : v) CHECK(std::isnan(x));
}
