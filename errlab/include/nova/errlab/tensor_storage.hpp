// Rounding a whole tensor to its storage type at a stage boundary of the emulated layer.
#pragma once

#include "nova/errlab/precision_model.hpp"
#include "nova/errlab/rounding.hpp"

namespace nova::errlab {

// A dense tensor laid out as [positions][channels][inner]; `channels` is the axis that int8
// per-channel scaling gives one scale each (input channel for d and V, output channel for g, U, M, Y,
// row for a transform matrix).
struct TensorView {
  double* data;
  int positions;
  int channels;
  int inner;
};

// Replaces every value by the value the stage stores: rounded to a float format, or quantized to
// symmetric int8 and dequantized (scale max|x| / 127 per tensor or per channel). A NaN or inf in an
// int8 tensor makes its scale, and so the whole tensor or channel, NaN.
void store(StorageType type, TensorView tensor);

struct NoRounding {
  double operator()(double x) const { return x; }
};
template <BinaryFormat F>
struct RoundTo {
  double operator()(double x) const { return round_to<F>(x); }
};

// Calls fn with the rounding function object of a float format (NoRounding for fp64), so the
// caller's loop is compiled once per format with the rounding inlined. int8 gets NoRounding: int8
// products are accumulated exactly and requantized by store().
template <class Fn>
void with_rounding(Format format, Fn&& fn) {
  switch (format) {
    case Format::fp64:
    case Format::int8: fn(NoRounding{}); return;
    case Format::fp32: fn(RoundTo<kFp32>{}); return;
    case Format::fp16: fn(RoundTo<kFp16>{}); return;
    case Format::bf16: fn(RoundTo<kBf16>{}); return;
  }
}

}  // namespace nova::errlab
