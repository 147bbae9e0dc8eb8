#!/usr/bin/env bash
# Runs named steps one after another, stops at the first that fails, and ends with a table of each
# step's seconds and the total (also when a step failed). `make test` and `make quick` run through it.
#
#   tools/steps.sh NAME COMMAND [NAME COMMAND ...]
set -uo pipefail
if [ $(($# % 2)) -ne 0 ] || [ $# -eq 0 ]; then
  echo "usage: tools/steps.sh NAME COMMAND [NAME COMMAND ...]" >&2
  exit 2
fi
names=()
seconds=()
status=0
start=$(date +%s)
while [ $# -gt 0 ]; do
  name=$1 command=$2
  shift 2
  step_start=$(date +%s)
  bash -c "$command"
  status=$?
  names+=("$name")
  seconds+=($(($(date +%s) - step_start)))
  if [ "$status" -ne 0 ]; then
    names[-1]="$name (FAILED, exit $status)"
    break
  fi
done
echo
printf '%-32s %8s\n' step seconds
for i in "${!names[@]}"; do
  printf '%-32s %8s\n' "${names[$i]}" "${seconds[$i]}"
done
printf '%-32s %8s\n' total $(($(date +%s) - start))
exit "$status"
