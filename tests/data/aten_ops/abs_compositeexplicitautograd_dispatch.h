#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace compositeexplicitautograd {
TORCH_API at::Tensor abs(const at::Tensor & self);
TORCH_API at::Tensor & abs_(at::Tensor & self);
} // namespace compositeexplicitautograd
} // namespace at
