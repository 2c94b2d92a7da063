"""Drives Lockstep with simperium3 (PyPI), an unmodified Simperium HTTP client.

Run by LockstepServerTests against a real server on 127.0.0.1; reads the server from the
environment: LOCKSTEP_HOST (host:port), LOCKSTEP_APP, LOCKSTEP_API_KEY, LOCKSTEP_ADMIN_TOKEN.
Exits non-zero on the first failed expectation, printing what differed.
"""

import os
import sys
import unittest
import uuid

import requests
from simperium.core import Admin, Api, Auth, Bucket

HOST = os.environ["LOCKSTEP_HOST"]
APP = os.environ["LOCKSTEP_APP"]
API_KEY = os.environ["LOCKSTEP_API_KEY"]
ADMIN = os.environ["LOCKSTEP_ADMIN_TOKEN"]


def expect(condition, message):
    if not condition:
        print("FAILED:", message)
        sys.exit(1)


def scenario():
    auth = Auth(APP, API_KEY, host=HOST, scheme="http")
    username = uuid.uuid4().hex + "@example.com"
    token = auth.create(username, "pw")
    expect(token and len(token) >= 32, "create returns a token of 32+ characters: %r" % token)
    second = auth.authorize(username, "pw")
    expect(second and len(second) >= 32, "authorize returns a token")
    try:
        auth.authorize(username, "wrong")
        expect(False, "a wrong password is refused")
    except requests.HTTPError as error:
        expect(error.response.status_code == 401, "a wrong password gets 401, not %s" % error.response.status_code)

    api = Api(APP, second, host=HOST, scheme="http", clientid="py-test")
    notes = api.note
    notes.post("n1", {"content": "hello", "tags": []})
    expect(notes.get("n1") == {"content": "hello", "tags": []}, "get returns the created object")
    notes.post("n1", {"content": "hello world"})
    key, body = notes.set("n1", {"pinned": True}, include_response=True)
    expect(key == "n1", "set returns the key")
    expect(body == {"content": "hello world", "tags": [], "pinned": True}, "posts merge top-level keys: %r" % body)
    expect(notes.get("n1", version=1) == {"content": "hello", "tags": []}, "version 1 is retained")
    expect(notes.get("n1", version=2) == {"content": "hello world", "tags": []}, "version 2 is retained")
    notes.post("n1", {"content": "replaced"}, replace=True)
    expect(notes.get("n1") == {"content": "replaced"}, "replace=1 replaces the object")
    try:
        notes.post("n1", {"content": "replaced"})
        expect(False, "a no-op post is refused")
    except requests.HTTPError as error:
        expect(error.response.status_code == 412, "a no-op post gets 412, not %s" % error.response.status_code)

    index = notes.index(data=True, limit=10)
    expect(index["index"] == [{"id": "n1", "v": 4, "d": {"content": "replaced"}}], "index with data: %r" % index)
    expect("current" in index and "mark" not in index, "index has current and no mark on the last page")

    changes = notes.changes(timeout=10)
    expect([c["ev"] for c in changes] == [1, 2, 3, 4], "changes without cv list every change: %r" % changes)
    expect("sv" not in changes[0] and changes[1]["sv"] == 1, "a creation has no sv; later changes name theirs")
    expect(all(c["clientid"] == "py-test" and len(c["ccids"]) == 1 for c in changes), "changes carry clientid and ccids")

    expect(notes.delete("n1") is not None, "delete answers with an empty body")
    expect(notes.get("n1") is None, "a deleted object is gone (404)")
    after = notes.changes(cv=changes[-1]["cv"], timeout=10)
    expect([c["o"] for c in after] == ["-"], "changes since a cv give exactly the delete: %r" % after)
    try:
        notes.post("n1", {"content": "back"})
        expect(False, "a deleted object does not come back")
    except requests.HTTPError as error:
        expect(error.response.status_code == 410, "writing a removed object gets 410, not %s" % error.response.status_code)

    # Index paging: newest first, the same current on every page, mark only while more remain.
    bucket = Bucket(APP, second, uuid.uuid4().hex, host=HOST, scheme="http")
    for i in range(5):
        bucket.post("item%d" % i, {"x": i})
    first = bucket.index(limit=2)
    expect([e["id"] for e in first["index"]] == ["item4", "item3"] and "mark" in first, "first page: %r" % first)
    bucket.post("item4", {"x": 100})  # a write during the walk must not change the walk's current
    page = bucket.index(limit=2, mark=first["mark"])
    expect(page["current"] == first["current"], "every page repeats the first page's current")
    expect([e["id"] for e in page["index"]] == ["item2", "item1"], "second page: %r" % page)
    last = bucket.index(limit=2, mark=page["mark"])
    expect(last["current"] == first["current"] and "mark" not in last, "last page: %r" % last)
    expect([e["id"] for e in last["index"]] == ["item0"], "last page: %r" % last)
    # What changed during the walk comes from the feed after the walk's current.
    during = bucket.changes(cv=first["current"], timeout=10)
    expect([(c["id"], c["ev"]) for c in during] == [("item4", 2)], "changes during the walk: %r" % during)

    # Bulk changes.
    results = bucket.bulk_post({"b1": {"n": 1}, "b2": {"n": 2}})
    expect([r.get("id") for r in results] == ["b1", "b2"] and all("error" not in r for r in results), "bulk: %r" % results)

    # Another user sees none of it.
    other = Api(APP, auth.create(uuid.uuid4().hex + "@example.com", "pw"), host=HOST, scheme="http")
    expect(other.note.get("n1") is None and other.note.index()["index"] == [], "users don't see each other's data")

    # The admin acts as a user with X-Simperium-User, and reads /all.
    admin = Admin(APP, ADMIN, host=HOST, scheme="http")
    userid = requests.post(
        "http://%s/1/%s/authorize/" % (HOST, APP), json={"username": username, "password": "pw"},
        headers={"X-Simperium-API-Key": API_KEY}).json()["userid"]
    as_user = admin.as_user(userid)
    expect(as_user.note.get("n1") is None and as_user[bucket.bucket].get("b1") == {"n": 1}, "admin as user")
    # (Admin.__getattr__ recurses in simperium3 0.1.5, so build the admin's bucket directly.)
    everything = Bucket(APP, ADMIN, "note", host=HOST, scheme="http").all(timeout=10)
    expect(len(everything) >= 5 and all(c["id"].startswith(userid + "/") for c in everything), "all: %r" % everything[:2])


def upstream_suite():
    """simperium3's own tests, pointed at our server as the spec shows."""
    os.environ.update(SIMPERIUM_AUTHHOST=HOST, SIMPERIUM_APIHOST=HOST,
                      SIMPERIUM_CLIENT_TEST_APPNAME=APP, SIMPERIUM_CLIENT_TEST_APIKEY=API_KEY)
    import simperium.core as core
    core.Auth.__init__.__defaults__ = (None, "http")
    core.Bucket.__init__.__defaults__ = (None, None, "http", None)
    core.SPUser.__init__.__defaults__ = (None, "http", None)
    from simperium.test import test_core
    result = unittest.main(module=test_core, exit=False, argv=["simperium3"]).result
    expect(result.wasSuccessful() and result.testsRun == 8, "simperium3's own suite: %d run, %d failures, %d errors" % (
        result.testsRun, len(result.failures), len(result.errors)))


if __name__ == "__main__":
    scenario()
    upstream_suite()
    print("simperium3 OK")
