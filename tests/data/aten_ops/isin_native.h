#pragma once

// Shaped like torchgen's NativeFunction.h output (trimmed by hand for the tests).

namespace at {
namespace native {
struct TORCH_API structured_isin_Tensor_Tensor_out : public at::meta::structured_isin_Tensor_Tensor {
void impl(const at::Tensor & elements, const at::Tensor & test_elements, bool assume_unique, bool invert, const at::Tensor & out);
};
struct TORCH_API structured_isin_Tensor_Tensor_out_mps : public at::meta::structured_isin_Tensor_Tensor {
void impl(const at::Tensor & elements, const at::Tensor & test_elements, bool assume_unique, bool invert, const at::Tensor & out);
};
struct TORCH_API structured_isin_Scalar_Tensor_out : public at::meta::structured_isin_Scalar_Tensor {
void impl(const at::Scalar & element, const at::Tensor & test_elements, bool assume_unique, bool invert, const at::Tensor & out);
};
} // namespace native
} // namespace at
