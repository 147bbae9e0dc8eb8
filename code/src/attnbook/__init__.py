"""attnbook: the tested code behind the book *Attention, executed*.

Every chapter imports this package; it never redefines what lives here. The modules are small
enough to read in one sitting:

- :mod:`attnbook.runtime`: choosing a device and seeding every random generator.
- :mod:`attnbook.display`: showing the package's own source inside a chapter.
- :mod:`attnbook.plotting`: the book's figure style and token-labelled attention heatmaps.
"""

from attnbook.display import SourceListing, show_source
from attnbook.plotting import attention_heatmap, set_book_style
from attnbook.runtime import get_device, set_seed

__all__ = [
    "SourceListing",
    "attention_heatmap",
    "get_device",
    "set_book_style",
    "set_seed",
    "show_source",
]

__version__ = "0.1.0"
