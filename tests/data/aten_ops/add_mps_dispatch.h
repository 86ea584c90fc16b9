#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace mps {
TORCH_API at::Tensor add(const at::Tensor & self, const at::Tensor & other, const at::Scalar & alpha=1);
} // namespace mps
} // namespace at
