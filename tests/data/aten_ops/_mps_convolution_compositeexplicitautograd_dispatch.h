#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace compositeexplicitautograd {
TORCH_API at::Tensor & _mps_convolution_out(at::Tensor & out, const at::Tensor & self, const at::Tensor & weight, const ::std::optional<at::Tensor> & bias, at::IntArrayRef padding);
} // namespace compositeexplicitautograd
} // namespace at
