"""The LSTM cell's gate arithmetic, defined once for every LSTM of the model.

PyTorch's gate order i, f, g, o (Hochreiter & Schmidhuber 1997; the form with a forget gate of
Gers, Schmidhuber & Cummins 2000), from the pre-activations ``a = x W_ih^T + h W_hh^T + b``::

    c' = σ(a_f) c + σ(a_i) tanh(a_g),   h' = σ(a_o) tanh(c')

:func:`lstm_cell` evaluates it in one of two forms:

* exact (``scale=None``): ``torch.tanh`` for the two tanh; the decoder's step
  (:meth:`inflect.nn.decoder.Decoder.step`), so in particular every search;
* fused (``scale=gate_scale(H)``): one σ over the scaled pre-activations and ``tanh x = 2σ(2x) - 1``
  (:func:`sigmoid_tanh`); the hand-differentiated recurrences of :mod:`inflect.nn.recurrence`
  (training), whose backward pass :func:`lstm_cell_backward` reads the saved σ.

The forms agree to float32 rounding. Each keeps its operations in a fixed order: the shipped
checkpoints' predictions and the training runs' weights are reproduced bit for bit.
"""

from __future__ import annotations

import torch
from torch import Tensor

__all__ = ["gate_scale", "gate_slope", "lstm_cell", "lstm_cell_backward", "sigmoid_tanh"]


def sigmoid_tanh(x: Tensor) -> Tensor:
    """tanh as ``2σ(2x) - 1``: on the CPU builds measured, ``torch.sigmoid`` is vectorised and
    ``torch.tanh`` about 6x slower per element; equal to float32 rounding (absolute error below
    1.2e-7)."""
    return torch.sigmoid(x * 2.0).mul_(2.0).sub_(1.0)


def gate_scale(H: int, like: Tensor) -> Tensor:
    """(4H,) factors 1, 1, 2, 1 per gate block (``like``'s dtype and device): σ of the scaled
    pre-activations gives σ for the i, f, o gates and σ(2 a_g) for the cell gate
    (tanh a_g = 2σ(2 a_g) - 1)."""
    scale = like.new_ones(4 * H)
    scale[2 * H : 3 * H] = 2.0
    return scale


def gate_slope(H: int, like: Tensor) -> Tensor:
    """(4H,) factors 1, 1, 4, 1 per gate block: the derivative of tanh a_g = 2σ(2 a_g) - 1 is
    4σ'(2 a_g) (for :func:`lstm_cell_backward`)."""
    slope = like.new_ones(4 * H)
    slope[2 * H : 3 * H] = 4.0
    return slope


def lstm_cell(
    gates: Tensor, c: Tensor, scale: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """One LSTM cell update from its gate pre-activations (see the module docstring).

    Args:
        gates: float (N, 4H) pre-activations, blocks i, f, g, o.
        c: float (N, H) the previous cell state.
        scale: None for the exact form, or :func:`gate_scale` (4H,) for the fused form.

    Returns:
        h' (N, H), c' (N, H), ``s`` (N, 4H) and tanh(c') (N, H), where ``s`` is σ of the
        pre-activations (fused form: of the scaled ones, what :func:`lstm_cell_backward` needs).
    """
    H = c.shape[-1]
    if scale is None:
        s = torch.sigmoid(gates)
        c_new = s[:, H : 2 * H] * c + s[:, :H] * torch.tanh(gates[:, 2 * H : 3 * H])
        tc = torch.tanh(c_new)
    else:
        s = torch.sigmoid(gates * scale)
        tg = s[:, 2 * H : 3 * H] * 2.0 - 1.0
        c_new = torch.addcmul(s[:, H : 2 * H] * c, s[:, :H], tg)
        tc = sigmoid_tanh(c_new)
    return s[:, 3 * H :] * tc, c_new, s, tc


def lstm_cell_backward(
    dh: Tensor, dc: Tensor, s: Tensor, tc: Tensor, c_prev: Tensor, slope: Tensor
) -> tuple[Tensor, Tensor]:
    """Backward pass of the fused :func:`lstm_cell`.

    Args:
        dh, dc: float (N, H) gradients of h' and c'.
        s, tc: what the fused :func:`lstm_cell` returned; c_prev: its input c (N, H).
        slope: :func:`gate_slope` (4H,).

    Returns:
        Gradients of the gate pre-activations (N, 4H) and of the previous cell state (N, H).
    """
    H = c_prev.shape[-1]
    si, sf, so = s[:, :H], s[:, H : 2 * H], s[:, 3 * H :]
    tg = s[:, 2 * H : 3 * H] * 2.0 - 1.0
    dc = torch.addcmul(dc, dh * so, 1.0 - tc * tc)
    d_act = torch.cat([dc * tg, dc * c_prev, dc * si, dh * tc], dim=-1)
    return d_act.mul_(s * (1.0 - s)).mul_(slope), dc * sf
