"""The real-sentences chapter's download path, against a real HTTP server on 127.0.0.1.

The chapter downloads the full Tatoeba archive where a GPU affords it and falls back to the shipped pairs
when the download fails with ``OSError`` or ``ValueError`` (the two errors its cell catches). A local
server plays the archive's host: it serves the archive in the real file's format (the PyTorch tutorial's
``data.zip`` with ``data/eng-fra.txt``), the same archive cut in half, a response that stops before its
announced length, a page that is not an archive, and a missing file. The whole one loads; each of the
others is one clear error of a kind the chapter catches, and leaves no file that a later run would trust.
"""

from __future__ import annotations

import http.server
import io
import threading
import zipfile
from collections.abc import Iterator

import pytest

from attnbook.nmt import download_tatoeba, load_tatoeba

PAIRS = "Go.\tVa !\nRun!\tCours\u202f!\nI am cold.\tJ'ai froid.\nHe is tall.\tIl est grand.\n"


def tutorial_archive() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("data/eng-fra.txt", PAIRS * 50)
        archive.writestr("data/eng-deu.txt", "Go.\tGeh.\n")
    return buffer.getvalue()


ARCHIVE = tutorial_archive()
ROUTES = {
    "/data.zip": (200, ARCHIVE, len(ARCHIVE)),
    "/cut.zip": (200, ARCHIVE[: len(ARCHIVE) // 2], len(ARCHIVE) // 2),  # a whole response of half a file
    "/stops.zip": (200, ARCHIVE[:100], len(ARCHIVE)),  # announces the whole length, sends 100 bytes
    "/page.html": (200, b"<!doctype html><title>Moved</title><p>The file has moved.</p>", None),
}


class Host(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path not in ROUTES:
            self.send_error(404)
            return
        status, body, length = ROUTES[self.path]
        self.send_response(status)
        self.send_header("Content-Length", str(length if length is not None else len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def host() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Host)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_the_whole_archive_downloads_unpacks_and_loads(host, tmp_path):
    path = download_tatoeba(tmp_path / "cache", url=f"{host}/data.zip")
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["eng-fra.txt"]
    corpus = load_tatoeba(path)
    assert len(corpus.pairs) == 200 and ("i", "am", "cold", ".") in {p.source for p in corpus.pairs}


@pytest.mark.parametrize(
    ("route", "message"),
    [
        ("/cut.zip", r"does not open .*cut short"),
        ("/stops.zip", r"stopped after 100 bytes \(cut short\)"),
        ("/page.html", r"not English<TAB>French lines"),
    ],
)
def test_a_broken_download_is_one_clear_error_the_chapter_catches_and_leaves_nothing(
    host, tmp_path, route, message
):
    with pytest.raises((OSError, ValueError), match=message) as caught:
        download_tatoeba(tmp_path / "cache", url=f"{host}{route}")
    assert isinstance(caught.value, ValueError)
    assert list((tmp_path / "cache").iterdir()) == []  # no partial file a later run would reuse
    assert download_tatoeba(tmp_path / "cache", url=f"{host}/data.zip").is_file()  # the next run starts clean


def test_a_missing_file_is_an_os_error_the_chapter_catches(host, tmp_path):
    with pytest.raises(OSError, match="404"):
        download_tatoeba(tmp_path / "cache", url=f"{host}/eng-fra.zip")
    assert not (tmp_path / "cache" / "eng-fra.txt").exists()
