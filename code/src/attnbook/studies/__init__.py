"""The book's studies: chapter 6's experiment, appendix B's bottleneck
study, chapter 1's capacity experiment, the running example, the runs on
real sentences, their records, and the replay of a record's first
steps."""

from attnbook.studies.bottleneck import (
    BottleneckStudy,
    format_study,
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
    run_experiment,
)
from attnbook.studies.grammar_notes import listing, share_phrase
from attnbook.studies.pieces import (
    run_pieces_experiment,
    words_in_several_pieces,
)
from attnbook.studies.published import PUBLISHED_BLEU
from attnbook.studies.real_notes import p_value_text, seed_sentence
from attnbook.studies.realcompare import (
    COMPARED_LABELS,
    RealComparison,
    comparison_model_config,
    format_comparison,
)
from attnbook.studies.realdata import (
    RealConfig,
    run_real_experiment,
)
from attnbook.studies.recipe import RecordedStart, build_translator
from attnbook.studies.recorded import (
    RecordedTranslations,
    recorded_config,
)
from attnbook.studies.replay import replay
from attnbook.studies.running_example import (
    RUNNING_PAIR,
    running_example,
)
from attnbook.studies.shipped import (
    grammar_baseline_config,
    packaged_grammar_baseline,
    packaged_grammar_translator,
    shipped_longest_source,
    write_grammar_baseline,
    write_grammar_translator,
    write_tatoeba_translator,
)
from attnbook.studies.units import (
    UnitsComparison,
    chapter_units_run,
    format_units_comparison,
    units_config,
)

__all__ = [
    "COMPARED_LABELS",
    "PUBLISHED_BLEU",
    "RUNNING_PAIR",
    "BottleneckStudy",
    "CapacityModel",
    "DataConfig",
    "ExperimentConfig",
    "ModelConfig",
    "RealComparison",
    "RealConfig",
    "RecordedStart",
    "RecordedTranslations",
    "UnitsComparison",
    "build_translator",
    "capacity_sweep",
    "chapter_units_run",
    "comparison_model_config",
    "format_comparison",
    "format_study",
    "format_units_comparison",
    "grammar_baseline_config",
    "listing",
    "p_value_text",
    "packaged_grammar_baseline",
    "packaged_grammar_translator",
    "recorded_config",
    "replay",
    "run_experiment",
    "run_pieces_experiment",
    "run_real_experiment",
    "running_example",
    "seed_sentence",
    "share_phrase",
    "shipped_longest_source",
    "study_config",
    "units_config",
    "words_in_several_pieces",
    "write_grammar_baseline",
    "write_grammar_translator",
    "write_tatoeba_translator",
]
