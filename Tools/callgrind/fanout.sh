#!/usr/bin/env bash
# Instructions the server runs per change and per delivery, counted by callgrind: repeatable
# on a shared, noisy machine where CPU time is not. User space only (the kernel's share of a
# write or a flush is not counted).
#
#   Tools/callgrind/fanout.sh [path/to/lockstep]     # default .build/release/lockstep
#   SUBSCRIBERS=100 WRITES=100 RATE=10 Tools/callgrind/fanout.sh
#
# The server runs under callgrind; the load (`lockstep bench fanout --url`) runs natively in a
# process of its own. Four rounds, 1 and SUBSCRIBERS subscribers, WRITES and 2×WRITES changes
# each (each `bench fanout` round also writes as many to one baseline subscriber first); the
# differences cancel what connecting costs, leaving
#   per change   = what a change costs whatever its subscribers (parse, commit, announce)
#   per delivery = what each subscriber adds (queue, frame, write).
set -euo pipefail

binary=$(realpath "${1:-.build/release/lockstep}")
subscribers=${SUBSCRIBERS:-100}
writes=${WRITES:-100}
rate=${RATE:-10}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/lockstep-callgrind-XXXXXX)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; if [ -n "${KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi' EXIT

cc -shared -fPIC -O2 -o "$work/sigsuspend-copy.so" "$here/sigsuspend-copy.c"
# Valgrind 3.19 cannot read the DWARF 5 that swiftc writes; function names come from the symbol table.
objcopy --strip-debug "$binary" "$work/lockstep"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

LD_PRELOAD="$work/sigsuspend-copy.so" valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file="$work/callgrind.out" \
    "$work/lockstep" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
    curl -sf "http://127.0.0.1:$port/health" > /dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
    sleep 0.5
done
app=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["app_id"])' "$work/data/default-app.json")
admin=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["admin_token"])' "$work/data/default-app.json")

# Instructions (Ir) the server ran during one `bench fanout` round.
count() {
    local subscribers=$1 writes=$2
    callgrind_control --zero "$server" > /dev/null 2>&1
    callgrind_control --instr=on "$server" > /dev/null 2>&1
    "$binary" bench fanout --url "http://127.0.0.1:$port" --app "$app" --admin-token "$admin" \
        --subscribers "$subscribers" --baseline-subscribers 1 --writes-per-second "$rate" \
        --seconds "$(python3 -c "print($writes / $rate)")" > "$work/round.log" 2>&1 || { cat "$work/round.log" >&2; exit 1; }
    grep -q "missing" "$work/round.log" && grep -E "missing|lost" "$work/round.log" >&2 || true
    callgrind_control --instr=off "$server" > /dev/null 2>&1
    callgrind_control --dump "$server" > /dev/null 2>&1
    local dump
    for _ in $(seq 1 100); do dump=$(ls "$work"/callgrind.out.* 2>/dev/null | head -1); [ -n "$dump" ] && break; sleep 0.2; done
    sleep 1
    # Kept for callgrind_annotate, with KEEP=1 (the work directory stays, and says where).
    mkdir -p "$work/rounds"
    mv "$dump" "$work/rounds/$subscribers-subscribers-$writes-writes.out"
    awk '/^totals:/ { print $2; exit }' "$work/rounds/$subscribers-subscribers-$writes-writes.out"
}

one_w=$(count 1 "$writes")
one_2w=$(count 1 $((2 * writes)))
many_w=$(count "$subscribers" "$writes")
many_2w=$(count "$subscribers" $((2 * writes)))
python3 - "$one_w" "$one_2w" "$many_w" "$many_2w" "$subscribers" "$writes" <<'PY'
import sys
one_w, one_2w, many_w, many_2w, s, w = map(int, sys.argv[1:])
# Each round: 2w changes (baseline round and main round), w deliveries to the baseline
# subscriber and w x subscribers to the main round's.
a = one_2w - one_w        # 2w changes, 2w deliveries
b = many_2w - many_w      # 2w changes, (s + 1) w deliveries
delivery = (b - a) / ((s - 1) * w)
change = a / (2 * w) - delivery
print(f"server instructions (callgrind Ir), {s} subscribers, {w} and {2 * w} writes a round:")
print(f"  rounds: 1 x {w}: {one_w:,}  1 x {2 * w}: {one_2w:,}  {s} x {w}: {many_w:,}  {s} x {2 * w}: {many_2w:,}")
print(f"  per change:   {change:,.0f}")
print(f"  per delivery: {delivery:,.0f}")
PY
