#!/usr/bin/env bash
# Runs one test command as N processes side by side, which share out the
# test files as each becomes free (tools/run-tests.R --part=K/N), so that
# the long CI steps use both cores:
#
#   tools/run-parts.sh N LABEL LOGDIR command [args...]
#
# Every "@K@" in the arguments becomes the part's number (a log file of its
# own, say); "--part=K/N" is appended, and DPSCO_PART_CLAIMS names the
# directory (fresh for each run) where the parts claim the test files one
# at a time as each becomes free.  Each part writes LOGDIR/part-K.log; the
# logs are printed in order, then one line "LABEL: P passed, F failed, S
# skipped" summing the parts' own closing lines.  Exits 1 when a part
# failed or printed no closing line, or when no test passed.
set -uo pipefail
n=$1 label=$2 logdir=$3
shift 3
mkdir -p "$logdir"
export DPSCO_PART_CLAIMS="$logdir/claims"
rm -rf "$DPSCO_PART_CLAIMS"
mkdir -p "$DPSCO_PART_CLAIMS"
pids=()
for ((k = 1; k <= n; k++)); do
  args=()
  for a in "$@"; do args+=("${a//@K@/$k}"); done
  "${args[@]}" --part="$k/$n" > "$logdir/part-$k.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
pass=0 fail=0 skip=0
for ((k = 1; k <= n; k++)); do
  echo "---- $label, part $k of $n"
  cat "$logdir/part-$k.log"
  line=$(sed -nE "s/^$label: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p" \
           "$logdir/part-$k.log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "$label: part $k of $n printed no closing line"
    status=1
    continue
  fi
  read -r p f s <<<"$line"
  pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ] || status=1
echo "$label: $pass passed, $fail failed, $skip skipped"
exit $status
