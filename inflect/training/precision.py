"""The arithmetic of training and dev evaluation: bfloat16 autocast on CUDA, float32 elsewhere
(and bfloat16 matrix products in the decoder where the CPU has them, set on the model by the
trainer: :func:`inflect.nn.recurrence.low_precision_matmul_dtype`)."""

from __future__ import annotations

import contextlib
from typing import Any

import torch

__all__ = ["PRECISIONS", "autocast", "describe"]

#: The values of ``train(precision=...)``: ``"auto"`` (the hardware's fast products) or
#: ``"float32"``.
PRECISIONS = ("auto", "float32")


def autocast(device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """bfloat16 autocast on a CUDA ``device``; a no-op context on any other."""
    if device.type == "cuda":
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def describe(matmul_dtype: torch.dtype | None, device: torch.device) -> str:
    """The precision of a run, in words (the trainer's "start" event)."""
    if matmul_dtype is not None:
        return "bfloat16 products"
    return "bfloat16 autocast" if device.type == "cuda" else "float32"
