"""A webhook receiver on 127.0.0.1 for the webhook tests: every request is verified with the
independent `standardwebhooks` library (PyPI), against each secret it was given.

    python3 webhook_receiver.py [--status 200] [--delay 0]

Prints {"listening": port} once it listens; then for each request {"arrived": webhook-id,
"inflight": requests being answered, this one included} as it arrives, and when it answers
{"id": webhook-id, "events": [event ids], "types": [...], "data": [...], "secrets": [indexes of
the secrets that verify it], "status": what it answered, "error": why it refused it (if it did)}.

A request none of the secrets verifies is answered 400. Control (plain HTTP, not signed):
POST /__control__ {"secrets": ["whsec_…", …], "status": 500, "delay": 0.5, "redirect": "http://…"}
sets what it verifies with and answers from then on.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook, WebhookVerificationError

state = {"secrets": [], "status": 200, "delay": 0.0, "redirect": None, "inflight": 0}
lock = threading.Lock()
out = threading.Lock()


def say(record):
    with out:
        sys.stdout.write(json.dumps(record, sort_keys=True) + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/__control__":
            with lock:
                state.update(json.loads(body))
            return self.answer(204)
        with lock:
            secrets, status, delay, redirect = list(state["secrets"]), state["status"], state["delay"], state["redirect"]
            state["inflight"] += 1
            inflight = state["inflight"]
        try:
            self.answer_webhook(body, secrets, status, delay, redirect, inflight)
        finally:
            with lock:
                state["inflight"] -= 1

    def answer_webhook(self, body, secrets, status, delay, redirect, inflight):
        headers = {name: value for name, value in self.headers.items()}
        say({"arrived": headers.get("webhook-id"), "inflight": inflight})
        verified = []
        payload = None
        for index, secret in enumerate(secrets):
            try:
                payload = Webhook(secret).verify(body, headers)
                verified.append(index)
            except WebhookVerificationError:
                pass
        record = {"id": headers.get("webhook-id") or headers.get("Webhook-Id"), "path": self.path, "secrets": verified}
        if not verified:
            record.update({"error": "no secret verifies it", "status": 400})
            say(record)
            return self.answer(400, b"bad signature")
        record["events"] = [event["id"] for event in payload["events"]]
        record["types"] = [event["type"] for event in payload["events"]]
        record["data"] = [event["data"] for event in payload["events"]]
        if delay:
            time.sleep(delay)
        record["status"] = status
        say(record)
        if redirect:
            return self.answer(status, b"moved", [("Location", redirect)])
        self.answer(status, b"x" * 3000 if status == 299 else b"ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--status", type=int, default=200)
    parser.add_argument("--delay", type=float, default=0.0)
    arguments = parser.parse_args()
    state["status"], state["delay"] = arguments.status, arguments.delay
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    say({"listening": server.server_address[1]})
    server.serve_forever()


if __name__ == "__main__":
    main()
