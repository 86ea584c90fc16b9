#pragma once

// Shaped like torchgen's NativeFunction.h output (trimmed by hand for the tests).

namespace at {
namespace native {
TORCH_API at::Tensor _coalesce_sparse_cpu(const at::Tensor & self);
TORCH_API at::Tensor _coalesce_sparse_mps(const at::Tensor & self);
TORCH_API at::Tensor & _coalesce_out(const at::Tensor & self, at::Tensor & out);
} // namespace native
} // namespace at
