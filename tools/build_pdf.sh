#!/usr/bin/env bash
# Builds the book with one of Jupyter Book's LaTeX builders, warnings as errors, from the same cache of
# executed chapters as the HTML book (tools/book_cache.py; a chapter missing from the cache is executed).
#
#   tools/build_pdf.sh          # the PDF edition: _build/latex/attention-executed.pdf (needs TeX Live,
#                               # see tools/install_tex.sh), copied beside the HTML book when it is built
#   tools/build_pdf.sh latex    # only the LaTeX sources, _build/latex/*.tex (no TeX needed; `make test`)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
export ATTNBOOK_TEXT_PROGRESS=1  # progress bars as text, as in the HTML book
builder="${1:-pdflatex}"
case "$builder" in
  pdflatex | latex) ;;
  *) echo "usage: tools/build_pdf.sh [pdflatex|latex]" >&2; exit 2 ;;
esac
name=attention-executed  # _config.yml: latex.latex_documents.targetname
start=$(date +%s)
rm -rf _build/latex/reports _build/html/reports
flags=$(.venv/bin/python tools/book_cache.py prepare) || exit 1
# shellcheck disable=SC2086  # $flags is empty or --all
.venv/bin/jupyter-book build . --builder "$builder" $flags -W -n --keep-going
status=$?
shopt -s nullglob globstar
logs=(_build/latex/reports/**/*.err.log _build/html/reports/**/*.err.log)
for log in "${logs[@]}"; do
  notebook=${log#_build/*/reports/}
  echo
  echo "=== the build could not execute ${notebook%.err.log}.ipynb; its traceback:"
  cat "$log"
done
[ "$status" -eq 0 ] && [ "${#logs[@]}" -gt 0 ] && status=1
if [ "$status" -eq 0 ] && [ "$builder" = pdflatex ]; then
  if [ ! -s "_build/latex/$name.pdf" ]; then
    echo "=== XeLaTeX wrote no _build/latex/$name.pdf; see _build/latex/$name.log" >&2
    status=1
  # The last XeLaTeX pass: a reference or citation it could not resolve prints as "??" in the PDF.
  elif grep -E "undefined references|Reference .* undefined|Citation .* undefined" "_build/latex/$name.log"; then
    echo "=== the PDF has unresolved references or citations (above; in _build/latex/$name.log)" >&2
    status=1
  fi
fi
.venv/bin/python tools/book_cache.py finish "$status"
if [ "$status" -ne 0 ]; then
  echo "=== $builder build FAILED (exit $status); see the warnings and tracebacks above" >&2
  exit 1
fi
if [ "$builder" = latex ]; then
  echo "=== LaTeX sources written in $(($(date +%s) - start)) s: _build/latex/$name.tex"
  exit 0
fi
# The HTML book links to the PDF beside its pages (intro.md); put it there when the HTML book is built.
if [ -d _build/html ]; then
  cp "_build/latex/$name.pdf" "_build/html/$name.pdf"
fi
# An output that has HTML but no picture beside it prints as its plain-text repr in the PDF: an
# IPython HTML object, or one of the book's widgets (attnbook.book.widgets) as `Widget(name=...)`.
placeholders=$(pdftotext "_build/latex/$name.pdf" - 2>/dev/null |
  grep -cE "<IPython\.core\.display\.HTML object>|Widget\(name=" || true)
if [ "${placeholders:-0}" -gt 0 ]; then
  echo "=== warning: $placeholders outputs have HTML but no static picture; the PDF prints their text" \
    "(pdftotext _build/latex/$name.pdf - | grep -E 'HTML object>|Widget\(name=')"
fi
pages=$(pdfinfo "_build/latex/$name.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
echo "=== PDF built in $(($(date +%s) - start)) s: _build/latex/$name.pdf (${pages:-?} pages," \
  "$(du -h "_build/latex/$name.pdf" | cut -f1))"
