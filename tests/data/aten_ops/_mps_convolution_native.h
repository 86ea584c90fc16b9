#pragma once

// Shaped like torchgen's NativeFunction.h output (trimmed by hand for the tests).

namespace at {
namespace native {
TORCH_API at::Tensor _mps_convolution(const at::Tensor & self, const at::Tensor & weight, const ::std::optional<at::Tensor> & bias, at::IntArrayRef padding);
TORCH_API at::Tensor & _mps_convolution_out_symint(const at::Tensor & self, const at::Tensor & weight, const ::std::optional<at::Tensor> & bias, c10::SymIntArrayRef padding, at::Tensor & out);
} // namespace native
} // namespace at
