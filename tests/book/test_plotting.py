import subprocess
import sys

import numpy as np
import pytest
import torch
from matplotlib.patches import Rectangle

from attnbook import attention_heatmap, set_book_style


@pytest.fixture
def weights():
    return torch.softmax(torch.randn(3, 4), dim=-1)


def test_heatmap_puts_source_on_x_and_target_on_y(weights):
    ax = attention_heatmap(weights, ["a", "b", "c", "d"], ["x", "y", "z"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y", "z"]
    assert ax.get_xlabel() == "source" and ax.get_ylabel() == "target"


def test_heatmap_draws_the_weights_with_a_labelled_colour_bar(weights):
    ax = attention_heatmap(weights, list("abcd"), list("xyz"))
    mesh = ax.collections[0]
    np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(3, 4), weights.numpy(), rtol=1e-6)
    colorbar_axes = [other for other in ax.figure.axes if other is not ax]
    assert colorbar_axes and colorbar_axes[0].get_ylabel() == "attention weight"


def test_heatmap_uses_a_fixed_zero_to_one_scale_by_default(weights):
    mesh = attention_heatmap(weights, list("abcd"), list("xyz")).collections[0]
    assert mesh.get_clim() == (0.0, 1.0)


def test_heatmap_accepts_one_step_and_numbers_rows():
    ax = attention_heatmap(np.array([0.2, 0.8]), ["a", "b"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0"]


def test_heatmap_outlines_highlighted_cells(weights):
    ax = attention_heatmap(weights, list("abcd"), list("xyz"), highlight=[(0, 1), (2, 3)])
    boxes = [p for p in ax.patches if isinstance(p, Rectangle) and not p.get_fill()]
    assert sorted(box.get_xy() for box in boxes) == [(1, 0), (3, 2)]


def test_heatmap_draws_into_given_axes(weights):
    import matplotlib.pyplot as plt

    _, axes = plt.subplots(1, 2)
    assert attention_heatmap(weights, list("abcd"), list("xyz"), ax=axes[1], colorbar=False) is axes[1]


def test_heatmap_annotates_small_matrices_only():
    small = attention_heatmap(torch.full((2, 2), 0.5), ["a", "b"], ["x", "y"])
    assert [t.get_text() for t in small.texts] == ["0.50"] * 4
    large = attention_heatmap(torch.full((13, 13), 1 / 13), [str(i) for i in range(13)])
    assert len(large.texts) == 0


def test_label_count_mismatch_names_the_argument(weights):
    with pytest.raises(ValueError, match="src_tokens has 3 labels but weights have src_len=4"):
        attention_heatmap(weights, list("abc"), list("xyz"))
    with pytest.raises(ValueError, match="tgt_tokens has 2 labels but weights have tgt_len=3"):
        attention_heatmap(weights, list("abcd"), list("xy"))


def test_three_dimensional_weights_are_rejected():
    with pytest.raises(ValueError, match=r"weights must be 2-D .* got shape \(2, 3, 4\)"):
        attention_heatmap(torch.zeros(2, 3, 4), list("abcd"))


def test_highlight_outside_the_matrix_is_rejected(weights):
    with pytest.raises(ValueError, match="outside the 3 x 4 matrix"):
        attention_heatmap(weights, list("abcd"), list("xyz"), highlight=[(3, 0)])


def test_book_style_sets_the_figure_defaults():
    import matplotlib.pyplot as plt

    set_book_style()
    assert plt.rcParams["figure.dpi"] == 110
    assert plt.rcParams["axes.spines.top"] is False


def test_importing_the_package_loads_no_plotting_library_until_a_figure_is_drawn():
    probe = (
        "import sys, attnbook; loaded = lambda: sorted({'matplotlib', 'seaborn'} & set(sys.modules)); "
        "print(loaded()); attnbook.set_book_style(); print(loaded())"
    )
    lines = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert lines.split("\n")[:2] == ["[]", "['matplotlib', 'seaborn']"]


def test_bleu_scale_draws_published_ranges_unlike_the_books_bars():
    from attnbook.book import ScaleEntry, bleu_scale_figure

    ax = bleu_scale_figure(
        [
            ScaleEntry("ours", 30.0, 36.0),
            ScaleEntry("theirs", 47.0, 50.0, group="published"),
        ]
    )
    # one line per entry for the range, one for its end marks
    widths = {line.get_linewidth() for line in ax.get_lines()[::2]}
    markers = {line.get_marker() for line in ax.get_lines()[1::2]}
    assert len(widths) == 2 and markers == {"o", "|"}
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert any("every reference" in t for t in legend)
    assert any("range over models" in t for t in legend)


def test_bleu_scale_shows_every_budget_and_its_legend_covers_no_note():
    from attnbook.book import ScaleEntry, bleu_scale_figure

    entries = [
        ScaleEntry(f"model {i}", 5.0 + 9 * i, 8.0 + 9 * i, note="a test set", budget=f"{i} epochs")
        for i in range(10)
    ]
    ax = bleu_scale_figure([*entries, ScaleEntry("theirs", 47.0, 50.0, group="published", budget="1M pairs")])
    notes = [text for text in ax.texts]
    assert len(notes) == 11
    assert all(text.get_text().endswith(("epochs", "1M pairs")) for text in notes)
    assert any(text.get_text() == "5.0-8.0  a test set; 0 epochs" for text in notes)
    renderer = ax.figure.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    assert not any(legend.overlaps(text.get_window_extent(renderer)) for text in notes)
