#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace compositeexplicitautograd {
TORCH_API at::Tensor & _coalesce_out(at::Tensor & out, const at::Tensor & self);
TORCH_API at::Tensor & _coalesce_outf(const at::Tensor & self, at::Tensor & out);
} // namespace compositeexplicitautograd
} // namespace at
