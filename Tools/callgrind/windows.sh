#!/usr/bin/env bash
# Instructions the server runs per release-window request, counted by callgrind (user space
# only): an 80-slot store's latest window, fetched over one keep-alive connection.
#
#   Tools/callgrind/windows.sh [path/to/lockstep]    # REQUESTS=2000
#
# Two rounds, REQUESTS and 2×REQUESTS requests; their difference cancels connecting.
set -euo pipefail

binary=$(realpath "${1:-.build/release/lockstep}")
requests=${REQUESTS:-2000}
source "$(dirname "$0")/server.sh"
python3 - "$work/store.json" <<'PY'
import json, sys
items = [{"id": f"item-{i}", "weight": 1 + i % 7, "data": {"name": f"Item number {i}", "price": 10 * (i % 50 + 1)}} for i in range(200)]
json.dump({"stores": [{"id": "main", "slots": 80}], "items": items}, open(sys.argv[1], "w"))
PY
export LOCKSTEP_STORE_SEED=$(python3 -c "import secrets; print(secrets.token_hex(32))")
start_server "$binary" --store-config "$work/store.json" --http-requests-per-second 0
fetch() {
    python3 - "$port" "$1" <<'PY'
import http.client, sys
port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(count):
    connection.request("GET", "/releases/main/windows/latest")
    response = connection.getresponse()
    body = response.read()
    assert response.status == 200 and body, response.status
print(len(body))
PY
}
fetch 1 > /dev/null
once=$(instructions "$requests-requests" fetch "$requests")
twice=$(instructions "$((2 * requests))-requests" fetch $((2 * requests)))
echo "server instructions (callgrind Ir) per window request, $requests and $((2 * requests)) requests:"
echo "  rounds: $once  $twice"
echo "  per window: $(( (twice - once) / requests )) ($(cat "$work/$requests-requests.log") bytes a window)"
