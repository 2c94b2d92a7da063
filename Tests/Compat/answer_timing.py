"""How long the server takes to answer the second of two changes to one object (issue 27).

Raw Simperium frames over the streaming socket, against a running server:

    HOST=127.0.0.1:8080 APP=<app id> KEY=<api key> python3 Tests/Compat/answer_timing.py MODE RUNS

MODE: pipelined - one client sends c1 and c2 back to back (c2 against c1's version)
      lockstep  - one client sends c2 only once c1's answer arrived, as node-simperium does
                  (one change in flight per object)
      conflict  - two clients each send a change against version 1 at the same moment
Prints the time from the first answer to the second, and from sending c2 to its answer.
Not run by the test suite: a measurement, recorded in BENCHMARKS.md ("Answers to a pair of
changes"). Needs `pip install websockets`.
"""
import asyncio, json, os, sys, time, uuid, urllib.request
import websockets

HOST = os.environ["HOST"]; APP = os.environ["APP"]; KEY = os.environ["KEY"]

def http(path, body=None, headers={}):
    req = urllib.request.Request(f"http://{HOST}{path}", data=json.dumps(body).encode() if body is not None else None, headers=headers, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(req) as r: return json.loads(r.read() or b"null")

def user():
    return http(f"/1/{APP}/create/", {"username": uuid.uuid4().hex + "@example.com", "password": "pw"}, {"X-Simperium-API-Key": KEY})["access_token"]

async def channel(token, bucket):
    ws = await websockets.connect(f"ws://{HOST}/sock/1/{APP}/websocket", max_size=None)
    await ws.send("0:init:" + json.dumps({"name": bucket, "clientid": "py-" + uuid.uuid4().hex[:6], "api": "1.1", "token": token, "app_id": APP, "library": "raw", "version": "0"}))
    while not (m := await ws.recv()).startswith("0:auth:"): pass
    await ws.send("0:i::::1000")
    while not (m := await ws.recv()).startswith("0:i:"): pass
    return ws

seen = {}
async def wait_ack(ws, ccid):
    while ccid not in seen:
        m = await ws.recv()
        if m.startswith("0:c:["):
            now = time.perf_counter()
            for c in json.loads(m[4:]):
                for x in c.get("ccids", []): seen[x] = (now, c)
    return seen[ccid]

def change(key, sv, delta, ccid):
    return "0:c:" + json.dumps({"o": "M", "id": key, "ccid": ccid, "sv": sv, "v": {"t": {"o": "d", "v": delta}}})

async def run(mode, token, bucket, i):
    a = await channel(token, bucket)
    key = f"k{i}"
    c0 = uuid.uuid4().hex
    await a.send("0:c:" + json.dumps({"o": "M", "id": key, "ccid": c0, "v": {"t": {"o": "+", "v": "hello"}}}))
    await wait_ack(a, c0)
    c1, c2 = uuid.uuid4().hex, uuid.uuid4().hex
    if mode == "pipelined":
        t2 = time.perf_counter()
        await a.send(change(key, 1, "=5\t+1", c1)); await a.send(change(key, 2, "=6\t+2", c2))
        r1, _ = await wait_ack(a, c1); r2, _ = await wait_ack(a, c2)
    elif mode == "lockstep":
        await a.send(change(key, 1, "=5\t+1", c1)); r1, _ = await wait_ack(a, c1)
        t2 = time.perf_counter(); await a.send(change(key, 2, "=6\t+2", c2)); r2, _ = await wait_ack(a, c2)
    else:
        b = await channel(token, bucket)
        t2 = time.perf_counter()
        await asyncio.gather(a.send(change(key, 1, "=5\t+A", c1)), b.send(change(key, 1, "=5\t+B", c2)))
        (r1, _), (r2, _) = await asyncio.gather(wait_ack(a, c1), wait_ack(b, c2))
        r1, r2 = min(r1, r2), max(r1, r2)
        await b.close()
    await a.close()
    return (r2 - r1) * 1000, (r2 - t2) * 1000

async def main():
    mode, n = sys.argv[1], int(sys.argv[2])
    token = user(); bucket = "pair" + uuid.uuid4().hex[:6]
    gaps, totals = [], []
    for i in range(n):
        g, t = await run(mode, token, bucket, i); gaps.append(g); totals.append(t)
    q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
    print(f"{mode}: n={n} second-after-first p50 {q(gaps,.5):.2f} p90 {q(gaps,.9):.2f} max {max(gaps):.2f} ms; "
          f"send-to-second-answer p50 {q(totals,.5):.2f} p90 {q(totals,.9):.2f} ms")
asyncio.run(main())
