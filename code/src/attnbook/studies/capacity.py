"""The bottleneck, trained: copy a sequence of random symbols through three
ways of handing it over.

An encoder GRU of size :math:`d_h` reads ``length`` random symbols;
a decoder GRU of the same size writes them back (the *copy* task)
or writes them back in reverse order (the *reverse* task).
The models differ only in what the decoder receives from the source at step
``i``, the context :math:`c_i`:

- ``"final"``: the encoder's final state, :math:`c_i = h_S` (the plain
  encoder-decoder);
- ``"mean"``: the mean of the encoder states, :math:`c_i = \\frac1S \\sum_j
  h_j`, also :math:`d_h` numbers, but one to which every position
  contributes directly;
- ``"attention"``: a different average at every step, :math:`c_i = \\sum_j
  \\alpha_{ij} h_j`, with Luong's dot score between the decoder state
  :math:`s_i` and each :math:`h_j` (no extra parameters, so the three
  models have exactly the same number of parameters).

Each decoder starts from :math:`s_0 = \\tanh(W_s c)` (the final state for
``"attention"``), reads the previous symbol, and predicts from Luong's
attentional state :math:`\\tanh(W_c [c_i; s_i])`.
The random symbols carry no pattern, so the decoder must get every symbol
from the source through :math:`c_i`: as the length grows, a fixed-size
summary has to hold more and more of them, while attention reads one
position at a time.

>>> result = train_and_score(
...     "attention", length=4, steps=20, hidden_dim=16, eval_size=32
... )
>>> result.summary, result.length, 0.0 <= result.token_accuracy <= 1.0
('attention', 4, True)
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import torch
from torch import Tensor, nn

from attnbook.core.progress import tqdm
from attnbook.core.runtime import get_device, one_thread, set_seed
from attnbook.layers.luong import LuongAttention

SUMMARIES = ("final", "mean", "attention")
"""The three ways of handing the source to the decoder."""

TASKS = ("copy", "reverse")
"""``copy`` writes the symbols back in order;
``reverse`` writes them back last first."""

SOS_ID = 0
"""The start symbol the decoder reads at step 1;
the task's symbols are ``1 ... num_symbols``."""


def _check_positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return value


def _check_choice(
    name: str, value: object, choices: tuple[str, ...]
) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value  # type: ignore[return-value]


def copy_batch(
    batch_size: int,
    length: int,
    num_symbols: int,
    *,
    task: str = "copy",
    generator: torch.Generator | None = None,
    device: torch.device | str = "cpu",
) -> tuple[Tensor, Tensor, Tensor]:
    """A batch of random symbol sequences and their targets, ready for
    teacher forcing.

    Args:
        batch_size: the number of sequences.
        length: the number of symbols in each sequence, ``S`` (the target
            has the same length).
        num_symbols: the size of the alphabet;
            symbols are ``1 ... num_symbols`` (0 is ``<sos>``).
        task: ``"copy"`` (target = source) or ``"reverse"`` (target =
            source, last symbol first).
        generator: a CPU generator for repeatable draws;
            ``None`` uses torch's global one.
        device: where the returned tensors live.

    Returns:
        ``(src, tgt_in, tgt_out)``: the source, the decoder's input
        (``<sos>`` then the target shifted right by one) and the target,
        all ``(batch_size, length)`` ``int64``.

    Raises:
        ValueError: a size is not a positive int, or ``task`` is unknown.

    >>> src, tgt_in, tgt_out = copy_batch(
    ...     2,
    ...     5,
    ...     10,
    ...     task="reverse",
    ...     generator=torch.Generator().manual_seed(0),
    ... )
    >>> (
    ...     src.shape,
    ...     bool((tgt_out == src.flip(1)).all()),
    ...     tgt_in[:, 0].tolist(),
    ... )
    (torch.Size([2, 5]), True, [0, 0])
    """
    for name, value in (
        ("batch_size", batch_size),
        ("length", length),
        ("num_symbols", num_symbols),
    ):
        _check_positive(name, value)
    _check_choice("task", task, TASKS)
    src = torch.randint(
        1, num_symbols + 1, (batch_size, length), generator=generator
    ).to(device)
    tgt_out = src if task == "copy" else src.flip(1)
    sos = torch.full(
        (batch_size, 1), SOS_ID, dtype=src.dtype, device=src.device
    )
    return src, torch.cat([sos, tgt_out[:, :-1]], dim=1), tgt_out


class CapacityModel(nn.Module):
    """A GRU encoder-decoder whose decoder sees the source only through one
    of :data:`SUMMARIES`.

    Args:
        num_symbols: the alphabet size (the vocabulary is
            ``num_symbols + 1`` with ``<sos>``).
        hidden_dim: :math:`d_h`, the size of every encoder and
            decoder state.
        summary: ``"final"``, ``"mean"`` or ``"attention"``.
        emb_dim: the symbol embedding size; ``None`` means ``hidden_dim``.

    Shape:
        - src, tgt_in: ``(batch, src_len)`` and ``(batch, tgt_len)``
          symbol ids.
        - encoder states: ``(batch, src_len, hidden_dim)``.
        - logits: ``(batch, tgt_len, num_symbols + 1)``;
          attention weights ``(batch, tgt_len, src_len)``.

    >>> model = CapacityModel(
    ...     num_symbols=10, hidden_dim=16, summary="mean"
    ... )
    >>> src, tgt_in, _ = copy_batch(3, 7, 10)
    >>> model(src, tgt_in).shape
    torch.Size([3, 7, 11])
    """

    def __init__(
        self,
        num_symbols: int,
        hidden_dim: int,
        summary: str,
        emb_dim: int | None = None,
    ) -> None:
        super().__init__()
        _check_positive("num_symbols", num_symbols)
        _check_positive("hidden_dim", hidden_dim)
        emb_dim = (
            hidden_dim
            if emb_dim is None
            else _check_positive("emb_dim", emb_dim)
        )
        self.summary = _check_choice("summary", summary, SUMMARIES)
        self.num_symbols, self.hidden_dim = num_symbols, hidden_dim
        self.src_embedding = nn.Embedding(num_symbols + 1, emb_dim)
        self.tgt_embedding = nn.Embedding(num_symbols + 1, emb_dim)
        # h_j = f(h_{j-1}, x_j)
        self.encoder = nn.GRU(emb_dim, hidden_dim, batch_first=True)
        # s_i = g(s_{i-1}, y_{i-1})
        self.decoder = nn.GRU(emb_dim, hidden_dim, batch_first=True)
        # s_0 = tanh(W_s c)
        self.bridge = nn.Linear(hidden_dim, hidden_dim)
        self.attention = LuongAttention(
            hidden_dim, hidden_dim, score="dot"
        )  # no parameters
        # W_c in tanh(W_c [c_i; s_i])
        self.combine = nn.Linear(2 * hidden_dim, hidden_dim)
        self.out = nn.Linear(hidden_dim, num_symbols + 1)

    def encode(self, src: Tensor) -> Tensor:
        """The encoder states :math:`h_1 \\dots h_S`:
        ``(batch, src_len, hidden_dim)``."""
        if (
            not isinstance(src, Tensor)
            or src.dim() != 2
            or src.dtype != torch.int64
        ):
            got = (
                f"{src.dtype} {tuple(src.shape)}"
                if isinstance(src, Tensor)
                else type(src).__name__
            )
            raise ValueError(
                "src must be an int64 tensor of shape (batch, src_len), "
                f"got {got}"
            )
        return self.encoder(self.src_embedding(src))[0]

    def summarise(self, states: Tensor) -> Tensor:
        """The fixed-size summary :math:`c` that starts the decoder:
        ``(batch, hidden_dim)``.

        ``"mean"`` averages every state; ``"final"`` and ``"attention"``
        take the last one, :math:`h_S`.
        """
        return (
            states.mean(dim=1) if self.summary == "mean" else states[:, -1]
        )

    def decode(
        self, states: Tensor, tgt_in: Tensor, hidden: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """Run the decoder over ``tgt_in`` (all steps at once under teacher
        forcing, or one step).

        Args:
            states: the encoder states ``(batch, src_len, hidden_dim)``.
            tgt_in: the previous symbols ``(batch, tgt_len)``.
            hidden: the decoder state to continue from,
                ``(1, batch, hidden_dim)``; ``None`` starts from :math:`s_0
                = \\tanh(W_s c)`.

        Returns:
            ``(logits, hidden, weights)``: ``(batch, tgt_len, num_symbols +
            1)``, the last decoder state ``(1, batch, hidden_dim)``,
            and the attention weights ``(batch, tgt_len, src_len)``
            (``None`` unless ``summary == "attention"``).
        """
        summary = self.summarise(states)  # (batch, hidden_dim)
        if hidden is None:
            # (1, batch, hidden_dim)
            hidden = torch.tanh(self.bridge(summary)).unsqueeze(0)
        decoder_states, hidden = self.decoder(
            self.tgt_embedding(tgt_in), hidden
        )  # (batch, tgt_len, d_h)
        weights = None
        if self.summary == "attention":
            # query: the current state s_i
            context, weights = self.attention(decoder_states, states)
        else:
            # the same c at every step
            context = summary.unsqueeze(1).expand_as(decoder_states)
        attentional = torch.tanh(
            self.combine(torch.cat([context, decoder_states], dim=-1))
        )
        return self.out(attentional), hidden, weights

    def forward(self, src: Tensor, tgt_in: Tensor) -> Tensor:
        """Teacher-forced logits ``(batch, tgt_len, num_symbols + 1)``."""
        return self.decode(self.encode(src), tgt_in)[0]

    @torch.no_grad()
    def greedy(self, src: Tensor, tgt_len: int) -> Tensor:
        """Write ``tgt_len`` symbols, each step reading the model's own
        previous symbol: ``(batch, tgt_len)``."""
        states = self.encode(src)
        prev = torch.full(
            (src.shape[0], 1), SOS_ID, dtype=torch.int64, device=src.device
        )
        hidden, written = None, []
        for _ in range(tgt_len):
            logits, hidden, _ = self.decode(states, prev, hidden)
            prev = logits[:, :, 1:].argmax(dim=-1) + 1  # never write <sos>
            written.append(prev)
        return torch.cat(written, dim=1)


@dataclass(frozen=True)
class CapacityResult:
    """One trained model of the capacity experiment, scored on fresh
    random sequences.

    Attributes:
        summary: how the source reached the decoder (one of
            :data:`SUMMARIES`).
        task: ``"copy"`` or ``"reverse"``.
        length: the number of symbols per sequence.
        hidden_dim: :math:`d_h`.
        num_symbols: the alphabet size; chance accuracy is
            ``1 / num_symbols``.
        seed: the seed of the initial weights and of the
            training sequences.
        steps: the number of training steps (Adam, one batch each).
        token_accuracy: the fraction of symbols written correctly by
            greedy decoding.
        sequence_accuracy: the fraction of sequences written
            entirely correctly.
        final_loss: the training loss (cross-entropy, nats per symbol)
            over the last tenth of the steps.
        train_seconds: the wall-clock time of training, in seconds.
        device: where it ran.
    """

    summary: str
    task: str
    length: int
    hidden_dim: int
    num_symbols: int
    seed: int
    steps: int
    token_accuracy: float
    sequence_accuracy: float
    final_loss: float
    train_seconds: float
    device: str

    def to_dict(self) -> dict[str, int | float | str]:
        """The result as a plain dict (for JSON or a table)."""
        return asdict(self)


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def train_and_score(
    summary: str,
    length: int,
    *,
    task: str = "copy",
    hidden_dim: int = 32,
    num_symbols: int = 10,
    steps: int = 300,
    batch_size: int = 64,
    learning_rate: float = 1e-2,
    seed: int = 0,
    eval_size: int = 500,
    device: torch.device | str | None = None,
) -> CapacityResult:
    """Train one :class:`CapacityModel` for a fixed number of steps and
    score it on fresh sequences.

    Every step draws a new batch; the scored sequences are a separate draw
    (seed ``seed + 1_000_003``) from the same distribution.
    There are only ``num_symbols ** length`` sequences, so at short lengths
    some scored sequences also occur among the training draws.
    The budget is a number of steps, not seconds, so the result does not
    depend on the machine's load.

    Args:
        summary: ``"final"``, ``"mean"`` or ``"attention"``.
        length: the number of symbols per sequence.
        task: ``"copy"`` or ``"reverse"``.
        hidden_dim: :math:`d_h`.
        num_symbols: the alphabet size.
        steps: the number of Adam steps.
        batch_size: sequences per step.
        learning_rate: Adam's step size.
        seed: seeds the weights and the training sequences.
        eval_size: the number of scored sequences.
        device: ``None`` picks one with :func:`attnbook.get_device`.

    Returns:
        A :class:`CapacityResult`.

    Raises:
        ValueError: an unknown ``summary`` or ``task``, or a size that is
            not a positive int.
    """
    _check_choice("summary", summary, SUMMARIES)
    _check_choice("task", task, TASKS)
    for name, value in (
        ("length", length),
        ("steps", steps),
        ("batch_size", batch_size),
        ("eval_size", eval_size),
    ):
        _check_positive(name, value)
    device = get_device() if device is None else torch.device(device)
    set_seed(seed)
    model = CapacityModel(num_symbols, hidden_dim, summary).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    train_generator = torch.Generator().manual_seed(seed)
    losses = []
    _synchronize(device)
    start = time.perf_counter()
    for _ in range(steps):
        src, tgt_in, tgt_out = copy_batch(
            batch_size,
            length,
            num_symbols,
            task=task,
            generator=train_generator,
            device=device,
        )
        logits = model(src, tgt_in)
        loss = nn.functional.cross_entropy(
            logits.flatten(0, 1), tgt_out.flatten()
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.detach())
    _synchronize(device)
    train_seconds = time.perf_counter() - start
    tail = max(steps // 10, 1)
    final_loss = torch.stack(losses[-tail:]).mean().item()
    model.eval()
    eval_generator = torch.Generator().manual_seed(seed + 1_000_003)
    src, _, tgt_out = copy_batch(
        eval_size,
        length,
        num_symbols,
        task=task,
        generator=eval_generator,
        device=device,
    )
    correct = model.greedy(src, length) == tgt_out
    return CapacityResult(
        summary=summary,
        task=task,
        length=length,
        hidden_dim=hidden_dim,
        num_symbols=num_symbols,
        seed=seed,
        steps=steps,
        token_accuracy=correct.float().mean().item(),
        sequence_accuracy=correct.all(dim=1).float().mean().item(),
        final_loss=final_loss,
        train_seconds=train_seconds,
        device=str(device),
    )


def capacity_sweep(
    lengths: Sequence[int],
    *,
    summaries: Sequence[str] = SUMMARIES,
    seeds: Sequence[int] = (0,),
    progress: bool = True,
    **settings: object,
) -> list[CapacityResult]:
    """Run :func:`train_and_score` for every summary, length and seed.

    Args:
        lengths: the sequence lengths to train at.
        summaries: the ways of handing over the source to compare.
        seeds: one trained model per seed.
        progress: show a progress bar
            (:func:`attnbook.core.progress.tqdm`).
        **settings: passed on to :func:`train_and_score` (``hidden_dim``,
            ``steps``, ``task``, ...).

    Every model trains on one CPU thread
    (:func:`~attnbook.core.runtime.one_thread`).

    Returns:
        One :class:`CapacityResult` per (seed, length, summary),
        in that order.
    """
    runs: Iterable[tuple[int, int, str]] = [
        (seed, length, summary)
        for seed in seeds
        for length in lengths
        for summary in summaries
    ]
    if progress:
        runs = tqdm(runs, desc="capacity")
    with one_thread():  # small models: see one_thread
        return [
            train_and_score(  # type: ignore[arg-type]
                summary,
                length,
                seed=seed,
                **settings,
            )
            for seed, length, summary in runs
        ]
