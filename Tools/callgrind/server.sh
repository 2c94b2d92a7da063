# Sourced by the scripts beside it: a `lockstep serve` under callgrind, and `instructions`,
# which counts what the server runs while a command puts load on it.
#
# Valgrind 3.19 (Debian 12) needs two things of a Swift server: a copy of the signal mask
# libdispatch hands rt_sigsuspend (sigsuspend-copy.c), and no DWARF 5, which its reader
# cannot parse (function names come from the symbol table).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/lockstep-callgrind-XXXXXX)
server=
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; if [ -n "${KEEP:-}" ]; then echo "kept: $work" >&2; else rm -rf "$work"; fi' EXIT

# start_server BINARY [serve arguments…]: sets $server, $port, $app, $admin.
start_server() {
    local binary=$1
    shift
    cc -shared -fPIC -O2 -o "$work/sigsuspend-copy.so" "$here/sigsuspend-copy.c"
    objcopy --strip-debug "$binary" "$work/lockstep"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    LD_PRELOAD="$work/sigsuspend-copy.so" valgrind --tool=callgrind --instr-atstart=no \
        --callgrind-out-file="$work/callgrind.out" \
        "$work/lockstep" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" "$@" > "$work/serve.log" 2>&1 &
    server=$!
    for _ in $(seq 1 600); do
        curl -sf "http://127.0.0.1:$port/health" > /dev/null 2>&1 && break
        kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; exit 1; }
        sleep 0.5
    done
    app=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["app_id"])' "$work/data/default-app.json")
    admin=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["admin_token"])' "$work/data/default-app.json")
}

# instructions NAME COMMAND…: the server's instructions (Ir) while COMMAND runs; the dump is
# kept as $work/rounds/NAME.out (for callgrind_annotate, with KEEP=1).
instructions() {
    local name=$1
    shift
    callgrind_control --zero "$server" > /dev/null 2>&1
    callgrind_control --instr=on "$server" > /dev/null 2>&1
    "$@" > "$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; exit 1; }
    callgrind_control --instr=off "$server" > /dev/null 2>&1
    callgrind_control --dump "$server" > /dev/null 2>&1
    local dump=
    for _ in $(seq 1 100); do dump=$(ls "$work"/callgrind.out.* 2>/dev/null | head -1); [ -n "$dump" ] && break; sleep 0.2; done
    sleep 1
    mkdir -p "$work/rounds"
    mv "$dump" "$work/rounds/$name.out"
    awk '/^totals:/ { print $2; exit }' "$work/rounds/$name.out"
}
