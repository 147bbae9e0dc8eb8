#!/usr/bin/env bash
# Builds the HTML book with warnings as errors. Every chapter is executed, every time (in a temporary working
# directory, see _config.yml). When a notebook fails, prints the traceback the build saved, with
# the notebook's name, and exits non-zero.
set -uo pipefail
cd "$(dirname "$0")/.."
rm -rf _build/html/reports
start=$(date +%s)
.venv/bin/jupyter-book build . --all -W -n --keep-going  # --all: re-execute every chapter, always
status=$?
shopt -s nullglob globstar
logs=(_build/html/reports/**/*.err.log)
for log in "${logs[@]}"; do
  notebook=${log#_build/html/reports/}
  echo
  echo "=== the build could not execute ${notebook%.err.log}.ipynb; its traceback:"
  cat "$log"
done
if [ "$status" -ne 0 ] || [ "${#logs[@]}" -gt 0 ]; then
  echo "=== book build FAILED (exit $status); see the warnings and tracebacks above" >&2
  exit 1
fi
echo "=== book built in $(( $(date +%s) - start )) s: open _build/html/index.html"
