#!/usr/bin/env python3
"""The Lockstep Console, and pages of other sites, in a real browser (headless Chromium through
chromedriver): one scenario per run, against a `lockstep serve` that ConsoleBrowserTests started.

    console_browser.py SCENARIO BASE_URL APP_ID ADMIN_TOKEN SCREENSHOT_DIR LOCKSTEP_BINARY

Prints `ok SCENARIO` and exits 0 when every check holds; otherwise prints what failed and
exits 1. Every view it visits is saved as a screenshot in SCREENSHOT_DIR.
"""
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.client import HTTPConnection
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

SCENARIO, BASE, APP, ADMIN, SHOTS, LOCKSTEP = sys.argv[1:7]
# What Chromium logs as severe and a scenario expects: a refused request the page answers.
EXPECTED_ERRORS = ["Failed to load resource"]


class Failed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def parsed(text):
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text.decode(errors="replace")


def http(method, path, body=None, token=ADMIN, headers=None):
    """One request to the server; (status, headers, the body parsed as JSON, else as text)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE + path, data=data, method=method)
    if token:
        request.add_header("X-Simperium-Token", token)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, response.headers, parsed(text)
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, error.headers, parsed(text)


def browser(width=1280, height=900):
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={width},{height}"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(30)
    return driver


def shot(driver, name):
    path = os.path.join(SHOTS, f"{SCENARIO}-{name}.png")
    driver.save_screenshot(path)
    print(f"screenshot {path}")


def wait(driver, condition, message, seconds=10):
    # The console re-renders a view when a push arrives: an element found a moment before can be
    # replaced by the time it is read, which means "look again", not "failed".
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
    except Exception:
        shot(driver, "failure")
        raise Failed(f"{message} (page: {driver.find_element(By.TAG_NAME, 'body').text[:600]!r})")


def find(driver, selector):
    found = driver.find_elements(By.CSS_SELECTOR, selector)
    return found[0] if found else None


def sign_in(driver, token=ADMIN):
    driver.get(BASE + "/console/")
    wait(driver, lambda d: find(d, "#sign-in:not([hidden])") or find(d, "#shell:not([hidden])"), "no sign-in form")
    if find(driver, "#shell:not([hidden])"):
        return
    driver.find_element(By.ID, "app-id").clear()
    driver.find_element(By.ID, "app-id").send_keys(APP)
    driver.find_element(By.ID, "admin-token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#sign-in-form button").click()


def attribute(driver, selector, name):
    """An attribute of the first element matching selector, read in one step (no stale element)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.getAttribute(arguments[1]) : null", selector, name)


def go(driver, hash_path):
    driver.execute_script("location.hash = arguments[0]", hash_path)


def requests_to(driver, fragment):
    """How many requests the page made whose URL holds `fragment` (the browser's resource timing)."""
    return driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes(arguments[0])).length", fragment)


DEVICE = """
const [url, token, bucket, key, done] = arguments;
const socket = new WebSocket(url);
window.__devices = (window.__devices || []).concat([socket]);
socket.onopen = () => socket.send('0:init:' + JSON.stringify({name: bucket, token, clientid: 'device-' + key, api: '1.1'}));
socket.onmessage = (event) => {
  if (!String(event.data).startsWith('0:auth:')) return;
  socket.send('0:c:' + JSON.stringify({clientid: 'device-' + key, id: key, o: 'M', v: {here: {o: '+', v: true}}, ccid: 'ccid-' + key}));
  done(performance.timeOrigin + performance.now());
};
"""


def device_claims(driver, token, bucket, key):
    """A second streaming connection, made in the page, that creates `key` in presence bucket `bucket`."""
    url = BASE.replace("http://", "ws://") + f"/sock/1/{APP}/websocket"
    return driver.execute_async_script(DEVICE, url, token, bucket, key)


# Scenarios


def scenario_sign_in(driver):
    status, headers, _ = http("GET", "/console/", token=None)
    policy = headers.get("Content-Security-Policy", "")
    check(status == 200 and "default-src 'self'" in policy and "connect-src 'self' ws://" in policy, f"console policy: {status} {policy!r}")
    driver.get(BASE + "/")
    wait(driver, lambda d: d.current_url.endswith("/console/"), "/ does not lead to /console/")
    sign_in(driver, token="not-the-admin-token")
    wait(driver, lambda d: "not this app's admin token" in d.find_element(By.ID, "sign-in-error").text, "a wrong token is not refused")
    check(driver.execute_script("return sessionStorage.length") == 0, "a refused token was kept")
    shot(driver, "wrong-token")
    sign_in(driver)
    wait(driver, lambda d: find(d, "[data-stat=version] b"), "the overview did not appear after signing in")
    saved = json.loads(driver.execute_script("return sessionStorage.getItem('lockstep-console-session')"))
    check(saved["token"] == ADMIN, "the token is not in sessionStorage")
    check(driver.execute_script("return document.cookie") == "", "a cookie was set")
    check(ADMIN not in driver.current_url, "the token is in the URL")
    wait(driver, lambda d: "SQLite" in d.find_element(By.CSS_SELECTOR, "[data-stat=store] b").text, "the overview does not name the store")
    shot(driver, "overview")
    driver.set_window_size(390, 844)
    shot(driver, "overview-phone")


VISIBLE_TEXT = "return document.body.innerText"


def scenario_signed_out(driver):
    """Nothing of the data, nor of the views, is shown before signing in or after signing out."""
    check(http("POST", f"/1/{APP}/__admin__/users", {"username": "secret-user@example.com"})[0] == 201, "could not make a user")
    driver.get(BASE + "/console/")
    wait(driver, lambda d: find(d, "#sign-in:not([hidden])"), "no sign-in form")
    shown = driver.execute_script(VISIBLE_TEXT)
    for label in ("Overview", "Users", "Buckets", "Live tail"):
        check(label not in shown, f"the navigation shows {label!r} before signing in: {shown!r}")
    check(driver.execute_script("return getComputedStyle(document.getElementById('shell')).display") == "none",
          "the shell is displayed before signing in")
    shot(driver, "before-sign-in")
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/users")
    wait(driver, lambda d: find(d, "tr[data-user='secret-user@example.com']"), "the user is not listed")
    driver.find_element(By.ID, "sign-out").click()
    wait(driver, lambda d: find(d, "#sign-in:not([hidden])"), "signing out does not show the sign-in form")
    check("secret-user@example.com" not in driver.execute_script("return document.body.textContent"),
          "the last view's data stays in the page after signing out")
    check(find(driver, "#main *") is None, "the last view stays in the page after signing out")
    shown = driver.execute_script(VISIBLE_TEXT)
    check("Users" not in shown, f"the navigation shows after signing out: {shown!r}")
    check(driver.execute_script("return sessionStorage.length") == 0, "the token stays in sessionStorage after signing out")
    shot(driver, "after-sign-out")


def scenario_objects(driver):
    check(http("POST", f"/1/{APP}/__options__/i/notes", {"shared": True})[0] == 200, "could not share bucket notes")
    status, _, grant = http("POST", f"/1/{APP}/token", {"username": "watcher@example.com"})
    check(status == 200, f"no token: {status}")
    check(http("POST", f"/1/{APP}/notes/i/groceries", {"title": "Groceries"})[0] == 200, "could not write groceries")
    # A second client, connected before the edit: `lockstep tail` on the same bucket.
    tail = subprocess.Popen([LOCKSTEP, "tail", "--url", BASE, "--app", APP, "--token", grant["access_token"], "notes"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    threading.Thread(target=lambda: [lines.append(line) for line in tail.stdout], daemon=True).start()
    try:
        deadline = time.time() + 15
        while not any("listed at cv" in line for line in lines):
            check(time.time() < deadline, f"lockstep tail did not start: {lines}")
            time.sleep(0.05)
        sign_in(driver)
        wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
        go(driver, "#/buckets")
        wait(driver, lambda d: find(d, "tr[data-bucket=notes] td.objects"), "bucket notes is not listed")
        check(driver.find_element(By.CSS_SELECTOR, "tr[data-bucket=notes] td.objects").text == "1", "notes does not count 1 object")
        shot(driver, "buckets")
        driver.find_element(By.CSS_SELECTOR, "tr[data-bucket=notes] a").click()
        wait(driver, lambda d: find(d, "tr[data-key=groceries] button"), "groceries is not listed")
        driver.find_element(By.CSS_SELECTOR, "tr[data-key=groceries] button").click()
        editor = wait(driver, lambda d: find(d, "#object-json"), "the object did not open")
        check(json.loads(editor.get_attribute("value")) == {"title": "Groceries"}, "the JSON shown is not the object's")
        shot(driver, "object")
        # Invalid JSON is refused in the page.
        driver.execute_script("arguments[0].value = '{not json'", editor)
        driver.find_element(By.ID, "save-object").click()
        wait(driver, lambda d: "Not valid JSON" in d.find_element(By.ID, "edit-message").text, "invalid JSON was not refused")
        # A valid edit goes as a change; the other client receives it.
        editor = driver.find_element(By.ID, "object-json")
        driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps({"title": "Groceries", "items": ["milk"]}))
        driver.find_element(By.ID, "save-object").click()
        wait(driver, lambda d: "Saved: version 2" in d.find_element(By.ID, "edit-message").text, "the edit was not saved")
        deadline = time.time() + 5
        while not any("groceries" in line and "milk" in line for line in lines):
            check(time.time() < deadline, f"the second client did not receive the edit: {lines}")
            time.sleep(0.05)
        status, _, stored = http("GET", f"/1/{APP}/notes/i/groceries")
        check(stored == {"title": "Groceries", "items": ["milk"]}, f"the server holds {stored}")
        # History: versions 1 and 2 compared.
        wait(driver, lambda d: find(d, "pre.jsondiff") and '"items"' in d.find_element(By.CSS_SELECTOR, "pre.jsondiff").text,
             "the history does not show the jsondiff of the edit")
        check(find(driver, "pre.textdiff .diff-add") is not None, "the text diff highlights nothing")
        shot(driver, "history")
        # A refused edit shows the server's message (objects are limited to 400 bytes here).
        editor = driver.find_element(By.ID, "object-json")
        driver.execute_script("arguments[0].value = arguments[1]", editor, json.dumps({"title": "x" * 600}))
        driver.find_element(By.ID, "save-object").click()
        wait(driver, lambda d: "refused the change (413)" in d.find_element(By.ID, "edit-message").text, "a refused edit did not show the server's answer")
        shot(driver, "refused")
        # A long history: 20 versions in one request, then the older ones, paged.
        for n in range(25):
            check(http("POST", f"/1/{APP}/notes/i/list", {"n": n})[0] == 200, "could not write list")
        # Listed live; opened once its last version is in (each change of the open object redraws it).
        wait(driver, lambda d: find(d, "tr[data-key=list] td.version") and find(d, "tr[data-key=list] td.version").text == "25",
             "list is not listed at version 25")
        asked = requests_to(driver, "__admin__/versions")
        find(driver, "tr[data-key=list] button").click()
        options = lambda d: len(d.find_elements(By.CSS_SELECTOR, "select[aria-label='Compare from version'] option"))
        wait(driver, lambda d: options(d) == 20, "the history does not show the newest 20 versions")
        check(requests_to(driver, "__admin__/versions") == asked + 1, f"{requests_to(driver, '__admin__/versions') - asked} requests for 20 versions")
        driver.find_element(By.ID, "older-versions").click()
        wait(driver, lambda d: options(d) == 25, "the older versions did not load")
        check(requests_to(driver, "__admin__/versions") == asked + 2, "the older versions took more than one request")
        check(not driver.find_element(By.ID, "older-versions").is_displayed(), "older versions are offered past the first")
        check(requests_to(driver, "/v/") == 0, "the history read versions one by one")
        shot(driver, "history-paged")
    finally:
        tail.kill()


def scenario_history(driver):
    """An object's versions with their authors and times, two compared by the server, one restored
    after a confirmation; then the bucket restored to a moment after a dry run."""
    check(http("POST", f"/1/{APP}/__options__/i/jobs", {"shared": True})[0] == 200, "could not share bucket jobs")
    status, _, grant = http("POST", f"/1/{APP}/token", {"username": "mover@example.com"})
    check(status == 200, f"no token: {status}")
    mover = grant["access_token"]

    def write(key, data, method="POST"):
        status = http(method, f"/1/{APP}/jobs/i/{key}?replace=1&clientid=phone-1", data, token=mover)[0]
        check(status == 200, f"could not write {key}: {status}")

    write("sofa", {"room": "lounge", "notes": "two seats"})
    write("sofa", {"room": "lounge", "notes": "two seats, grey"})
    write("table", {"room": "kitchen"})
    write("lamp", {"room": "study"})
    # The moment the bucket is restored to: the next whole second (the page's moments are whole
    # seconds), once it has passed.
    moment = int(time.time()) + 1
    while time.time() < moment + 0.05:
        time.sleep(0.01)
    write("sofa", {"room": "?", "notes": "two seats, grey, torn"})
    write("table", {"room": "?"})
    write("chair", {"room": "?"})
    write("lamp", None, method="DELETE")

    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/objects?bucket=jobs&owner=&key=sofa")
    rows = lambda d: d.find_elements(By.CSS_SELECTOR, "#versions tbody tr")
    wait(driver, lambda d: len(rows(d)) == 3, "the history does not list the three versions")
    newest = find(driver, "#versions tr[data-version='3']")
    check("mover@example.com" in newest.text and "phone-1" in newest.text, f"version 3 does not say who made it: {newest.text!r}")
    check(newest.find_element(By.CSS_SELECTOR, "td[title]").get_attribute("title").startswith(time.strftime("%Y-", time.gmtime())),
          "version 3 has no commit time")
    # Versions 2 and 3 compared by the server: the notes as text, the torn added.
    wait(driver, lambda d: find(d, ".string-diff[data-member=notes] .diff-add"), "the comparison does not show the notes as text")
    check(find(driver, ".string-diff[data-member=notes] .diff-add").text == ", torn", "the notes' text diff is not ', torn'")
    check(requests_to(driver, "/compare?from=2&to=3") == 1, "the comparison was not the server's")
    shot(driver, "versions")

    # Version 2 restored, after a confirmation, as version 4 by the admin.
    driver.execute_script("window.confirm = () => true")
    find(driver, "#versions tr[data-version='2'] button.restore-version").click()
    wait(driver, lambda d: "Restored: version 4" in d.find_element(By.ID, "edit-message").text, "the restore was not made")
    status, _, stored = http("GET", f"/1/{APP}/jobs/i/sofa")
    check(stored == {"room": "lounge", "notes": "two seats, grey"}, f"the server holds {stored}")
    wait(driver, lambda d: find(d, "#versions tr[data-version='4']") and "restored from version 2" in find(d, "#versions tr[data-version='4']").text,
         "the history does not show the restore")
    check("admin" in find(driver, "#versions tr[data-version='4'] td.author").text, "the restore is not the admin's")
    shot(driver, "restored")

    # The bucket restored to the moment: a dry run first, then the restore.
    go(driver, "#/buckets")
    opener = wait(driver, lambda d: find(d, "tr[data-bucket=jobs] button.restore-bucket"), "the bucket offers no restore")
    opener.click()
    field = wait(driver, lambda d: find(d, "input.restore-moment"), "no moment to choose")
    driver.execute_script("arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('input'))",
                          field, time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(moment)))
    check(not find(driver, "button.restore-go").is_enabled(), "the restore is offered before a dry run")
    find(driver, "button.restore-dry-run").click()
    wait(driver, lambda d: "2 objects would change (1 put back, 1 made since and removed); 1 removed since stay removed: lamp"
         in find(d, ".restore-result").text, "the dry run does not say what would change")
    status, _, table = http("GET", f"/1/{APP}/jobs/i/table")
    check(table == {"room": "?"}, "the dry run changed something")
    shot(driver, "bucket-dry-run")
    find(driver, "button.restore-go").click()
    wait(driver, lambda d: "2 objects changed" in find(d, ".restore-result").text, "the bucket was not restored")
    check(http("GET", f"/1/{APP}/jobs/i/table")[2] == {"room": "kitchen"}, "table was not put back")
    check(http("GET", f"/1/{APP}/jobs/i/chair")[0] == 404, "chair, made after the moment, was not removed")
    check(http("GET", f"/1/{APP}/jobs/i/lamp")[0] == 404, "lamp came back")
    shot(driver, "bucket-restored")


def scenario_tail(driver):
    check(http("POST", f"/1/{APP}/__options__/i/events", {"shared": True})[0] == 200, "could not share bucket events")
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/tail?bucket=events&owner=")
    wait(driver, lambda d: find(d, "#tail[data-live]"), "the tail did not go live")
    for attempt in range(3):
        key = f"e{attempt}"
        started = time.monotonic()
        check(http("POST", f"/1/{APP}/events/i/{key}", {"n": attempt})[0] == 200, "the HTTP write failed")
        wait(driver, lambda d: find(d, f"#tail li[data-key={key}]"), f"{key} did not reach the tail", seconds=5)
        elapsed = time.monotonic() - started
        print(f"tail latency {key}: {elapsed * 1000:.0f} ms")
        check(elapsed < 1.0, f"{key} took {elapsed:.3f} s to show in the tail")
    shot(driver, "tail")


def scenario_store(driver):
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/store")
    wait(driver, lambda d: find(d, ".grid[data-store=main] .slot[data-item]"), "the grid shows no item", seconds=15)
    status, _, window = http("GET", "/releases/main/windows/latest", token=None)
    check(status == 200, f"no window: {status}")
    now = time.time() * 1000
    upcoming = sorted((entry for entry in window["entries"] if entry["start"] > now + 3000), key=lambda entry: entry["start"])
    check(upcoming, "no entry starts in this window after three seconds")
    entry = upcoming[0]
    selector = f".grid[data-store=main] .slot[data-entry='{entry['slot']}:{entry['start']}']"
    while time.time() * 1000 < entry["start"] - 1200:
        time.sleep(0.05)
    check(find(driver, selector) is None, f"slot {entry['slot']} shows its item before {entry['start']}")
    shot(driver, "before-release")
    asked = requests_to(driver, "/keys/latest")
    while time.time() * 1000 < entry["start"] - 150:
        check(find(driver, selector) is None, f"slot {entry['slot']} shows its item before {entry['start']}")
        time.sleep(0.02)
    # Read in one script call each: the store view redraws its slots, and an element found a
    # moment ago may be gone (a stale element).
    opened_at = int(wait(driver, lambda d: attribute(d, selector, "data-opened-at"),
                         f"slot {entry['slot']} did not show its item from {entry['start']}", seconds=3))
    item = attribute(driver, selector, "data-item")
    late = opened_at - entry["start"]
    print(f"release {entry['slot']}:{entry['start']} opened {late} ms after its second (page's server time)")
    check(late >= 0, f"the page opened the item {-late} ms before its release")
    check(late < 1000, f"the page opened the item {late} ms after its release")
    check(item, "the opened slot names no item")
    # The key came pushed on the socket at its second, not asked for over HTTP (only on opening).
    check(requests_to(driver, "/keys/latest") == asked, f"the page asked for keys over HTTP {requests_to(driver, '/keys/latest') - asked} times after opening")
    shot(driver, "after-release")
    # A purchase shows in the list; coming back to the view reads on from where the list stopped.
    status, _, grant = http("POST", f"/1/{APP}/token", {"username": "buyer@example.com"})
    check(status == 200, f"no token: {status}")
    bought = {"id": "p-console-1", "store": "main", "slot": entry["slot"], "start": entry["start"], "item": item}
    status, _, answer = http("POST", f"/1/{APP}/purchase", bought, token=grant["access_token"])
    check(status == 201, f"the purchase was refused: {status} {answer}")
    wait(driver, lambda d: "buyer@example.com" in d.find_element(By.TAG_NAME, "main").text, "the purchase is not listed", seconds=5)
    reads = lambda d: d.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('purchases/all'))")
    go(driver, "#/overview")
    wait(driver, lambda d: find(d, "[data-changes]"), "no overview")
    go(driver, "#/store")
    wait(driver, lambda d: find(d, ".grid[data-store=main]") and "buyer@example.com" in d.find_element(By.TAG_NAME, "main").text,
         "the purchase is not listed on coming back")
    status, _, answer = http("POST", f"/1/{APP}/purchase", {**bought, "id": "p-console-2"}, token=grant["access_token"])
    check(status == 201, f"the second purchase was refused: {status} {answer}")
    wait(driver, lambda d: d.find_element(By.TAG_NAME, "main").text.count("buyer@example.com") == 2, "the second purchase is not listed", seconds=5)
    # Long polls show in the resource timing once answered: the one that brought the second purchase is.
    wait(driver, lambda d: len(reads(d)) >= 2, "the purchase reads are not in the resource timing")
    # The first read takes the newest end of the feed; every later one follows on from a cv, but
    # the one after an empty end (there was nothing before it: this scenario's first purchase).
    newest = [name for name in reads(driver) if "newest=" in name]
    fromStart = [name for name in reads(driver) if "cv=" not in name and "newest=" not in name]
    check(len(newest) == 1 and len(fromStart) <= 1, f"the purchases were not read from the newest end on: {reads(driver)}")
    shot(driver, "purchases")


def scenario_clock(driver):
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/clock")
    wait(driver, lambda d: find(d, "#clock-offset[data-offset]"), "the clock shows no offset", seconds=15)
    first = int(attribute(driver, "#clock-offset", "data-exchanges"))
    # Two exchanges a second from then on: the page's estimate combines them as they come.
    wait(driver, lambda d: int(attribute(d, "#clock-offset", "data-exchanges")) >= first + 8,
         "the page's estimate takes in no further exchanges", seconds=15)
    reading = driver.find_element(By.ID, "clock-offset")
    offset = float(reading.get_attribute("data-offset"))
    uncertainty = float(reading.get_attribute("data-uncertainty"))
    bound = float(reading.get_attribute("data-bound"))
    exchanges = int(reading.get_attribute("data-exchanges"))
    print(f"clock offset {offset:.3f} ms ± {uncertainty:.3f} ms (bound {bound:.3f} ms) from {exchanges} exchanges (the server runs 1500 ms ahead)")
    # The true offset, 1500 ms, lies within the uncertainty (and Chromium's coarse timers, 0.1 ms),
    # which is never wider than the bound.
    check(abs(offset - 1500) <= uncertainty + 0.2, f"offset {offset} ± {uncertainty} does not cover 1500 ms")
    check(uncertainty <= bound, f"uncertainty {uncertainty} wider than the bound {bound}")
    # The chart follows the estimate after each exchange, its uncertainty as a band.
    check(find(driver, "#clock-convergence svg.chart polyline") is not None, "no chart of the estimate")
    check(find(driver, "#clock-convergence svg.chart polygon.band") is not None, "no band of the uncertainty")
    shot(driver, "clock")


def scenario_overview(driver):
    check(http("POST", f"/1/{APP}/__options__/i/events", {"shared": True})[0] == 200, "could not share bucket events")
    sign_in(driver)
    wait(driver, lambda d: find(d, "[data-changes]"), "the overview shows no change count")
    asked = requests_to(driver, "__admin__/stats")
    for attempt in range(3):
        before = int(attribute(driver, "[data-changes]", "data-changes"))
        started = time.monotonic()
        check(http("POST", f"/1/{APP}/events/i/o{attempt}", {"n": attempt})[0] == 200, "the HTTP write failed")
        wait(driver, lambda d: int(attribute(d, "[data-changes]", "data-changes")) == before + 1,
             f"the overview's change count did not move from {before}", seconds=5)
        elapsed = time.monotonic() - started
        print(f"overview change count moved {elapsed * 1000:.0f} ms after the write")
        check(elapsed < 1.0, f"the overview took {elapsed:.3f} s to count the write")
    wait(driver, lambda d: find(d, "svg.chart polyline"), "no chart of changes per second")
    # Live through the socket, not by asking: no stats request since the first (sign-in's).
    time.sleep(3)
    check(requests_to(driver, "__admin__/stats") == asked, f"the overview asked for the stats again: {requests_to(driver, '__admin__/stats')} requests, {asked} before")
    print(f"admin stats requests over HTTP: {asked} (signing in), none while the overview was shown")
    shot(driver, "overview-live")


def scenario_presence(driver):
    check(http("POST", f"/1/{APP}/__options__/i/lobby", {"shared": True, "presence": "client"})[0] == 200, "could not make lobby")
    status, _, grant = http("POST", f"/1/{APP}/token", {"username": "player@example.com"})
    check(status == 200, f"no token: {status}")
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/presence")
    wait(driver, lambda d: "open streaming connection" in d.find_element(By.TAG_NAME, "main").text, "the presence view shows no report")
    for key in ("ann", "bob"):
        sent = device_claims(driver, grant["access_token"], "lobby", key)
        shown = wait(driver, lambda d: find(d, f"[data-presence-bucket=lobby] tr[data-claim={key}]") and
                     driver.execute_script("return performance.timeOrigin + performance.now()"), f"the claim of {key} did not appear", seconds=5)
        print(f"presence claim {key} shown {shown - sent:.0f} ms after it was sent")
        check(shown - sent < 1000, f"the claim of {key} took {shown - sent:.0f} ms to show")
    shot(driver, "presence-live")
    # Its connection closes: the claim goes, live too.
    driver.execute_script("window.__devices[0].close()")
    wait(driver, lambda d: find(d, "[data-presence-bucket=lobby] tr[data-claim=ann]") is None, "the released claim stayed", seconds=5)
    check(find(driver, "[data-presence-bucket=lobby] tr[data-claim=bob]") is not None, "the other claim went too")
    check(requests_to(driver, "__admin__/presence") == 0, "the presence view asked over HTTP")


def press(driver, selector, label):
    """Clicks the button `label` among `selector`, as it is when clicked: a view redrawn by a push
    replaces its buttons. Clicked from a timer, so that a confirm() it opens does not hold the call."""
    wait(driver, lambda d: d.execute_script(
        "const b = [...document.querySelectorAll(arguments[0])].find((b) => b.textContent === arguments[1]);"
        "if (!b) return false; setTimeout(() => b.click(), 0); return true;", selector, label), f"no {label} button")


class Receiver:
    """A webhook receiver on 127.0.0.1 in this process: answers each request with `status`."""

    def __init__(self):
        import http.server

        receiver = self
        self.status = 200
        self.requests = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append((self.headers.get("webhook-id"), json.loads(body)))
                self.send_response(receiver.status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"


def scenario_webhooks(driver):
    receiver = Receiver()
    status, _, grant = http("POST", f"/1/{APP}/token", {"username": "clerk@example.com"})
    check(status == 200, f"no token: {status}")
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/webhooks")
    wait(driver, lambda d: "No endpoints" in d.find_element(By.TAG_NAME, "main").text, "the webhooks view shows no report")
    driver.find_element(By.CSS_SELECTOR, ".webhook-add input[type=url]").send_keys(receiver.url)
    driver.find_element(By.CSS_SELECTOR, ".webhook-add input[data-event=presence]").click()
    driver.find_element(By.CSS_SELECTOR, ".webhook-add button[type=submit]").click()
    wait(driver, lambda d: (find(d, ".webhook-secret") and d.find_element(By.CSS_SELECTOR, ".webhook-secret").text.startswith("whsec_")),
         "the new endpoint's secret was not shown")
    wait(driver, lambda d: find(d, "section.webhook [data-state=enabled]"), "the new endpoint did not appear")
    check("change, presence" in driver.find_element(By.CSS_SELECTOR, "section.webhook").text, "the endpoint's events are not shown")
    shot(driver, "added")

    # A write is delivered, and the delivery shows without asking.
    check(http("POST", f"/1/{APP}/notes/i/n1", {"title": "milk"}, token=grant["access_token"])[0] == 200, "the write failed")
    wait(driver, lambda d: find(d, "section.webhook tr[data-state=delivered]"), "the delivery did not show", seconds=10)
    check(receiver.requests and receiver.requests[0][1]["events"][0]["data"]["id"] == "n1", f"the receiver got {receiver.requests}")
    check(requests_to(driver, "__admin__/webhooks") == 1, "the view asked over HTTP for what is pushed")
    shot(driver, "delivered")

    # A failing receiver: the delivery waits for its next attempt, live.
    receiver.status = 500
    check(http("POST", f"/1/{APP}/notes/i/n2", {"title": "eggs"}, token=grant["access_token"])[0] == 200, "the write failed")
    wait(driver, lambda d: find(d, "section.webhook tr[data-state=pending]"), "the failing delivery did not show", seconds=10)
    shot(driver, "pending")
    receiver.status = 200

    press(driver, "section.webhook button", "Send a test")
    wait(driver, lambda d: "answered 200" in d.find_element(By.CSS_SELECTOR, "main [role=alert]").text, "the test's answer was not shown")
    check(receiver.requests[-1][1]["events"][0]["type"] == "webhook.test", "the receiver got no test event")
    press(driver, "section.webhook button", "Remove")
    WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert).accept()
    wait(driver, lambda d: find(d, "section.webhook") is None, "the removed endpoint stayed")
    receiver.server.shutdown()


def scenario_views(driver):
    sign_in(driver)
    wait(driver, lambda d: find(d, "#shell:not([hidden])"), "not signed in")
    go(driver, "#/users")
    # The view draws once the user list has come back: wait for it, not only for the hash.
    name = wait(driver, lambda d: find(d, "input[aria-label=\"New user's name\"]"), "the users view has no form for a new user")
    name.send_keys("alice@example.com")
    name.submit()
    wait(driver, lambda d: find(d, "tr[data-user='alice@example.com']"), "the new user is not listed")
    driver.find_element(By.CSS_SELECTOR, "tr[data-user='alice@example.com'] button.quiet").click()
    token = wait(driver, lambda d: find(d, "code.issued-token"), "no token was issued").text
    check(http("GET", f"/1/{APP}/notes/index", token=token)[0] == 200, "the issued token does not work")
    driver.execute_script("window.confirm = () => true")
    driver.find_element(By.CSS_SELECTOR, "tr[data-user='alice@example.com'] button.danger").click()
    wait(driver, lambda d: "Revoked 1 token" in d.find_element(By.TAG_NAME, "main").text, "the token was not revoked")
    check(http("GET", f"/1/{APP}/notes/index", token=token)[0] == 401, "the revoked token still works")
    shot(driver, "users")
    check(http("POST", f"/1/{APP}/__options__/i/lobby", {"shared": True, "presence": "client"})[0] == 200, "could not make lobby")
    check(http("POST", f"/1/{APP}/lobby/i/someone", {"here": True})[0] == 200, "could not write to lobby")
    # Keyboard: ] moves from Users to the next view, Buckets.
    driver.find_element(By.TAG_NAME, "body").send_keys("]")
    wait(driver, lambda d: d.current_url.endswith("#/buckets"), "] did not move to Buckets")
    wait(driver, lambda d: find(d, "tr[data-bucket=lobby]"), "lobby is not listed")
    shot(driver, "buckets")
    # A space's bucket opens under the name its members use, __<space>.<bucket>.
    check(http("POST", f"/1/{APP}/__spaces__", {"name": "job-1"})[0] == 201, "could not make space job-1")
    check(http("POST", f"/1/{APP}/__job-1.items/i/sofa", {"room": "lounge"})[0] == 200, "could not write to the space")
    go(driver, "#/overview")
    wait(driver, lambda d: find(d, "[data-stat=version] b"), "no overview")
    go(driver, "#/buckets")
    link = wait(driver, lambda d: find(d, "tr[data-bucket=items] a"), "the space's bucket has no link")
    check("space job-1" in find(driver, "tr[data-bucket=items]").text, "the space's bucket does not name its space")
    link.click()
    wait(driver, lambda d: find(d, "tr[data-key=sofa]"), "the space's object is not listed")
    find(driver, "tr[data-key=sofa] button").click()
    wait(driver, lambda d: "lounge" in (find(d, "#object-json").get_attribute("value") if find(d, "#object-json") else ""),
         "the space's object does not open")
    shot(driver, "space-object")
    # The space's bucket tailed by choosing it from the list, not by typing __job-1.items.
    go(driver, "#/tail")
    chooser = wait(driver, lambda d: find(d, "select.bucket-chooser"), "the tail offers no list of buckets")
    choice = [o for o in chooser.find_elements(By.TAG_NAME, "option") if "space job-1" in o.text]
    check(choice, "the space's bucket is not offered for the tail")
    choice[0].click()
    wait(driver, lambda d: find(d, "#tail[data-live]"), "the space's tail did not go live")
    check(http("POST", f"/1/{APP}/__job-1.items/i/chair", {"room": "study"})[0] == 200, "could not write to the space")
    wait(driver, lambda d: find(d, "#tail li[data-key=chair]"), "the space's change did not reach the tail", seconds=5)
    shot(driver, "space-tail")
    go(driver, "#/presence")
    wait(driver, lambda d: find(d, "[data-presence-bucket=lobby]"), "the presence view does not list lobby")
    shot(driver, "presence")
    go(driver, "#/overview")
    wait(driver, lambda d: find(d, "[data-stat=version] b"), "no overview")
    shot(driver, "overview")


PAGE_PROBE = """
const [base, app, token, admin, done] = arguments;
(async () => {
const result = {};
const read = async (path, token) => {
  try {
    const answer = await fetch(base + path, {headers: {'X-Simperium-Token': token}});
    return {status: answer.status, version: answer.headers.get('X-Simperium-Version'), body: await answer.json()};
  } catch (error) {
    return {error: String(error)};
  }
};
result.object = await read(`/1/${app}/notes/i/groceries`, token);
result.admin = await read(`/1/${app}/__admin__/stats`, admin);
result.socket = await new Promise((resolve) => {
  const socket = new WebSocket(base.replace('http://', 'ws://') + `/sock/1/${app}/websocket`);
  socket.onopen = () => socket.send('0:init:' + JSON.stringify({name: 'notes', token, clientid: 'page', api: '1.1'}));
  socket.onmessage = (event) => { socket.close(); resolve({opened: true, first: String(event.data)}); };
  socket.onerror = () => resolve({opened: false});
  setTimeout(() => resolve({opened: false, timedOut: true}), 10000);
});
done(result);
})();
"""


def scenario_origins(driver):
    port = int(os.environ["LOCKSTEP_PAGE_PORT"])
    EXPECTED_ERRORS.extend(["blocked by CORS policy", "WebSocket connection to"])
    pages = tempfile.mkdtemp(prefix="lockstep-pages-")
    with open(os.path.join(pages, "index.html"), "w") as page:
        page.write("<!doctype html><title>Another site</title><p>A page of another origin.</p>")
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda *_: None})
    site = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(quiet, directory=pages))
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        status, _, grant = http("POST", f"/1/{APP}/token", {"username": "customer@example.com"})
        check(status == 200, f"no token: {status}")
        user = grant["access_token"]
        check(http("POST", f"/1/{APP}/notes/i/groceries", {"title": "Groceries"}, token=user)[0] == 200, "could not write groceries")

        # The listed origin: the page reads the object and opens the socket; the admin token it
        # is refused, and the page reads why.
        driver.get(f"http://127.0.0.1:{port}/")
        listed = driver.execute_async_script(PAGE_PROBE, BASE, APP, user, ADMIN)
        print(f"listed origin: {listed}")
        check(listed["object"].get("status") == 200 and listed["object"].get("body") == {"title": "Groceries"},
              f"the listed page could not read the object: {listed['object']}")
        check(listed["object"].get("version") == "1", f"X-Simperium-Version is not exposed: {listed['object']}")
        check(listed["admin"].get("status") == 403 and "--allowed-admin-origin" in json.dumps(listed["admin"].get("body")),
              f"the admin token was not refused readably: {listed['admin']}")
        check(listed["socket"] == {"opened": True, "first": "0:auth:customer@example.com"},
              f"the listed page's socket did not open: {listed['socket']}")
        shot(driver, "listed-page")

        # The same page from an origin not listed reads nothing and opens no socket.
        driver.get(f"http://localhost:{port}/")
        other = driver.execute_async_script(PAGE_PROBE, BASE, APP, user, ADMIN)
        print(f"unlisted origin: {other}")
        check("error" in other["object"], f"the unlisted page read the object: {other['object']}")
        check("error" in other["admin"], f"the unlisted page read the admin API: {other['admin']}")
        check(not other["socket"]["opened"] and not other["socket"].get("timedOut"),
              f"the unlisted page's socket was not refused: {other['socket']}")
        # Refused by the server, not only hidden by the browser.
        server = HTTPConnection(BASE.removeprefix("http://"), timeout=30)
        server.request("GET", f"/sock/1/{APP}/websocket", headers={
            "Origin": f"http://localhost:{port}", "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13"})
        answer = server.getresponse()
        check(answer.status == 403, f"the server upgraded an unlisted page's socket: {answer.status} {answer.read()!r}")
        server.close()

        # The console, the server's own page, with the admin token as ever.
        sign_in(driver)
        wait(driver, lambda d: find(d, "[data-stat=version] b"), "the console did not sign in with origins listed")
        shot(driver, "console-with-origins")
    finally:
        site.shutdown()
        shutil.rmtree(pages, ignore_errors=True)


def main():
    os.makedirs(SHOTS, exist_ok=True)
    # Chromium leaves its singleton socket's directory in TMPDIR behind; give it one to remove.
    scratch = tempfile.mkdtemp(prefix="lockstep-browser-")
    os.environ["TMPDIR"] = scratch
    driver = browser()
    try:
        globals()[f"scenario_{SCENARIO}"](driver)
        # Refused requests the page answers (a wrong token's 401, a 404 before a key's time) are
        # logged by Chromium as network errors, and so are the refusals a scenario expects
        # (EXPECTED_ERRORS); anything else severe (a script error, a policy violation) fails it.
        problems = [entry for entry in driver.get_log("browser")
                    if entry.get("level") == "SEVERE" and not any(expected in entry.get("message", "") for expected in EXPECTED_ERRORS)]
        check(not problems, f"the page logged errors: {problems}")
    except Failed as failure:
        print(f"FAILED {SCENARIO}: {failure}")
        sys.exit(1)
    finally:
        driver.quit()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"ok {SCENARIO}")


main()
