#!/usr/bin/env bash
# Builds the HTML book with warnings as errors. A chapter is executed (in a temporary working directory,
# see _config.yml) only when the cache of executed chapters has no copy of it under the current
# fingerprint (tools/book_cache.py: the chapter's code, the package, the requirements, the installed
# versions); such chapters are executed first, several at a time (tools/execute_chapters.py). When a
# notebook fails, prints the traceback the build saved, with the notebook's name, and exits non-zero.
# Ends with a table of each chapter's execution time and where its outputs came from.
set -uo pipefail
cd "$(dirname "$0")/.."
export ATTNBOOK_TEXT_PROGRESS=1  # progress bars as text in the pages (attnbook/core/progress.py)
rm -rf _build/html/reports
start=$(date +%s)
flags=$(.venv/bin/python tools/book_cache.py prepare) || exit 1
# The chapters the cache lacks, executed on every core at once (tools/execute_chapters.py; BOOK_JOBS=N
# runs N at a time, BOOK_JOBS=1 leaves them to the build, one after another); any left, or failed, the
# build executes itself.
.venv/bin/python tools/execute_chapters.py --jobs "${BOOK_JOBS:-$(nproc)}" || exit 1
# shellcheck disable=SC2086  # $flags is empty or --all
.venv/bin/jupyter-book build . $flags -W -n --keep-going
status=$?
shopt -s nullglob globstar
logs=(_build/html/reports/**/*.err.log)
for log in "${logs[@]}"; do
  notebook=${log#_build/html/reports/}
  echo
  echo "=== the build could not execute ${notebook%.err.log}.ipynb; its traceback:"
  cat "$log"
done
[ "$status" -eq 0 ] && [ "${#logs[@]}" -gt 0 ] && status=1
.venv/bin/python tools/book_cache.py finish "$status"
if [ "$status" -ne 0 ]; then
  echo "=== book build FAILED (exit $status); see the warnings and tracebacks above" >&2
  exit 1
fi
echo "=== book built in $(( $(date +%s) - start )) s: open _build/html/index.html"
