"""The hand-differentiated recurrences of training: the teacher-forced decoder and the BiLSTM.

:func:`decoder_recurrence` is the private fast path of :meth:`inflect.nn.decoder.Decoder.forward`
(teacher forcing, a fixed attention α, the ``general`` or ``dot`` score): the T steps of
:meth:`inflect.nn.decoder.Decoder.step` as one autograd node with a hand-written backward pass.
Each step is a few dozen small tensor operations on (B, H) rows (B = 32 examples); on a CPU,
recording and replaying those operations in autograd (a node per operation, a gradient buffer per
input) costs more than the arithmetic. This module runs the T steps with the same equations under
``torch.no_grad``, keeps what the backward pass needs, and back-propagates through time by hand
with fused formulas; the gradients of the per-step matrices (``[W_f | W_hh]`` per LSTM layer and
``W_c``) are formed once per batch as ``G^T X`` over all steps (one product of inner dimension T·B
instead of T products of inner dimension B, as cuDNN's RNN kernels do). The LSTM cells use the
fused form of :func:`inflect.nn.cell.lstm_cell`. Tests compare the outputs and every gradient
with autograd through T calls of the step, in float64. :func:`bilstm_layer` does the same for
one layer of the encoder (:class:`inflect.nn.encoder.BiLSTMEncoder`), tested against ``nn.LSTM``.

Equations (Luong, Pham & Manning 2015, section 3, with input feeding; Peters, Niculae & Martins
2019 for the α-entmax attention), for layer l at step t, ``x^0_t = [h̃_{t-1}; h^0_{t-1}]`` and
``x^l_t = [dropout(h^{l-1}_t); h^l_{t-1}]``::

    g = pre_t + x^l_t W_l^T               (pre_t: embedding and condition terms and biases)
    c^l_t = σ(g_f) c^l_{t-1} + σ(g_i) tanh(g_g),   h^l_t = σ(g_o) tanh(c^l_t)
    p_t = α-entmax(K q_t masked to -inf on padding),   q_t = h^{L-1}_t, K = keys (B, S, H)
    h̃_t = dropout(tanh([Σ_s p_ts m_s ; q_t] W_c^T))    (m_s: memory, the encoder outputs)

The α-entmax Jacobian-vector product (Peters et al. 2019, section 3.2): with
``s = p^(2-α)`` on the support (1 at α = 2, √p at α = 1.5), ``∂ = s·g - s·(Σ s·g)/(Σ s)``; at
α = 1 (softmax) ``∂ = p·(g - Σ p·g)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor

from inflect.nn.cell import gate_scale, gate_slope, lstm_cell, lstm_cell_backward, sigmoid_tanh
from inflect.sparse import entmax

__all__ = [
    "RecurrenceSpec",
    "bilstm_layer",
    "decoder_recurrence",
    "entmax_backward",
    "low_precision_matmul_dtype",
]


@dataclass(frozen=True)
class RecurrenceSpec:
    """What the recurrence needs besides tensors.

    Attributes:
        alpha: the attention mapping's α (a float >= 1; a learned α is not supported here).
        dropout: dropout probability on h̃ and between layers (0 when not training).
        matmul_dtype: dtype of the per-step matrix products (inputs rounded to it, products
            accumulated in float32 by the BLAS and returned as float32), e.g. ``torch.bfloat16``
            on CPUs with native bfloat16 dot products (AVX512-BF16, AMX), where they take about
            half the time; None: the weights' dtype. Everything else stays in float32.
    """

    alpha: float
    dropout: float
    matmul_dtype: torch.dtype | None = None


def low_precision_matmul_dtype(device: torch.device) -> torch.dtype | None:
    """``torch.bfloat16`` where the device computes bfloat16 products natively, else None.

    CUDA devices with bfloat16 support; CPUs with AVX512-BF16 (or AMX).
    """
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else None
    if device.type != "cpu":
        return None
    supported = getattr(torch.cpu, "_is_avx512_bf16_supported", None)
    return torch.bfloat16 if supported is not None and supported() else None


def _mm(a: Tensor, b: Tensor, dtype: torch.dtype | None) -> Tensor:
    """``a @ b`` with ``a`` rounded to ``dtype`` (b already is), as float32."""
    if dtype is None:
        return a @ b
    return (a.to(dtype) @ b).float()


def entmax_backward(p: Tensor, grad: Tensor, alpha: float) -> Tensor:
    """Gradient of α-entmax's input from its output ``p`` and output gradient ``grad``.

    Args:
        p: float (..., S) α-entmax probabilities (exact zeros outside the support).
        grad: float (..., S) gradient with respect to ``p``.
        alpha: α >= 1.

    Returns:
        float (..., S), zero outside the support (Peters et al. 2019, section 3.2).
    """
    if alpha == 1.0:
        return p * (grad - (p * grad).sum(-1, keepdim=True))
    if alpha == 2.0:
        s = (p > 0).to(p.dtype)
    elif alpha == 1.5:
        s = p.sqrt()
    else:
        s = torch.where(p > 0, p.clamp_min(1e-30).pow(2.0 - alpha), torch.zeros_like(p))
    sg = s * grad
    return sg - s * (sg.sum(-1, keepdim=True) / s.sum(-1, keepdim=True).clamp_min(1e-30))


def _dropout_masks(shape: tuple[int, ...], p: float, like: Tensor) -> Tensor | None:
    """Inverted-dropout masks (0 or 1/(1-p)) for every step at once; None without dropout."""
    if p <= 0.0:
        return None
    keep = torch.rand(shape, device=like.device) >= p
    return keep.to(like.dtype) / (1.0 - p)


def _matrix_grads(
    grads_w: list[list[Tensor]],
    xs: list[list[Tensor]],
    grads_c: list[Tensor],
    zs: list[Tensor],
    dt: torch.dtype | None,
) -> tuple[list[Tensor], Tensor]:
    """The gradients of the per-step matrices, one product ``G^T X`` each over all steps: per
    layer ``[W_f | W_hh]`` or ``[W_ih | W_hh]`` from its gate gradients (steps T-1 .. 0) and
    inputs (steps 0 .. T-1), and ``W_c`` from its pre-activation gradients and inputs."""
    d_weights = []
    for layer in range(len(grads_w)):
        g = torch.cat(grads_w[layer])  # steps T-1 .. 0
        x = torch.cat(xs[layer][::-1])
        d_weights.append(_mm(g.t(), x if dt is None else x.to(dt), dt))
    z = torch.cat(zs[::-1])
    return d_weights, _mm(torch.cat(grads_c).t(), z if dt is None else z.to(dt), dt)


class _Recurrence(torch.autograd.Function):
    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(  # type: ignore[override]
        ctx: Any,
        spec: RecurrenceSpec,
        input_gates: Tensor,
        gate_bias: Tensor,
        h0: Tensor,
        c0: Tensor,
        keys: Tensor,
        memory: Tensor,
        mask: Tensor,
        w_combine: Tensor,
        *layer_params: Tensor,
    ) -> tuple[Tensor, Tensor]:
        L = h0.shape[0]
        weights, biases = layer_params[:L], layer_params[L:]
        B, T, _ = input_gates.shape
        H = h0.shape[-1]
        pad = (~mask).unsqueeze(1)  # (B, 1, S)
        feed_masks = _dropout_masks((T, B, H), spec.dropout, memory)
        layer_masks = _dropout_masks((T, L - 1, B, H), spec.dropout, memory) if L > 1 else None
        dt = spec.matmul_dtype
        w_steps = [w.t() if dt is None else w.t().to(dt) for w in weights]
        w_comb = w_combine.t() if dt is None else w_combine.t().to(dt)
        keys_t = keys.transpose(1, 2).contiguous()  # (B, H, S): q K^T as a row-vector product
        scale = gate_scale(H, memory)
        h = list(h0.unbind(0))
        c = list(c0.unbind(0))
        feed = memory.new_zeros((B, H))
        pre = (input_gates + gate_bias.unsqueeze(1)).transpose(0, 1)  # (T, B, 4H)
        # per step and layer: inputs x, σ of the gates, tanh c, previous c
        xs: list[list[Tensor]] = [[] for _ in range(L)]
        ss: list[list[Tensor]] = [[] for _ in range(L)]
        tcs: list[list[Tensor]] = [[] for _ in range(L)]
        cs: list[list[Tensor]] = [[] for _ in range(L)]
        qs, ps, zs, raws, feeds = [], [], [], [], []
        for t in range(T):
            below = feed
            for layer in range(L):
                if layer == 0:
                    x = torch.cat([feed, h[0]], dim=-1)
                    gates = _mm(x, w_steps[0], dt).add_(pre[t])
                else:
                    inp = below if layer_masks is None else below * layer_masks[t, layer - 1]
                    x = torch.cat([inp, h[layer]], dim=-1)
                    gates = _mm(x, w_steps[layer], dt).add_(biases[layer - 1])
                cs[layer].append(c[layer])
                h[layer], c[layer], sig, tc = lstm_cell(gates, c[layer], scale)
                xs[layer].append(x)
                ss[layer].append(sig)
                tcs[layer].append(tc)
                below = h[layer]
            q = below
            scores = torch.matmul(q.unsqueeze(1), keys_t).masked_fill_(pad, float("-inf"))
            p = entmax(scores.squeeze(1).float(), spec.alpha, dim=-1)
            context = torch.bmm(p.unsqueeze(1).to(memory.dtype), memory).squeeze(1)
            z = torch.cat([context, q], dim=-1)
            raw = sigmoid_tanh(_mm(z, w_comb, dt))
            feed = raw if feed_masks is None else raw * feed_masks[t]
            qs.append(q)
            ps.append(p)
            zs.append(z)
            raws.append(raw)
            feeds.append(feed)
        ctx.spec, ctx.L = spec, L
        ctx.saved = (xs, ss, tcs, cs, qs, ps, zs, raws, feed_masks, layer_masks)
        ctx.save_for_backward(keys, memory, w_combine, *weights)
        return torch.stack(feeds, dim=1), torch.stack(ps, dim=1)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx: Any, d_feeds: Tensor, d_attns: Tensor | None) -> tuple[Any, ...]:
        keys, memory, w_combine, *weights = ctx.saved_tensors
        spec, L = ctx.spec, ctx.L
        xs, ss, tcs, cs, qs, ps, zs, raws, feed_masks, layer_masks = ctx.saved
        dt = spec.matmul_dtype
        if dt is not None:
            w_combine = w_combine.to(dt)
            weights = [w.to(dt) for w in weights]
        T = len(ps)
        B, _, H = memory.shape
        slope = gate_slope(H, memory)
        mem_t = memory.transpose(1, 2)  # (B, H, S)
        dh = [memory.new_zeros((B, H)) for _ in range(L)]
        dc = [memory.new_zeros((B, H)) for _ in range(L)]
        d_feed_next = memory.new_zeros((B, H))
        d_input_gates: list[Tensor] = [memory] * T
        grads_w: list[list[Tensor]] = [[] for _ in range(L)]
        grads_c: list[Tensor] = []
        d_contexts: list[Tensor] = [memory] * T
        d_scores_all: list[Tensor] = [memory] * T
        d_biases = [memory.new_zeros(weights[i].shape[0]) for i in range(1, L)]
        for t in range(T - 1, -1, -1):
            d_feed = d_feeds[:, t] + d_feed_next
            if feed_masks is not None:
                d_feed = d_feed * feed_masks[t]
            raw = raws[t]
            d_pre_c = torch.addcmul(d_feed, d_feed * raw, raw, value=-1.0)  # tanh'
            grads_c.append(d_pre_c)
            dz = _mm(d_pre_c, w_combine, dt)
            d_context, dq = dz[:, :H], dz[:, H:]
            d_contexts[t] = d_context
            dp = torch.bmm(d_context.unsqueeze(1), mem_t).squeeze(1).float()
            if d_attns is not None:
                dp = dp + d_attns[:, t]
            d_scores = entmax_backward(ps[t], dp, spec.alpha).to(keys.dtype)
            d_scores_all[t] = d_scores
            d_above = dq + torch.bmm(d_scores.unsqueeze(1), keys).squeeze(1)
            for layer in range(L - 1, -1, -1):
                dgates, dc[layer] = lstm_cell_backward(
                    d_above + dh[layer],
                    dc[layer],
                    ss[layer][t],
                    tcs[layer][t],
                    cs[layer][t],
                    slope,
                )
                grads_w[layer].append(dgates)
                dx = _mm(dgates, weights[layer], dt)
                width = dx.shape[1] - H
                dh[layer] = dx[:, width:]
                if layer == 0:
                    d_feed_next = dx[:, :width]
                    d_input_gates[t] = dgates
                else:
                    d_biases[layer - 1] += dgates.sum(0)
                    d_above = dx[:, :width]
                    if layer_masks is not None:
                        d_above = d_above * layer_masks[t, layer - 1]
        # the memory's and the keys' gradients, and one product per matrix, over all steps
        p_all = torch.stack(ps, dim=1).to(memory.dtype)  # (B, T, S)
        d_memory = torch.bmm(p_all.transpose(1, 2), torch.stack(d_contexts, dim=1))
        d_keys = torch.bmm(torch.stack(d_scores_all, dim=2), torch.stack(qs, dim=1))
        d_weights, d_combine = _matrix_grads(grads_w, xs, grads_c, zs, dt)
        d_ig = torch.stack(d_input_gates, dim=1)
        return (
            None,
            d_ig,
            d_ig.sum(1),
            torch.stack(dh),
            torch.stack(dc),
            d_keys,
            d_memory,
            None,
            d_combine,
            *d_weights,
            *d_biases,
        )


def decoder_recurrence(
    spec: RecurrenceSpec,
    input_gates: Tensor,
    gate_bias: Tensor,
    h0: Tensor,
    c0: Tensor,
    keys: Tensor,
    memory: Tensor,
    mask: Tensor,
    w_combine: Tensor,
    weights: list[Tensor],
    biases: list[Tensor],
) -> tuple[Tensor, Tensor]:
    """Run the decoder over T teacher-forced steps (see the module docstring).

    Args:
        spec: α of the attention and the dropout probability.
        input_gates: float (B, T, 4H) the first layer's gate terms of the previous symbol's
            embedding (``embedding(y_{t-1}) W_e^T``).
        gate_bias: float (B, 4H) the first layer's constant gate terms (biases and condition).
        h0, c0: float (L, B, H) initial LSTM states.
        keys: float (B, S, H) the memory projected for the score; memory: float (B, S, H).
        mask: bool (B, S), True at real source positions.
        w_combine: float (H, 2H) ``W_c``.
        weights: L matrices, ``[W_f | W_hh]`` (4H, 2H) for the first layer and
            ``[W_ih | W_hh]`` (4H, 2H) for the others.
        biases: L - 1 vectors ``b_ih + b_hh`` (4H,) of the layers above the first.

    Returns:
        h̃: float (B, T, H) after dropout; attention: float32 (B, T, S).
    """
    return _Recurrence.apply(
        spec, input_gates, gate_bias, h0, c0, keys, memory, mask, w_combine, *weights, *biases
    )


class _BiLSTMLayer(torch.autograd.Function):
    """Both directions of one bidirectional LSTM layer over right-padded rows, hand-differentiated.

    The two directions run side by side, one batched product per step; at padded positions the
    state is carried over unchanged (so the forward direction ends at each row's last symbol and
    the backward direction starts from it) and the output is 0, as PyTorch's packed sequences give.
    """

    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
    def forward(  # type: ignore[override]
        ctx: Any, pre: Tensor, w_hh: Tensor, mask: Tensor
    ) -> tuple[Tensor, Tensor, Tensor]:
        # pre: (2, B, S, 4h) input terms of both directions; w_hh: (2, 4h, h); mask: (B, S).
        # Step k reads position k (forward direction) and S-1-k (backward direction): the
        # backward direction's inputs and masks are flipped once, so a step is one slice.
        _, B, S, _ = pre.shape
        h_dim = w_hh.shape[-1]
        steps = torch.stack([pre[0], pre[1].flip(1)]).permute(2, 0, 1, 3)  # (S, 2, B, 4h)
        keep = mask.to(pre.dtype)
        masks = torch.stack([keep, keep.flip(1)]).permute(2, 0, 1).unsqueeze(-1)  # (S, 2, B, 1)
        scale = gate_scale(h_dim, pre)
        h = pre.new_zeros((2, B, h_dim))
        c = pre.new_zeros((2, B, h_dim))
        w_t = w_hh.transpose(1, 2)
        outs, saved = [], []
        for k in range(S):
            m = masks[k]
            gates = torch.baddbmm(steps[k], h, w_t)
            h_new, c_new, sig, tc = lstm_cell(gates.view(2 * B, -1), c.view(2 * B, -1), scale)
            h_new = h_new.view(2, B, h_dim)
            saved.append((h, c, sig, tc))
            h = torch.lerp(h, h_new, m)
            c = torch.lerp(c, c_new.view(2, B, h_dim), m)
            outs.append(h_new * m)
        out = torch.stack(outs, dim=2)  # (2, B, S, h) in step order
        out = torch.stack([out[0], out[1].flip(1)])
        ctx.saved = saved
        ctx.save_for_backward(w_hh, masks)
        return out, h, c

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx: Any, d_out: Tensor, d_h: Tensor, d_c: Tensor) -> tuple[Tensor, Tensor, None]:
        w_hh, masks = ctx.saved_tensors
        saved = ctx.saved
        S = len(saved)
        _, B, h_dim = d_h.shape
        slope = gate_slope(h_dim, d_h)
        d_steps = torch.stack([d_out[0], d_out[1].flip(1)]).permute(2, 0, 1, 3)  # (S, 2, B, h)
        d_pre_steps: list[Tensor] = [d_h] * S
        grads, inputs = [], []
        dh, dc = d_h, d_c
        for k in range(S - 1, -1, -1):
            h_prev, c_prev, sig, tc = saved[k]
            m = masks[k]
            dgates, dc_cell = lstm_cell_backward(
                (m * (dh + d_steps[k])).view(2 * B, -1),
                (m * dc).view(2 * B, -1),
                sig,
                tc,
                c_prev.reshape(2 * B, -1),
                slope,
            )
            dgates = dgates.view(2, B, -1)
            d_pre_steps[k] = dgates
            grads.append(dgates)
            inputs.append(h_prev)
            dh = torch.baddbmm(torch.lerp(dh, torch.zeros_like(dh), m), dgates, w_hh)
            dc = torch.lerp(dc, dc_cell.view(2, B, h_dim), m)
        d_pre = torch.stack(d_pre_steps, dim=2)  # (2, B, S, 4h) in step order
        d_pre = torch.stack([d_pre[0], d_pre[1].flip(1)])
        # W_hh's gradient in one batched product over all steps: (2, 4h, S·B) x (2, S·B, h)
        d_w = torch.bmm(torch.cat(grads, dim=1).transpose(1, 2), torch.cat(inputs, dim=1))
        return d_pre, d_w, None


def bilstm_layer(pre: Tensor, w_hh: Tensor, mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """One bidirectional LSTM layer over right-padded rows (see :class:`_BiLSTMLayer`).

    Args:
        pre: float (2, B, S, 4h) the input terms ``x W_ih^T + b_ih + b_hh`` of the forward (0)
            and backward (1) directions.
        w_hh: float (2, 4h, h) the recurrent matrices of the two directions.
        mask: bool (B, S), True at real positions (each row's real positions come first).

    Returns:
        outputs float (2, B, S, h) (0 at padding), final h and c float (2, B, h): the forward
        direction's at each row's last real position, the backward direction's at position 0.
    """
    return _BiLSTMLayer.apply(pre, w_hh, mask)
