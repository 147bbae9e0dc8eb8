"""The keys of the JSON that ``python -m attnbook train --json`` prints last (``Experiment.summary()``):
a public interface, so the CLI's and the training module's tests pin them."""

REQUIRED_SUMMARY_KEYS = frozenset(
    {
        "exact_match",
        "token_accuracy",
        "bleu",
        "alignment_accuracy",
        "alignment_by_category",
        "exact_match_by_length",
        "train_seconds",
        "device",
        "attention",
    }
)
