#pragma once

// Shaped like torchgen's NativeFunction.h output (trimmed by hand for the tests).

namespace at {
namespace native {
TORCH_API ::std::tuple<at::Tensor,at::Tensor,at::Tensor> batch_norm_cpu(const at::Tensor & input);
TORCH_API ::std::tuple<at::Tensor,at::Tensor,at::Tensor> batch_norm_mps(const at::Tensor & input);
} // namespace native
} // namespace at
