"""Attention: a masked softmax, the machinery every attention module
shares, and scaled dot-product attention; Bahdanau's additive score is in
:mod:`attnbook.layers.bahdanau`, Luong's scores in
:mod:`attnbook.layers.luong`.

Every module follows one call convention::

    context, attn_weights = attn(query, keys, values=None, mask=None)

- ``query`` is ``(batch, query_dim)`` for one decoder step or ``(batch,
  tgt_len, query_dim)`` for all steps at once;
  the outputs drop or keep the ``tgt_len`` axis to match.
- ``values`` defaults to ``keys`` and may have its own feature
  size ``value_dim``.
- ``mask`` is boolean ``(batch, src_len)`` and **True means "may attend"**:
  the polarity of :func:`torch.nn.functional.scaled_dot_product_attention`,
  the *opposite* of the ``key_padding_mask`` of
  :class:`torch.nn.MultiheadAttention` (where True means "ignore").
  Masked positions get weight exactly 0; a row with no attendable position
  gets all-zero weights and a zero context, never NaN.

Each module differs only in its score function, exposed as
``attn.scores(query, keys)``; the input checks, the softmax and the
weighted sum are shared. The checks cost about 5% of a decoder step (see
``_Attention``).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn


def masked_softmax(
    scores: Tensor, mask: Tensor | None = None, dim: int = -1
) -> Tensor:
    """Softmax over ``dim`` in which masked positions get weight exactly 0.

    Masked scores are replaced by the most negative finite number of the
    dtype (``torch.finfo(dtype).min``, valid in every floating dtype,
    unlike ``-1e9`` which overflows float16), the softmax is taken,
    and the masked weights are then set to exactly 0.
    A row with no attendable position therefore gives all-zero weights
    rather than NaN. float16 and bfloat16 work as they are (PyTorch's
    softmax accumulates in float32 internally), so the weights stay finite.

    Args:
        scores: unnormalised attention scores of any floating dtype.
        mask: boolean, **True = may attend** (the opposite of
            ``nn.MultiheadAttention``'s ``key_padding_mask``),
            broadcastable to ``scores``. ``None`` attends everywhere.
        dim: the axis to normalise over, usually the source axis ``-1``.

    Returns:
        Weights with the shape and dtype of ``scores``:
        non-negative, summing to one over the unmasked positions of each
        row (and to zero over a fully masked row).

    Shape:
        - scores: any, e.g. ``(batch, src_len)`` or
          ``(batch, tgt_len, src_len)``.
        - mask: broadcastable to ``scores``, e.g. ``(batch, 1, src_len)``
          for ``(batch, tgt_len, src_len)``.
        - output: the shape of ``scores``.

    Raises:
        TypeError: ``scores`` is not a floating tensor, or ``mask`` is not
            a boolean tensor.
        ValueError: ``mask`` does not broadcast to the shape of ``scores``.

    >>> scores = torch.tensor([[2.0, 1.0, 0.5], [1.0, 1.0, 1.0]])
    >>> masked_softmax(
    ...     scores,
    ...     torch.tensor([[True, True, False], [False, False, False]]),
    ... )
    tensor([[0.7311, 0.2689, 0.0000],
            [0.0000, 0.0000, 0.0000]])
    """
    if not isinstance(scores, Tensor) or not scores.is_floating_point():
        got = (
            scores.dtype
            if isinstance(scores, Tensor)
            else type(scores).__name__
        )
        raise TypeError(
            f"scores must be a floating-point tensor, got {got}"
        )
    if mask is None:
        return torch.softmax(scores, dim=dim)
    _check_mask_dtype(mask)
    if not _broadcasts_to(mask.shape, scores.shape):
        raise ValueError(
            "mask must be broadcastable to the shape of scores "
            f"{tuple(scores.shape)}, "
            f"got shape {tuple(mask.shape)}"
        )
    return _masked_softmax(scores, mask, dim)


def _masked_softmax(scores: Tensor, mask: Tensor, dim: int = -1) -> Tensor:
    """:func:`masked_softmax` without the checks, for callers that have
    checked their inputs."""
    blocked = ~mask
    filled = scores.masked_fill(blocked, torch.finfo(scores.dtype).min)
    return torch.softmax(filled, dim=dim).masked_fill(blocked, 0.0)


def _broadcasts_to(shape: torch.Size, target: torch.Size) -> bool:
    """Whether ``shape`` broadcasts to exactly ``target`` (a plain loop:
    ``torch.broadcast_shapes`` costs about 20 microseconds, as much as the
    rest of a module's input checks together)."""
    if len(shape) > len(target):
        return False
    return all(
        size in (1, wanted)
        for size, wanted in zip(
            reversed(shape), reversed(target), strict=False
        )
    )


def _check_mask_dtype(mask: object) -> None:
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        got = (
            f"dtype {mask.dtype}"
            if isinstance(mask, Tensor)
            else type(mask).__name__
        )
        raise TypeError(
            "mask must be a boolean tensor with True = may attend, got "
            f"{got}; "
            "build one with a comparison such as `src_tokens != pad_id`"
        )


def _dim(name: str, size: int | None) -> str:
    return name if size is None else f"{name}={size}"


def _check_tensor(name: str, value: object) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor, got {type(value).__name__}"
        )
    if not value.is_floating_point():
        raise TypeError(
            f"{name} must be a floating-point tensor, got dtype "
            f"{value.dtype}"
        )
    return value


class _Attention(nn.Module):
    """The shared half of every attention module:
    input checks, masked softmax and weighted sum.

    A subclass sets ``query_dim`` and ``key_dim`` (``None`` for "any size")
    and implements ``_score(query, keys, **score_args)``, which maps
    ``(batch, tgt_len, query_dim)`` and ``(batch, src_len, key_dim)``
    to raw scores ``(batch, tgt_len, src_len)``.
    Keyword arguments of :meth:`forward` and :meth:`scores` beyond the four
    shared ones (Bahdanau's ``projected_keys``) pass through to
    ``_check_score_args`` and then to ``_score``.

    The input checks compare shapes, dtypes and devices and read no
    tensor's values, so they are cheap: for one Bahdanau decoder step
    (batch 32, src_len 20, query, key and attention sizes 128,
    precomputed keys, a mask, float32, one CPU thread) the checked call
    took about 5% longer than the same arithmetic without the checks,
    and the checks alone about 2% of the step's time (medians of 200
    interleaved runs of 20 steps, thread CPU time;
    ``tools/attention_check_overhead.py`` measures it).
    """

    query_dim: int | None = None
    key_dim: int | None = None

    def _score(
        self, query: Tensor, keys: Tensor, **score_args: Tensor
    ) -> Tensor:
        raise NotImplementedError

    def _check_score_args(
        self, keys: Tensor, **score_args: Tensor
    ) -> None:
        """Check the extra score arguments against ``keys``;
        this score takes none."""
        if score_args:
            raise TypeError(
                f"{type(self).__name__} takes no arguments besides query, "
                "keys, values and mask, "
                f"got {sorted(score_args)}"
            )

    def forward(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor | None = None,
        mask: Tensor | None = None,
        **score_args: Tensor,
    ) -> tuple[Tensor, Tensor]:
        """Attend from ``query`` over ``keys`` and return
        ``(context, attn_weights)``.

        Args:
            query: one decoder step ``(batch, query_dim)`` or all steps
                ``(batch, tgt_len, query_dim)``.
            keys: the source states scored against the query,
                ``(batch, src_len, key_dim)``.
            values: the source states averaged into the context,
                ``(batch, src_len, value_dim)``; ``None`` uses ``keys``.
            mask: boolean ``(batch, src_len)``, **True = may attend** (the
                opposite of ``nn.MultiheadAttention``'s
                ``key_padding_mask``); ``None`` attends everywhere.
            **score_args: what this module's score takes besides the query
                and the keys, e.g. :class:`BahdanauAttention`'s
                ``projected_keys``.

        Returns:
            ``context``, ``(batch, [tgt_len,] value_dim)``, and
            ``attn_weights``, ``(batch, [tgt_len,] src_len)``.
        """
        query_steps, values, one_step = self._check_inputs(
            query, keys, values, mask, score_args
        )
        return softmax_and_sum(
            self._score(query_steps, keys, **score_args),
            values,
            mask,
            one_step,
        )

    def scores(
        self, query: Tensor, keys: Tensor, **score_args: Tensor
    ) -> Tensor:
        """The raw scores, before the mask and the softmax:
        ``(batch, [tgt_len,] src_len)``."""
        query_steps, _, one_step = self._check_inputs(
            query, keys, score_args=score_args
        )
        raw_scores = self._score(query_steps, keys, **score_args)
        return raw_scores.squeeze(1) if one_step else raw_scores

    def _check_inputs(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor | None = None,
        mask: Tensor | None = None,
        score_args: dict[str, Tensor] | None = None,
    ) -> tuple[Tensor, Tensor, bool]:
        """Check shapes, dtypes and the mask; return query as ``(batch,
        tgt_len, query_dim)``."""
        keys = _check_tensor("keys", keys)
        query = _check_tensor("query", query)
        if keys.dim() != 3 or (
            self.key_dim is not None and keys.shape[-1] != self.key_dim
        ):
            raise ValueError(
                "keys must have shape (batch, src_len, "
                f"{_dim('key_dim', self.key_dim)}), "
                f"got {tuple(keys.shape)}"
            )
        batch, src_len, key_dim = keys.shape
        query_dim = key_dim if self.query_dim is None else self.query_dim
        if query.dim() not in (2, 3) or query.shape[-1] != query_dim:
            same = (
                " (this score needs query_dim == key_dim)"
                if self.query_dim is None
                else ""
            )
            raise ValueError(
                f"query must have shape (batch, query_dim={query_dim}) or "
                f"(batch, tgt_len, query_dim={query_dim}){same}, got "
                f"{tuple(query.shape)}"
            )
        if query.shape[0] != batch:
            raise ValueError(
                "query and keys must have the same batch size: query has "
                f"shape {tuple(query.shape)} "
                f"(batch={query.shape[0]}), keys has shape "
                f"{tuple(keys.shape)} (batch={batch})"
            )
        if values is None:
            values = keys
        else:
            values = _check_tensor("values", values)
            if values.dim() != 3 or values.shape[:2] != keys.shape[:2]:
                raise ValueError(
                    f"values must have shape (batch={batch}, "
                    f"src_len={src_len}, value_dim) to match "
                    f"keys, got {tuple(values.shape)}"
                )
        if mask is not None:
            _check_mask_dtype(mask)
            if mask.shape != (batch, src_len):
                raise ValueError(
                    f"mask must have shape (batch={batch}, "
                    f"src_len={src_len}) with True = may attend, "
                    f"got {tuple(mask.shape)}"
                )
        self._check_dtype_and_device(query, keys, values, mask)
        self._check_score_args(keys, **(score_args or {}))
        one_step = query.dim() == 2
        return (
            (query.unsqueeze(1) if one_step else query),
            values,
            one_step,
        )

    def _check_dtype_and_device(
        self,
        query: Tensor,
        keys: Tensor,
        values: Tensor,
        mask: Tensor | None,
    ) -> None:
        parameter = self._first_parameter()
        reference_name, reference = (
            ("query", query)
            if parameter is None
            else ("the module's parameters", parameter)
        )
        dtype, device = reference.dtype, reference.device
        if (
            query.dtype == keys.dtype == values.dtype == dtype
            and query.device == keys.device == values.device == device
            and (mask is None or mask.device == device)
        ):
            return
        for name, tensor in (
            ("query", query),
            ("keys", keys),
            ("values", values),
            ("mask", mask),
        ):
            if tensor is None:
                continue
            if name != "mask" and tensor.dtype != dtype:
                raise TypeError(
                    f"{name} must have dtype {dtype} to match "
                    f"{reference_name}, got {tensor.dtype}; "
                    "convert one, e.g. attn.to(torch.float64) or "
                    "keys.to(query.dtype)"
                )
            if tensor.device != device:
                raise ValueError(
                    f"{name} must be on {device} to match "
                    f"{reference_name}, got {tensor.device}; "
                    "move them to one device"
                )

    def _first_parameter(self) -> Tensor | None:
        """The first parameter of the module or of a direct submodule;
        ``None`` if there is none.

        A plain loop, because ``next(self.parameters())`` walks the modules
        through generators, which costs more than the rest of the input
        checks together.
        """
        for module in (self, *self._modules.values()):
            if module is None:
                continue
            for parameter in module._parameters.values():
                if parameter is not None:
                    return parameter
        return None


def softmax_and_sum(
    raw_scores: Tensor, values: Tensor, mask: Tensor | None, one_step: bool
) -> tuple[Tensor, Tensor]:
    """Masked softmax over the source axis, then the weighted sum of
    the values."""
    if mask is None:
        # (batch, tgt_len, src_len)
        attn_weights = torch.softmax(raw_scores, dim=-1)
    else:
        attn_weights = _masked_softmax(
            raw_scores, mask.unsqueeze(1), dim=-1
        )  # mask: (batch, 1, src_len)
    # (batch, tgt_len, value_dim)
    context = torch.bmm(attn_weights, values)
    if one_step:
        return context.squeeze(1), attn_weights.squeeze(1)
    return context, attn_weights


def _check_projected_keys(
    projected_keys: object,
    expected: tuple[int, int, int],
    keys: Tensor,
    size_name: str = "attn_dim",
) -> None:
    if (
        not isinstance(projected_keys, Tensor)
        or tuple(projected_keys.shape) != expected
    ):
        got = (
            tuple(projected_keys.shape)
            if isinstance(projected_keys, Tensor)
            else type(projected_keys).__name__
        )
        raise ValueError(
            f"projected_keys must have shape (batch={expected[0]}, "
            f"src_len={expected[1]}, "
            f"{size_name}={expected[2]}) as returned by "
            f"attn.project_keys(keys), got {got}"
        )
    if projected_keys.dtype != keys.dtype:
        raise TypeError(
            f"projected_keys must have the dtype of keys ({keys.dtype}), "
            f"got {projected_keys.dtype}; "
            "compute it with attn.project_keys(keys) after moving the "
            "module and keys to one dtype"
        )
    if projected_keys.device != keys.device:
        raise ValueError(
            "projected_keys must be on the device of keys "
            f"({keys.device}), got {projected_keys.device}"
        )


class ScaledDotProductAttention(_Attention):
    r"""Scaled dot-product attention (Vaswani et al., 2017):
    :math:`q^\top k_j / \sqrt{d}`.

    No parameters. ``d`` is the key size; the query must have the same
    size. Dividing by :math:`\sqrt{d}` keeps the scores' spread near one
    for unit-variance inputs, so the softmax does not saturate.
    With the same mask it equals
    :func:`torch.nn.functional.scaled_dot_product_attention` on every row
    with at least one attendable position.
    A fully masked row gives zero weights and a zero context here;
    what SDPA returns for it depends on the PyTorch version and backend
    (NaN in older releases, zeros in newer ones).

    Shape:
        - query: ``(batch, d)`` or ``(batch, tgt_len, d)``;
          keys: ``(batch, src_len, d)``.
        - values: ``(batch, src_len, value_dim)``, default ``keys``.
        - mask: ``(batch, src_len)``, boolean, **True = may attend** (the
          opposite of ``nn.MultiheadAttention``'s ``key_padding_mask``).
        - outputs: context ``(batch, [tgt_len,] value_dim)``, attn_weights
          ``(batch, [tgt_len,] src_len)``.

    >>> attn = ScaledDotProductAttention()
    >>> query, keys = (
    ...     torch.randn(2, 3, 16),
    ...     torch.randn(2, 5, 16),
    ... )  # 3 queries, 5 keys of size d = 16
    >>> mask = torch.tensor([[True] * 5, [True] * 2 + [False] * 3])
    >>> context, attn_weights = attn(query, keys, mask=mask)
    >>> sdpa = torch.nn.functional.scaled_dot_product_attention(
    ...     query, keys, keys, attn_mask=mask.unsqueeze(1)
    ... )
    >>> torch.allclose(context, sdpa, atol=1e-6)
    True
    """

    def _score(self, query: Tensor, keys: Tensor) -> Tensor:
        return query @ keys.transpose(1, 2) / math.sqrt(keys.shape[-1])


def optional_dropout(probability: float) -> nn.Module:
    """Dropout (Srivastava et al., 2014) at ``probability`` while
    training, or, at 0, no module at all: a model without dropout then
    draws no random number and computes exactly what it computed before
    dropout existed, so that its recorded runs replay bit for bit."""
    return nn.Dropout(probability) if probability > 0 else nn.Identity()
