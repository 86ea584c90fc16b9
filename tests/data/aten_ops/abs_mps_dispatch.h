#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace mps {
TORCH_API at::Tensor & abs_out(at::Tensor & out, const at::Tensor & self);
} // namespace mps
} // namespace at
