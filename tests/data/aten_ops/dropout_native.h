#pragma once

// Shaped like torchgen's NativeFunction.h output (trimmed by hand for the tests).

namespace at {
namespace native {
TORCH_API at::Tensor dropout(const at::Tensor & input, double p, bool train);
TORCH_API at::Tensor & dropout_(at::Tensor & self, double p, bool train);
} // namespace native
} // namespace at
