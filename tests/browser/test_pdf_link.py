"""The link to the PDF edition in every page's left sidebar (_templates/pdf-download.html).

`make pdf` and the publishing workflow put the PDF at the root of the HTML book; from every page,
however deep, the link must lead there.
"""

from __future__ import annotations

import posixpath
import re

import pytest
from book_browser import HTML_DIR
from book_config import toc_files

PDF_NAME = "attention-executed.pdf"  # _config.yml: latex.latex_documents.targetname, as .pdf
LINK = re.compile(r'<nav class="pdf-download"[^>]*>\s*<a href="([^"]+)"')


@pytest.mark.parametrize("page", toc_files())
def test_every_page_links_to_the_pdf_at_the_root_of_the_book(page):
    html = (HTML_DIR / f"{page}.html").read_text(encoding="utf-8")
    links = LINK.findall(html)
    assert len(links) == 1, f"{page}: {len(links)} links to the PDF in the sidebar"
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), links[0]))
    assert target == PDF_NAME, f"{page}: the PDF link leads to {target}, not {PDF_NAME}"
