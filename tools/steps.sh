#!/usr/bin/env bash
# Runs named steps one after another, stops at the first that fails, and ends with a table of each
# step's seconds and the total (also when a step failed). `make test` and `make quick` run through it.
# Beside the wall-clock seconds, the CPU seconds the machine's cores spent busy during the step (all of
# its processes, from /proc/stat; "-" where the system has none) and their ratio, the cores kept busy on
# average: a step near 1 runs one thing at a time, one near the core count computes on every core, and a
# step that ran beside a busy neighbour counts the neighbour too. (The step's own processes' CPU time
# would leave out most of the browser's: Chromium's page processes are not waited for by the step.)
set -uo pipefail
if [ $(($# % 2)) -ne 0 ] || [ $# -eq 0 ]; then
  echo "usage: tools/steps.sh NAME COMMAND [NAME COMMAND ...]" >&2
  exit 2
fi
# The busy time of all the machine's cores so far (user, nice, system, irq and softirq time in
# /proc/stat's first line), in clock ticks, into busy_cpu; empty where there is no /proc/stat.
ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
read_busy_cpu() {
  busy_cpu=""
  if [ -r /proc/stat ]; then
    local _cpu user nice system _idle _iowait irq softirq _rest
    read -r _cpu user nice system _idle _iowait irq softirq _rest </proc/stat
    busy_cpu=$((user + nice + system + irq + softirq))
  fi
}
names=()
seconds=()
cpu=()
status=0
start=$(date +%s)
read_busy_cpu
first_cpu=$busy_cpu
while [ $# -gt 0 ]; do
  name=$1 command=$2
  shift 2
  step_start=$(date +%s)
  read_busy_cpu
  cpu_start=$busy_cpu
  bash -c "$command"
  status=$?
  names+=("$name")
  seconds+=($(($(date +%s) - step_start)))
  read_busy_cpu
  cpu+=("${busy_cpu:+$(((busy_cpu - cpu_start) / ticks))}")
  if [ "$status" -ne 0 ]; then
    names[-1]="$name (FAILED, exit $status)"
    break
  fi
done
# cores: CPU seconds over seconds, one decimal ("-" for a step under a second, or no CPU seconds)
cores() { [ -n "$1" ] && [ "$2" -gt 0 ] && awk -v c="$1" -v s="$2" 'BEGIN { printf "%.1f", c / s }' || echo -; }
total_seconds=$(($(date +%s) - start))
read_busy_cpu
total_cpu=${busy_cpu:+$(((busy_cpu - first_cpu) / ticks))}
echo
printf '%-32s %8s %12s %6s\n' step seconds "CPU seconds" cores
for i in "${!names[@]}"; do
  printf '%-32s %8s %12s %6s\n' "${names[$i]}" "${seconds[$i]}" "${cpu[$i]:--}" "$(cores "${cpu[$i]}" "${seconds[$i]}")"
done
printf '%-32s %8s %12s %6s\n' total "$total_seconds" "${total_cpu:--}" "$(cores "$total_cpu" "$total_seconds")"
exit "$status"
