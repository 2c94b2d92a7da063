#!/usr/bin/env python3
"""lockstep.js in a real browser (headless Chromium through chromedriver): one scenario per
run, against a `lockstep serve` that LockstepJSBrowserTests started. Each page loads the
library from the server (`/sdk/lockstep.js`) and keeps its store in IndexedDB.

    lockstepjs_browser.py SCENARIO BASE_URL APP_ID ADMIN_TOKEN SCREENSHOT_DIR LOCKSTEP_BINARY

Prints `ok SCENARIO` and exits 0 when every check holds; otherwise what failed, and exits 1.
"""
import functools
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

SCENARIO, BASE, APP, ADMIN, SHOTS, LOCKSTEP = sys.argv[1:7]


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def http(method, path, body=None, token=ADMIN, headers=None, raw=False):
    """One request to the server: (status, headers, body parsed as JSON, or bytes with raw)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    if token:
        request.add_header("X-Simperium-Token", token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, response.headers, text if raw else (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def user(name):
    """A user made by the admin, and a token for them."""
    status, _, _ = http("POST", f"/1/{APP}/__admin__/users", {"username": name})
    check(status in (200, 201), f"could not make {name}: {status}")
    status, _, answer = http("POST", f"/1/{APP}/token", {"username": name})
    check(status == 200, f"no token for {name}: {status}")
    return answer["access_token"]


def browser():
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1024,768"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(60)
    return driver


def shot(driver, name):
    path = os.path.join(SHOTS, f"lockstepjs-{SCENARIO}-{name}.png")
    driver.save_screenshot(path)


# The page: any document of the server's origin will do; the library is imported into it.
OPEN = """
const [base, app, token, storeName, settings, done] = arguments;
import(base + "/sdk/lockstep.js").then(async (lockstep) => {
  window.lockstep = lockstep;
  window.client = await lockstep.Lockstep.open({
    server: base, app, token, storeName, heartbeatIntervalMs: 1000, backoff: { initialMs: 50, maximumMs: 500 }, ...settings,
  });
  window.seen = [];
  window.client.addEventListener("transfer", (event) => window.seen.push(event.detail));
  done("ok");
}).catch((error) => done("error: " + error.message));
"""


def open_client(driver, token, store, settings=None):
    driver.get(BASE + "/health")
    result = driver.execute_async_script(OPEN, BASE, APP, token, store, settings or {})
    check(result == "ok", f"the page could not open the client: {result}")


def run(driver, body, *arguments):
    """Runs `body` (an async function body, its arguments as `args`) in the page; its result."""
    script = "const done = arguments[arguments.length - 1]; const args = Array.from(arguments).slice(0, -1);" \
             "(async () => {" + body + "})().then((value) => done({ value }), (error) => done({ error: String(error && error.stack || error) }));"
    result = driver.execute_async_script(script, *arguments)
    check("error" not in result, f"the page failed: {result.get('error')}")
    return result["value"]


def offline(driver, on):
    driver.set_network_conditions(offline=on, latency=0, download_throughput=-1, upload_throughput=-1)


def wait_idle(driver, seconds=30):
    run(driver, "await client.sync.waitUntilIdle({ timeoutMs: args[0] });", seconds * 1000)


# Scenarios


def scenario_reload(driver):
    """Unsent edits survive a reload (IndexedDB), and land once after it."""
    token = user("reload@example.com")
    open_client(driver, token, "reload")
    run(driver, """
      const notes = client.bucket("notes");
      for (let index = 0; index < 20; index++) await notes.put("n" + index, { index });
      await notes.update("n3", (note) => { note.text = "edited"; });
    """)
    check(run(driver, "return client.outbox.pending.length;") == 20, "the outbox does not hold 20 changes")
    driver.refresh()
    open_client(driver, token, "reload")
    check(run(driver, "return client.outbox.pending.length;") == 20, "the outbox lost changes in the reload")
    check(run(driver, "return client.bucket('notes').get('n3');") == {"index": 3, "text": "edited"}, "the edited object did not survive the reload")
    status, _, _ = http("GET", f"/1/{APP}/notes/i/n3", token=token)
    check(status == 404, f"the server has n3 before the sync: {status}")
    run(driver, "client.sync.start();")
    wait_idle(driver)
    status, _, index = http("GET", f"/1/{APP}/notes/index?data=1&limit=100", token=token)
    check(status == 200 and len(index["index"]) == 20, f"the server holds {index}")
    check(all(entry["v"] == 1 for entry in index["index"]), f"a change landed twice: {index}")
    check(next(e for e in index["index"] if e["id"] == "n3")["d"] == {"index": 3, "text": "edited"}, "n3 is not as edited")


def scenario_upgrade(driver):
    """A store written by lockstep.js's first IndexedDB layout (version 1: a store a table) keeps
    its unsent edits when a newer lockstep.js opens it, and they land once."""
    token = user("upgrade@example.com")
    open_client(driver, token, "scratch", {"store": "memory"})
    # The rows the replica keeps, written into a database laid out as version 1 wrote them.
    tables = run(driver, """
      const notes = client.bucket("notes");
      for (let index = 0; index < 5; index++) await notes.put("n" + index, { index });
      await notes.update("n2", (note) => { note.text = "edited"; });
      const tables = Array.from(client.replica.tables.tables, ([name, rows]) => [name, Array.from(rows)]);
      await client.close();
      const database = await new Promise((resolve, reject) => {
        const request = indexedDB.open("lockstep:legacy", 1);
        request.onupgradeneeded = () => {
          for (const [name] of tables) request.result.createObjectStore(name);
          request.result.createObjectStore("attachments");
        };
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      const transaction = database.transaction(tables.map(([name]) => name), "readwrite");
      for (const [name, rows] of tables) for (const [key, row] of rows) transaction.objectStore(name).put(row, key);
      await new Promise((resolve, reject) => { transaction.oncomplete = resolve; transaction.onerror = () => reject(transaction.error); });
      database.close();
      return tables.map(([name, rows]) => [name, rows.length]);
    """)
    check(dict(tables)["objects"] == 5 and dict(tables)["ghosts"] == 0, f"the replica's tables: {tables}")
    driver.refresh()
    open_client(driver, token, "legacy")
    check(run(driver, "return client.outbox.pending.length;") == 5, "the upgrade lost unsent changes")
    check(run(driver, "return client.bucket('notes').get('n2');") == {"index": 2, "text": "edited"}, "the upgrade lost an object")
    run(driver, "client.sync.start();")
    wait_idle(driver)
    status, _, index = http("GET", f"/1/{APP}/notes/index?data=1&limit=100", token=token)
    check(status == 200 and len(index["index"]) == 5, f"the server holds {index}")
    check(all(entry["v"] == 1 for entry in index["index"]), f"a change landed twice: {index}")
    # After the sync the objects have ghosts and stamps: all in one record each, read back whole.
    driver.refresh()
    open_client(driver, token, "legacy")
    check(run(driver, "return client.outbox.pending.length;") == 0, "acknowledged changes came back after a reload")
    check(run(driver, "return client.bucket('notes').get('n2');") == {"index": 2, "text": "edited"}, "n2 did not survive the reload")
    stores = run(driver, """
      const database = await new Promise((resolve) => { const request = indexedDB.open("lockstep:legacy"); request.onsuccess = () => resolve(request.result); });
      const names = Array.from(database.objectStoreNames);
      database.close();
      return names;
    """)
    check("entries" in stores and "objects" not in stores and "ghosts" not in stores, f"the upgraded database's stores: {stores}")


def scenario_offline(driver):
    """Edits made while the browser is offline (DevTools) wait, and land once when it is back."""
    token = user("offline@example.com")
    open_client(driver, token, "offline")
    run(driver, "client.sync.start(); await client.bucket('notes').put('log', { text: '', count: 0 });")
    wait_idle(driver)
    offline(driver, True)
    run(driver, """
      const deadline = Date.now() + 10000;
      while (client.sync.state === "streaming" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const notes = client.bucket("notes");
      for (let index = 0; index < 10; index++) {
        await notes.update("log", (note) => { note.text += "e" + index + ";"; note.count += 1; });
      }
      await notes.put("made-offline", { by: "page" });
    """)
    time.sleep(1.5)
    _, _, held = http("GET", f"/1/{APP}/notes/i/log", token=token)
    check(held == {"text": "", "count": 0}, f"an edit left while offline: {held}")
    check(http("GET", f"/1/{APP}/notes/i/made-offline", token=token)[0] == 404, "an object made offline reached the server")
    shot(driver, "offline")
    offline(driver, False)
    wait_idle(driver)
    _, _, log = http("GET", f"/1/{APP}/notes/i/log", token=token)
    check(log["count"] == 10, f"the counter is {log}")
    for index in range(10):
        check(log["text"].count(f"e{index};") == 1, f"edit {index} is not in {log['text']!r} once")
    check(http("GET", f"/1/{APP}/notes/i/made-offline", token=token)[0] == 200, "the object made offline did not land")


def scenario_converge(driver):
    """Two pages, the Swift SDK (`lockstep client`) and simperium3 edit one object at once (text
    in one member, a counter, a list, a removal) and all end with the same bytes."""
    token = user("converge@example.com")
    base = {"text": "one two three", "count": 0, "list": ["a"], "gone": True, "note": "simperium"}
    check(http("POST", f"/1/{APP}/notes/i/shared?replace=1", base, token=token)[0] == 200, "could not write the object")
    first = driver.current_window_handle
    open_client(driver, token, "page-a")
    run(driver, "client.sync.start(); await client.bucket('notes');")
    wait_idle(driver)
    driver.switch_to.new_window("tab")
    second = driver.current_window_handle
    # One page per store: a second page on page A's store is refused, saying why.
    driver.get(BASE + "/health")
    refused = driver.execute_async_script(OPEN, BASE, APP, token, "page-a", {})
    check("open in another tab" in refused, f"a second page opened page A's store: {refused}")
    open_client(driver, token, "page-b")
    run(driver, "client.sync.start(); client.bucket('notes');")
    wait_idle(driver)
    store = tempfile.mkdtemp(prefix="lockstepjs-swift-")
    swift = [LOCKSTEP, "client", "--store", store, "--url", BASE, "--app", APP, "--token", token]
    sync = subprocess.run(swift + ["sync", "--once", "--bucket", "notes", "--timeout", "30"], capture_output=True, text=True, timeout=60)
    check(sync.returncode == 0, f"lockstep client sync: {sync.stdout} {sync.stderr}")
    # Everyone edits the same version, none seeing the others'.
    for handle in (first, second):
        driver.switch_to.window(handle)
        offline(driver, True)
        run(driver, "const deadline = Date.now() + 10000; while (client.sync.state === 'streaming' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));")
    driver.switch_to.window(first)
    run(driver, "await client.bucket('notes').update('shared', (o) => { o.text = 'one two three four'; o.count = 1; });")
    driver.switch_to.window(second)
    run(driver, "await client.bucket('notes').update('shared', (o) => { o.text = 'zero one two three'; o.list = ['a', 'b']; });")
    local = subprocess.run(swift + ["get", "notes", "shared"], capture_output=True, text=True, timeout=30)
    swift_object = json.loads(local.stdout)
    swift_object["text"] = "one 2 three"
    del swift_object["gone"]
    put = subprocess.run(swift + ["put", "notes", "shared", json.dumps(swift_object)], capture_output=True, text=True, timeout=30)
    check(put.returncode == 0, f"lockstep client put: {put.stderr}")
    from simperium.core import Api
    host = BASE.replace("http://", "")
    Api(APP, token, host=host, scheme="http", clientid="py-converge").notes.post("shared", {"note": "simperium3"})
    sync = subprocess.run(swift + ["sync", "--once", "--timeout", "30"], capture_output=True, text=True, timeout=60)
    check(sync.returncode == 0, f"lockstep client sync: {sync.stdout} {sync.stderr}")
    for handle in (first, second):
        driver.switch_to.window(handle)
        offline(driver, False)
    for handle in (first, second):
        driver.switch_to.window(handle)
        wait_idle(driver)
    sync = subprocess.run(swift + ["sync", "--once", "--timeout", "30"], capture_output=True, text=True, timeout=60)
    check(sync.returncode == 0, f"lockstep client sync: {sync.stdout} {sync.stderr}")
    _, _, on_server = http("GET", f"/1/{APP}/notes/i/shared", token=token, raw=True)
    pages = []
    for handle in (first, second):
        driver.switch_to.window(handle)
        deadline = time.time() + 10
        while True:
            page = run(driver, "return lockstep.serialize(client.bucket('notes').get('shared'));")
            if page.encode() == on_server or time.time() > deadline:
                break
            time.sleep(0.1)
        pages.append(page.encode())
    swift_bytes = subprocess.run(swift + ["get", "notes", "shared"], capture_output=True, text=True, timeout=30).stdout.strip().encode()
    simperium = Api(APP, token, host=host, scheme="http", clientid="py-converge").notes.get("shared")
    print(f"server: {on_server.decode()}")
    check(all(page == on_server for page in pages), f"the pages hold {pages}, the server {on_server}")
    check(json.loads(swift_bytes) == json.loads(on_server), f"the Swift SDK holds {swift_bytes}, the server {on_server}")
    check(simperium == json.loads(on_server), f"simperium3 reads {simperium}")
    merged = json.loads(on_server)
    check(merged["text"] == "zero one 2 three four", f"the text edits did not all land: {merged['text']!r}")
    check(merged["list"] == ["a", "b"] and merged["count"] == 1 and "gone" not in merged and merged["note"] == "simperium3",
          f"the merged object is {merged}")


def scenario_upload(driver):
    """An upload cut short by a reload resumes from the server's offset."""
    token = user("upload@example.com")
    open_client(driver, token, "upload", {"uploadChunkSize": 128 * 1024})
    # 64 KB/s up: the reload comes in the middle of the upload.
    driver.set_network_conditions(offline=False, latency=5, download_throughput=-1, upload_throughput=256 * 1024)
    sha = run(driver, """
      const bytes = new Uint8Array(2 * 1024 * 1024);
      for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + 7) & 255;
      client.sync.start();
      await client.bucket("items").put("box", { name: "box" });
      const photo = await client.bucket("items").attach(new Blob([bytes], { type: "image/jpeg" }), { to: "box", member: "photo" });
      const deadline = Date.now() + 30000;
      while ((client.uploads[0]?.acknowledged ?? 0) < 384 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      return photo.sha256;
    """)
    acknowledged = run(driver, "return client.uploads[0].acknowledged;")
    check(acknowledged >= 384 * 1024, f"only {acknowledged} bytes acknowledged before the reload")
    _, _, box = http("GET", f"/1/{APP}/items/i/box", token=token)
    check("photo" not in box, f"the reference reached the server before its bytes: {box}")
    driver.refresh()
    driver.set_network_conditions(offline=False, latency=0, download_throughput=-1, upload_throughput=-1)
    open_client(driver, token, "upload", {"uploadChunkSize": 128 * 1024})
    resumed = run(driver, "return client.uploads[0].acknowledged;")
    check(resumed >= acknowledged, f"the upload restarted at {resumed}")
    progress = run(driver, """
      client.sync.start();
      const deadline = Date.now() + 60000;
      while (!seen.some((step) => step.state === "completed") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await client.sync.waitUntilIdle({ timeoutMs: 30000 });
      return seen.filter((step) => step.direction === "upload").map((step) => [step.state, step.completedBytes]);
    """)
    print(f"progress after the reload: {progress[:5]} … {progress[-1]}")
    check(progress[-1] == ["completed", 2 * 1024 * 1024], f"the upload did not complete: {progress}")
    check(all(done >= resumed for _, done in progress), f"bytes before {resumed} went again: {progress}")
    status, _, blob = http("GET", f"/1/{APP}/__blobs__/{sha}", token=token, raw=True)
    check(status == 200 and hashlib.sha256(blob).hexdigest() == sha, f"the server's blob: {status}, {len(blob)} bytes")
    _, _, box = http("GET", f"/1/{APP}/items/i/box", token=token)
    check(box.get("photo", {}).get("$blob") == "sha256:" + sha, f"the reference did not follow its bytes: {box}")


def png(width, height, rgb):
    """A real PNG of one colour, so the page's <img> has pixels to decode."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def scenario_portal(driver):
    """The inventory's customer portal (Examples/InventoryPortal, served by --static-dir): the
    customer signs in with their password, sees their job's items and photos (a reader of the
    job's space), live as a mover changes them with the Swift SDK, and marks an item "please
    return" (a writer of the job's returns space); a reload shows them still signed in."""
    key = os.environ["LOCKSTEP_API_KEY"]

    def account(name):
        status, _, answer = http("POST", f"/1/{APP}/create/", {"username": name, "password": "moving-day-" + name}, token=None,
                                 headers={"X-Simperium-API-Key": key})
        check(status == 200, f"could not sign {name} up: {status} {answer}")
        return answer["access_token"]
    office, ana = account("office@example.com"), account("ana@example.com")
    account("customer@example.com")
    for space, members in (("job-1234", [("ana@example.com", "writer"), ("customer@example.com", "reader")]),
                           ("returns-1234", [("ana@example.com", "reader"), ("customer@example.com", "writer")])):
        check(http("POST", f"/1/{APP}/__spaces__", {"name": space}, token=office)[0] == 201, f"could not make {space}")
        for email, role in members:
            status, _, answer = http("POST", f"/1/{APP}/__spaces__/{space}/members", {"email": email, "role": role}, token=office)
            check(status in (200, 201), f"could not invite {email} to {space}: {status} {answer}")
    # Ana, a mover, lists the sofa and photographs it with the Swift SDK (lockstep client).
    store = tempfile.mkdtemp(prefix="lockstepjs-portal-")
    mover = [LOCKSTEP, "client", "--store", store, "--url", BASE, "--app", APP, "--token", ana]
    photo = os.path.join(store, "front.png")
    with open(photo, "wb") as file:
        file.write(png(40, 30, (200, 30, 30)))

    def as_mover(*arguments):
        result = subprocess.run(mover + list(arguments), capture_output=True, text=True, timeout=60)
        check(result.returncode == 0, f"lockstep client {arguments[0]}: {result.stdout} {result.stderr}")
    as_mover("put", "__job-1234.items", "sofa", json.dumps({"name": "Sofa", "category": "furniture", "status": "listed"}))
    as_mover("attach", "__job-1234.items", "sofa", "photo-front", photo, "--type", "image/png", "--upload", "--timeout", "30")
    as_mover("sync", "--once", "--timeout", "30")

    driver.get(f"{BASE}/?app={APP}&key={key}")
    wait_for(driver, "return !document.getElementById('sign-in').hidden;", "the sign-in form")
    driver.find_element("id", "username").send_keys("customer@example.com")
    driver.find_element("id", "password").send_keys("moving-day-customer@example.com")
    driver.find_element("css selector", "#sign-in button").click()
    wait_for(driver, "return document.querySelector('#items li[data-key=sofa] h2')?.textContent === 'Sofa';", "the sofa in the list")
    wait_for(driver, "const image = document.querySelector('#items li[data-key=sofa] img'); return image?.complete && image.naturalWidth === 40;",
             "the sofa's photo, decoded")
    shot(driver, "signed-in")
    # Live: the mover packs the sofa and lists a lamp; the page follows without a reload.
    sofa = json.loads(subprocess.run(mover + ["get", "__job-1234.items", "sofa"], capture_output=True, text=True, timeout=30).stdout)
    check(sofa.get("photo-front", {}).get("type") == "image/png", f"the mover's sofa: {sofa}")
    sofa["status"] = "packed"
    as_mover("put", "__job-1234.items", "sofa", json.dumps(sofa))
    as_mover("put", "__job-1234.items", "lamp", json.dumps({"name": "Lamp", "category": "lighting", "status": "listed"}))
    as_mover("sync", "--once", "--timeout", "30")
    wait_for(driver, "return document.querySelector('#items li[data-key=sofa] .status')?.textContent.startsWith('packed');", "the sofa packed")
    wait_for(driver, "return Array.from(document.querySelectorAll('#items h2'), (h) => h.textContent).join() === 'Lamp,Sofa';", "the lamp listed")
    check(driver.execute_script("return document.querySelector('#items li[data-key=sofa]').dataset.key;") == "sofa", "the row lost its key")
    # The photo stays after the item changed: the reference is a member the mover's edit kept.
    wait_for(driver, "return document.querySelector('#items li[data-key=sofa] img')?.naturalWidth === 40;", "the photo after the change")
    driver.find_element("css selector", "#items li[data-key=sofa] button.return").click()
    deadline = time.time() + 15
    while True:
        status, _, request = http("GET", f"/1/{APP}/__returns-1234.requests/i/sofa", token=office)
        if status == 200 or time.time() > deadline:
            break
        time.sleep(0.1)
    check(status == 200 and request == {"pleaseReturn": True, "item": "Sofa"}, f"the return request on the server: {status} {request}")
    wait_for(driver, "return document.querySelector('#items li[data-key=sofa]').classList.contains('returning');", "the sofa marked")
    shot(driver, "please-return")
    # A reader cannot change the job's items: the server refuses the customer's token.
    customer_token = driver.execute_script("return JSON.parse(Object.values(localStorage).find((v) => v.includes('customer@example.com'))).token;")
    status, _, _ = http("POST", f"/1/{APP}/__job-1234.items/i/sofa", {"status": "lost"}, token=customer_token)
    check(status == 403, f"the customer wrote the job's items: {status}")
    # A reload keeps the customer signed in, the list read from IndexedDB.
    driver.refresh()
    wait_for(driver, "return document.querySelectorAll('#items li').length === 2 && document.getElementById('sign-in').hidden;", "the list after a reload")
    check(driver.execute_script("return document.querySelector('#items li[data-key=sofa] button.return').textContent;") == "Cancel the return request",
          "the request was not shown after the reload")
    # The same portal served by another static server, on an origin the server lists with
    # --allowed-origin: the link names the sync server, and the page signs in, reads the job
    # and its photo over CORS, and follows it over the socket.
    port = int(os.environ["LOCKSTEP_PAGE_PORT"])
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../Examples/InventoryPortal")
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *_: None})
    site = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(quiet, directory=folder))
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        driver.switch_to.new_window("tab")
        driver.get(f"http://127.0.0.1:{port}/?app={APP}&key={key}&server={BASE}")
        wait_for(driver, "return !document.getElementById('sign-in').hidden;", "the sign-in form on the other origin")
        driver.find_element("id", "username").send_keys("customer@example.com")
        driver.find_element("id", "password").send_keys("moving-day-customer@example.com")
        driver.find_element("css selector", "#sign-in button").click()
        wait_for(driver, "return Array.from(document.querySelectorAll('#items h2'), (h) => h.textContent).join() === 'Lamp,Sofa';",
                 "the job's items on the other origin")
        wait_for(driver, "return document.querySelector('#items li[data-key=sofa] img')?.naturalWidth === 40;", "the photo on the other origin")
        sofa["status"] = "loaded"
        as_mover("put", "__job-1234.items", "sofa", json.dumps(sofa))
        as_mover("sync", "--once", "--timeout", "30")
        wait_for(driver, "return document.querySelector('#items li[data-key=sofa] .status')?.textContent.startsWith('loaded');",
                 "the sofa loaded, live on the other origin")
        shot(driver, "other-origin")
    finally:
        site.shutdown()


def wait_for(driver, condition, what, seconds=20):
    deadline = time.time() + seconds
    while not driver.execute_script(condition):
        if time.time() > deadline:
            raise Failed(f"waited {seconds} s for {what}; the page says: {driver.find_element('tag name', 'main').text!r}")
        time.sleep(0.1)


def main():
    driver = browser()
    try:
        globals()["scenario_" + SCENARIO](driver)
        print(f"ok {SCENARIO}")
    except Failed as failure:
        shot(driver, "failure")
        print(f"FAILED {SCENARIO}: {failure}")
        try:
            print("browser log:", driver.get_log("browser")[-20:])
        except Exception:
            pass
        sys.exit(1)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
