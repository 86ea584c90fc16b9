#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace compositeimplicitautograd {
TORCH_API at::Tensor dropout(const at::Tensor & input, double p, bool train);
TORCH_API at::Tensor & dropout_(at::Tensor & self, double p, bool train);
} // namespace compositeimplicitautograd
} // namespace at
