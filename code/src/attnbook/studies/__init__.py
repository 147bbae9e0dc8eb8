"""The book's studies: chapter 6's experiment and bottleneck study,
chapter 1's capacity experiment, the running example, and the run on
real sentences."""

from attnbook.studies.bottleneck import (
    format_study,
    packaged_study,
    retrain_start,
    study_config,
)
from attnbook.studies.capacity import (
    CapacityModel,
    capacity_sweep,
)
from attnbook.studies.experiment import (
    DataConfig,
    ExperimentConfig,
    ModelConfig,
    build_translator,
    run_experiment,
)
from attnbook.studies.pieces import (
    chapter_units_run,
    format_units_comparison,
    packaged_units_comparison,
    retrain_pieces_start,
    run_pieces_experiment,
    units_config,
    words_in_several_pieces,
)
from attnbook.studies.realcompare import (
    COMPARED_LABELS,
    PUBLISHED_BLEU,
    comparison_model_config,
    format_comparison,
    packaged_comparison,
    retrain_comparison_start,
)
from attnbook.studies.realdata import (
    RealConfig,
    run_real_experiment,
)
from attnbook.studies.recorded import (
    packaged_recorded_run,
    recorded_config,
    retrain_recorded_start,
)
from attnbook.studies.running_example import (
    RUNNING_PAIR,
    held_out_pairs,
    running_example,
)
from attnbook.studies.shipped import (
    grammar_baseline_config,
    packaged_grammar_baseline,
    train_grammar_translator,
    write_grammar_baseline,
    write_grammar_translator,
)

__all__ = [
    "COMPARED_LABELS",
    "PUBLISHED_BLEU",
    "RUNNING_PAIR",
    "CapacityModel",
    "DataConfig",
    "ExperimentConfig",
    "ModelConfig",
    "RealConfig",
    "build_translator",
    "capacity_sweep",
    "chapter_units_run",
    "comparison_model_config",
    "format_comparison",
    "format_study",
    "format_units_comparison",
    "grammar_baseline_config",
    "held_out_pairs",
    "packaged_comparison",
    "packaged_grammar_baseline",
    "packaged_recorded_run",
    "packaged_study",
    "packaged_units_comparison",
    "recorded_config",
    "retrain_comparison_start",
    "retrain_pieces_start",
    "retrain_recorded_start",
    "retrain_start",
    "run_experiment",
    "run_pieces_experiment",
    "run_real_experiment",
    "running_example",
    "study_config",
    "train_grammar_translator",
    "units_config",
    "words_in_several_pieces",
    "write_grammar_baseline",
    "write_grammar_translator",
]
