"""Contracts the issues fix, shared by the tests that pin them."""

# What issue 5 fixes as the contract of `python -m attnbook train --json` and of ExperimentResult.summary().
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
