#pragma once
// Shaped like torchgen's DispatchKeyFunction.h output (trimmed by hand for the tests).

namespace at {
namespace compositeexplicitautograd {
TORCH_API ::std::vector<at::Tensor> _foreach_mul(at::TensorList self, const at::Scalar & scalar);
TORCH_API void _foreach_mul_out(at::TensorList out, at::TensorList self, const at::Scalar & scalar);
TORCH_API void _foreach_mul_outf(at::TensorList self, const at::Scalar & scalar, at::TensorList out);
} // namespace compositeexplicitautograd
} // namespace at
