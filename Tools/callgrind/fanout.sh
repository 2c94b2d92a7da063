#!/usr/bin/env bash
# Instructions the server runs per change and per delivery, counted by callgrind: repeatable
# on a shared, noisy machine where CPU time is not. User space only (the kernel's share of a
# write or a flush is not counted).
#
#   Tools/callgrind/fanout.sh [path/to/lockstep]     # default .build/release/lockstep
#   SUBSCRIBERS=50 WRITES=100 RATE=10 Tools/callgrind/fanout.sh
#
# The server runs under callgrind; the load (`lockstep-bench fanout --url`) runs natively in a
# process of its own. After a warm-up, four rounds, 1 and SUBSCRIBERS subscribers, WRITES and 2×WRITES changes
# each (each `lockstep-bench fanout` round also writes as many to one baseline subscriber first); the
# differences cancel what connecting costs, leaving
#   per change   = what a change costs whatever its subscribers (parse, commit, announce)
#   per delivery = what each subscriber adds (queue, frame, write).
# Work the server does by the clock (token revocation polls, option cache refreshes) is
# measured in an idle round as long as the extra writing, and taken off.
set -euo pipefail

binary=$(realpath "${1:-.build/release/lockstep}")
subscribers=${SUBSCRIBERS:-50}
writes=${WRITES:-100}
rate=${RATE:-10}
source "$(dirname "$0")/server.sh"
start_server "$binary"

round() {
    instructions "$1-subscribers-$2-writes" "$(dirname "$binary")/lockstep-bench" fanout --url "http://127.0.0.1:$port" --app "$app" --admin-token "$admin" \
        --subscribers "$1" --baseline-subscribers 1 --writes-per-second "$rate" --seconds "$(python3 -c "print($2 / $rate)")"
}
# A first round pays for what is made once (statements prepared, type metadata, caches).
round 1 "$writes" > /dev/null
one_w=$(round 1 "$writes")
one_2w=$(round 1 $((2 * writes)))
many_w=$(round "$subscribers" "$writes")
many_2w=$(round "$subscribers" $((2 * writes)))
# What the server runs by the clock alone, over the time the longer rounds write for longer.
idle=$(instructions idle sleep "$(python3 -c "print(2 * $writes / $rate)")")
python3 - "$one_w" "$one_2w" "$many_w" "$many_2w" "$idle" "$subscribers" "$writes" <<'PY'
import sys
one_w, one_2w, many_w, many_2w, idle, s, w = map(int, sys.argv[1:])
# Each round: 2w changes (baseline round and main round), w deliveries to the baseline
# subscriber and w x subscribers to the main round's; the longer rounds run 2w / rate
# seconds longer, which the idle round measures.
a = one_2w - one_w - idle        # 2w changes, 2w deliveries
b = many_2w - many_w - idle      # 2w changes, (s + 1) w deliveries
delivery = (b - a) / ((s - 1) * w)
change = a / (2 * w) - delivery
print(f"server instructions (callgrind Ir), {s} subscribers, {w} and {2 * w} writes a round:")
print(f"  rounds: 1 x {w}: {one_w:,}  1 x {2 * w}: {one_2w:,}  {s} x {w}: {many_w:,}  {s} x {2 * w}: {many_2w:,}  idle: {idle:,}")
print(f"  per change:   {change:,.0f}")
print(f"  per delivery: {delivery:,.0f}")
PY
