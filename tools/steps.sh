#!/usr/bin/env bash
# Runs named steps one after another, stops at the first that fails, and ends with a table of each
# step's seconds and the total (also when a step failed). `make test` and `make quick` run through it.
# Beside the wall-clock seconds, the CPU seconds (user and system) of the step's processes and their
# ratio, the cores it kept busy on average: a step with a low ratio waits, one near the core count
# computes, so a noisy machine shows in the seconds more than in the CPU seconds.
#
#   tools/steps.sh NAME COMMAND [NAME COMMAND ...]
set -uo pipefail
if [ $(($# % 2)) -ne 0 ] || [ $# -eq 0 ]; then
  echo "usage: tools/steps.sh NAME COMMAND [NAME COMMAND ...]" >&2
  exit 2
fi
# The CPU seconds, user and system, of every process this shell has waited for so far: bash's `times`,
# run in this shell (in a subshell it would count the subshell's own children), into children_cpu.
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
read_children_cpu() {
  times >"$times_file"
  children_cpu=$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$times_file")
}
names=()
seconds=()
cpu=()
status=0
start=$(date +%s)
while [ $# -gt 0 ]; do
  name=$1 command=$2
  shift 2
  step_start=$(date +%s)
  read_children_cpu
  cpu_start=$children_cpu
  bash -c "$command"
  status=$?
  names+=("$name")
  seconds+=($(($(date +%s) - step_start)))
  read_children_cpu
  cpu+=($((children_cpu - cpu_start)))
  if [ "$status" -ne 0 ]; then
    names[-1]="$name (FAILED, exit $status)"
    break
  fi
done
# cores: CPU seconds over seconds, one decimal (a step under a second shows none)
cores() { [ "$2" -gt 0 ] && awk -v c="$1" -v s="$2" 'BEGIN { printf "%.1f", c / s }' || echo -; }
total_seconds=$(($(date +%s) - start))
read_children_cpu
total_cpu=$children_cpu
echo
printf '%-32s %8s %12s %6s\n' step seconds "CPU seconds" cores
for i in "${!names[@]}"; do
  printf '%-32s %8s %12s %6s\n' "${names[$i]}" "${seconds[$i]}" "${cpu[$i]}" "$(cores "${cpu[$i]}" "${seconds[$i]}")"
done
printf '%-32s %8s %12s %6s\n' total "$total_seconds" "$total_cpu" "$(cores "$total_cpu" "$total_seconds")"
exit "$status"
