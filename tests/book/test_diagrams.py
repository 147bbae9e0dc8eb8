"""The step diagrams: each labels its symbols, stays inside its figure, and is drawn in the light and the
dark theme in different colours; show_diagram gives the web page both and the PDF the light one."""

from __future__ import annotations

import base64
import html

import pytest
from matplotlib.colors import to_rgb

from attnbook.book.diagrams import (
    DARK,
    DIAGRAMS,
    LIGHT,
    alt_text,
    bahdanau_step,
    dictionary_lookup,
    encoder_decoder_attention,
    local_weights,
    local_window,
    luong_step,
    show_diagram,
    transformer_layers,
)

EXPECTED_SYMBOLS = {
    encoder_decoder_attention: ["$h_1$", "$h_5$", "$s_{i-1}$", "$e_{i1}$", "$c_i$", "$s_i$", r"\alpha_{ij}"],
    bahdanau_step: [
        "$s_{i-1}$",
        "$W_a s_{i-1}$",
        "$U_a h_1$",
        r"$e_{ij} = v_a^\top \tanh(W_a s_{i-1} + U_a h_j)$",
        r"\alpha_{ij} h_j",
        r"f_{\mathrm{dec}}(s_{i-1}, y_{i-1}, c_i)",
    ],
    luong_step: [
        "$s_i$",
        "$h_1$",
        "$c_i$",
        r"\tilde{s}_i = \tanh(W_c [c_i; s_i])",
        r"\mathrm{softmax}(W_o \tilde{s}_i)",
    ],
    local_window: ["$p_i$", "$p_i - D$", "$p_i + D$", "sd $D/2$", "Gaussian factor"],
    dictionary_lookup: ["$q$", "cheese", "$v_1$", "$c$", "1[q = k_j]", r"e_j = q^\top k_j"],
    transformer_layers: [
        "encoder layer",
        "decoder layer",
        "self-attention",
        "cross-attention",
        "feed-forward",
        "LayerNorm",
        "causal mask",
        "$h_j$",
        "keys, values",
        r"x + \mathrm{sublayer}(\mathrm{LayerNorm}(x))",
    ],
}


def texts(figure) -> list[str]:
    return [text.get_text() for text in figure.findobj(lambda artist: hasattr(artist, "get_text"))]


def test_every_diagram_is_tested():
    assert set(EXPECTED_SYMBOLS) == set(DIAGRAMS)


@pytest.mark.parametrize("draw", DIAGRAMS, ids=lambda draw: draw.__name__)
def test_diagram_labels_its_symbols(draw):
    shown = " ".join(texts(draw(LIGHT)))
    for symbol in EXPECTED_SYMBOLS[draw]:
        assert symbol in shown, f"{draw.__name__} has no label with {symbol!r}"


@pytest.mark.parametrize("draw", DIAGRAMS, ids=lambda draw: draw.__name__)
def test_no_label_crosses_the_figure_edge(draw):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = draw(LIGHT)
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    edge = figure.bbox
    for text in figure.findobj(
        lambda artist: hasattr(artist, "get_window_extent") and hasattr(artist, "get_text")
    ):
        if not text.get_text() or not text.get_visible():
            continue
        box = text.get_window_extent(renderer)
        assert edge.x0 <= box.x0 and box.x1 <= edge.x1 and edge.y0 <= box.y0 and box.y1 <= edge.y1, (
            f"{draw.__name__}: {text.get_text()!r} crosses the figure's edge ({box} outside {edge})"
        )


@pytest.mark.parametrize("draw", DIAGRAMS, ids=lambda draw: draw.__name__)
def test_light_and_dark_versions_differ_in_colour(draw):
    light, dark = draw(LIGHT), draw(DARK)
    assert to_rgb(light.get_facecolor()) == to_rgb(LIGHT.background)
    assert to_rgb(dark.get_facecolor()) == to_rgb(DARK.background)
    light_ink = {to_rgb(text.get_color()) for text in light.findobj(lambda a: hasattr(a, "get_text"))}
    dark_ink = {to_rgb(text.get_color()) for text in dark.findobj(lambda a: hasattr(a, "get_text"))}
    assert to_rgb(LIGHT.ink) in light_ink and to_rgb(DARK.ink) in dark_ink
    assert to_rgb(DARK.ink) not in light_ink and to_rgb(LIGHT.ink) not in dark_ink


@pytest.mark.parametrize("draw", DIAGRAMS, ids=lambda draw: draw.__name__)
def test_alt_text_is_a_sentence_of_the_docstring(draw):
    alt = alt_text(draw)
    assert len(alt.split()) >= 15 and alt.endswith(".") and "\n" not in alt


def test_show_diagram_gives_the_page_both_themes_and_the_pdf_the_light_one():
    image = show_diagram(bahdanau_step)
    bundle = image._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/png"}
    page = bundle["text/html"]
    assert 'class="only-light"' in page and 'class="only-dark"' in page
    assert page.count(f'alt="{html.escape(alt_text(bahdanau_step), quote=True)}"') == 2
    assert base64.b64decode(bundle["image/png"]) == image.light
    assert image.light.startswith(b"\x89PNG") and image.dark.startswith(b"\x89PNG")
    assert image.light != image.dark
    # outside the theme (Jupyter, Colab) the dark picture stays hidden
    assert ".attnbook-diagram img.only-dark { display: none; }" in page


def test_local_weights_are_zero_outside_the_window_and_follow_the_gaussian():
    scores = [0.0] * 9
    weights = local_weights(scores, centre=5.0, half_width=2)
    assert weights[:2] == [0.0, 0.0] and weights[7:] == [0.0, 0.0]
    inside = weights[2:7]
    # equal scores: the softmax is uniform (1/5), times exp(-(j - p)^2 / (2 (D/2)^2))
    assert inside[2] == pytest.approx(1 / 5)
    assert inside[1] == pytest.approx(inside[3]) == pytest.approx(0.2 * 2.718281828**-0.5)
    assert sum(weights) < 1


def contrast(foreground, background) -> float:
    """The WCAG contrast ratio of two colours."""

    def luminance(colour) -> float:
        channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in to_rgb(colour)]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]

    lighter, darker = sorted([luminance(foreground), luminance(background)], reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda theme: theme.name)
@pytest.mark.parametrize("draw", DIAGRAMS, ids=lambda draw: draw.__name__)
def test_every_label_is_readable_on_its_theme(draw, theme):
    # WCAG AA for normal text: 4.5:1 against the page (a box's tint is close to the page's colour)
    for text in draw(theme).findobj(lambda artist: hasattr(artist, "get_text")):
        if text.get_text().strip():
            ratio = contrast(text.get_color(), theme.background)
            assert ratio >= 4.5, (
                f"{draw.__name__}: {text.get_text()!r} has contrast {ratio:.2f} in {theme.name}"
            )


def test_the_layer_diagram_has_a_norm_and_a_sum_per_sublayer_and_a_lower_triangular_mask():
    from matplotlib.patches import Rectangle

    shown = texts(transformer_layers(LIGHT))
    # two sublayers in the encoder layer, three in the decoder layer
    assert shown.count("LayerNorm") == 5 and shown.count("+") == 5
    assert shown.count("self-attention") == 2
    cells = [
        patch
        for patch in transformer_layers(LIGHT).axes[0].patches
        if isinstance(patch, Rectangle) and patch.get_width() < 0.5
    ]
    filled = [to_rgb(cell.get_facecolor()) == to_rgb(LIGHT.query) for cell in cells]
    # 4 x 4 cells, of which the 10 on and below the diagonal may attend
    assert len(cells) == 16 and sum(filled) == 10
