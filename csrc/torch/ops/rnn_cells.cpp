// The fused LSTM and GRU cells as compositions of ordinary ops.
//
// For accelerators (CUDA, XPU, PrivateUse1) ATen's nn.LSTM/nn.GRU compute each step with
// _thnn_fused_lstm_cell / _thnn_fused_gru_cell, which have CUDA kernels only; on hal they failed. The
// same math as ATen's CPU cells, written with ops that hal runs natively or in place, gives the step on
// every adapter. Registered for AutogradPrivateUse1 too, so that autograd differentiates the composed ops
// (the fused ops' own backward, _thnn_fused_*_cell_backward, is CUDA-only as well).
#include <ATen/ATen.h>
#include <torch/library.h>

#include <tuple>

#include "dispatch/kernel_table.h"

namespace torch_hal::native {
namespace {

at::Tensor with_biases(const at::Tensor& gates, const std::optional<at::Tensor>& bias) {
  return bias.has_value() && bias->defined() ? gates + *bias : gates;
}

// Returns (hy, cy, workspace); ATen's CUDA kernel keeps its activated gates in the workspace for its
// backward, which the composed ops make unnecessary: it holds the activated gates all the same.
std::tuple<at::Tensor, at::Tensor, at::Tensor> fused_lstm_cell(const at::Tensor& input_gates,
                                                               const at::Tensor& hidden_gates, const at::Tensor& cx,
                                                               const std::optional<at::Tensor>& input_bias,
                                                               const std::optional<at::Tensor>& hidden_bias) {
  const at::Tensor gates = with_biases(with_biases(input_gates + hidden_gates, input_bias), hidden_bias);
  auto chunks = gates.chunk(4, 1);
  const at::Tensor in_gate = chunks[0].sigmoid();
  const at::Tensor forget_gate = chunks[1].sigmoid();
  const at::Tensor cell_gate = chunks[2].tanh();
  const at::Tensor out_gate = chunks[3].sigmoid();
  at::Tensor cy = forget_gate * cx + in_gate * cell_gate;
  at::Tensor hy = out_gate * cy.tanh();
  at::Tensor workspace = at::cat({in_gate, forget_gate, cell_gate, out_gate}, 1);
  return {std::move(hy), std::move(cy), std::move(workspace)};
}

// Returns (hy, workspace), the gate order of ATen's cells: reset, update, new.
std::tuple<at::Tensor, at::Tensor> fused_gru_cell(const at::Tensor& input_gates, const at::Tensor& hidden_gates,
                                                  const at::Tensor& hx, const std::optional<at::Tensor>& input_bias,
                                                  const std::optional<at::Tensor>& hidden_bias) {
  auto in = with_biases(input_gates, input_bias).chunk(3, 1);
  auto hid = with_biases(hidden_gates, hidden_bias).chunk(3, 1);
  const at::Tensor reset_gate = (in[0] + hid[0]).sigmoid();
  const at::Tensor update_gate = (in[1] + hid[1]).sigmoid();
  const at::Tensor new_gate = (in[2] + reset_gate * hid[2]).tanh();
  at::Tensor hy = new_gate + update_gate * (hx - new_gate);
  at::Tensor workspace = at::cat({reset_gate, update_gate, new_gate, hx - new_gate, hid[2]}, 1);
  return {std::move(hy), std::move(workspace)};
}

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  impl_recorded(m, Route::Composite, "_thnn_fused_lstm_cell", TORCH_FN(fused_lstm_cell));
  impl_recorded(m, Route::Composite, "_thnn_fused_gru_cell", TORCH_FN(fused_gru_cell));
}

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  m.impl("_thnn_fused_lstm_cell", TORCH_FN(fused_lstm_cell));
  m.impl("_thnn_fused_gru_cell", TORCH_FN(fused_gru_cell));
}

}  // namespace
}  // namespace torch_hal::native
