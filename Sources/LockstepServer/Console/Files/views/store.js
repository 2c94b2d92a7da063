// Timed store: every store's grid on the server's clock. Each slot shows its item from the
// second it is released: the window (GET /releases/<store>/windows/latest) holds every item
// sealed, and the page opens one only with its key, which the server pushes on the streaming
// socket at that second (`release:`, as the SDK's ReleaseTimeline follows it), checked against
// the window's anchor; GET …/keys/latest only when a key is over a second late (the socket
// down). Recent purchases follow the app-wide feed of the purchases bucket.
import * as api from "../api.js";
import * as clock from "../clock.js";
import * as session from "../session.js";
import { KeyRing, open, position } from "../releases.js";
import { followReleases, openAdmin } from "../socket.js";
import { fill, h, when } from "../dom.js";

/** How late a key may be before the page asks for it over HTTP instead of waiting for its push. */
const pushGraceMilliseconds = 1000;

// The purchases read so far in each app, kept for as long as the tab: the first read takes the
// newest 20 (/all?newest=), later ones follow on from the last one's cv, also when the view is
// opened again, so the feed is never read from its start.
const purchasesByApp = new Map();
const purchasesShown = 20;

export async function show(main) {
  let manifest;
  try {
    manifest = await api.publicJSON("/releases");
  } catch (error) {
    fill(main, h("h2", {}, "Timed store"), h("p", { class: "muted" }, error.message));
    return;
  }
  await clock.calibrate(5);
  const keys = new KeyRing();
  const stores = manifest.stores.map((store) => ({ ...store, windows: new Map(), opened: new Map(), grid: h("div", { class: "grid", "data-store": store.id }) }));
  const purchases = h("tbody", {}, h("tr", {}, h("td", { colspan: 5, class: "muted" }, "Reading purchases…")));
  const problem = h("p", { class: "error", role: "alert" });
  const clockLine = h("p", { class: "muted" });
  fill(main,
    h("h2", {}, "Timed store"), clockLine, problem,
    stores.map((store) => h("section", {}, h("h3", {}, `${store.id} · ${store.slots} slots`), store.grid)),
    h("h3", {}, "Recent purchases"),
    h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, ["When", "Buyer", "Store", "Slot", "Item"].map((title) => h("th", {}, title)))), purchases)));

  let stopped = false;
  let keyRequest = null;
  // The newest release the server pushed: its second has come on the server's clock, whatever
  // this page's estimate of that clock says.
  let releasedThrough = 0;
  // Wakes the loop for a pushed key, also one that came while the loop was drawing.
  let wake = null;
  let pushed = false;

  async function refreshWindows(store, now) {
    const newest = Math.max(0, ...store.windows.keys());
    if (newest && now < newest + manifest.stepMs) return;
    const window = await api.publicJSON(`/releases/${encodeURIComponent(store.id)}/windows/latest`);
    store.windows.set(window.start, window);
    store.anchors = Object.fromEntries(window.anchors.map((anchor) => [anchor.epoch, anchor.anchor]));
    for (const released of window.released) await keys.add(released, store.anchors[released.epoch]);
    // Once, on opening: the newest key opens what started before the pushes began.
    if (!newest) await fetchLatestKey(store);
    for (const start of store.windows.keys()) if (start + manifest.windowMs < now) store.windows.delete(start);
  }

  function entryNow(store, slot, now) {
    let current = null;
    let next = null;
    for (const window of store.windows.values()) {
      for (const entry of window.entries) {
        if (entry.slot !== slot) continue;
        if (entry.start <= now && now < entry.end) current = entry;
        else if (entry.start > now && (!next || entry.start < next.start)) next = entry;
      }
    }
    return { current, next };
  }

  /** Opens an entry whose second has come, once its key is here; asks for the newest key when it is not. */
  async function reveal(store, entry) {
    const id = `${entry.slot}:${entry.start}`;
    if (store.opened.has(id)) return store.opened.get(id);
    const chainKey = await keys.keyAt(store.id, position(entry.start));
    if (!chainKey) {
      if (clock.serverNow() - entry.start > pushGraceMilliseconds) keyRequest ??= fetchLatestKey(store).finally(() => { keyRequest = null; });
      return null;
    }
    try {
      const item = await open(entry, store.id, chainKey);
      const shown = { item, openedAt: clock.serverNow() };
      store.opened.set(id, shown);
      return shown;
    } catch {
      problem.textContent = `The item of slot ${entry.slot} at ${entry.start} does not open with its key: it was tampered with or moved.`;
      store.opened.set(id, { item: null, broken: true });
      return store.opened.get(id);
    }
  }

  async function fetchLatestKey(store) {
    const released = await api.publicJSON(`/releases/${encodeURIComponent(store.id)}/keys/latest`);
    if (!(await keys.add(released, store.anchors?.[released.epoch]))) {
      problem.textContent = `The server's key ${released.epoch}/${released.index} is not on the chain its window announced.`;
    }
  }

  async function draw() {
    const now = Math.max(clock.serverNow(), releasedThrough);
    const estimate = clock.estimate();
    clockLine.textContent = `server time ${new Date(now).toLocaleTimeString()} (the server's clock is ${estimate.offset >= 0 ? "+" : ""}${estimate.offset.toFixed(1)} ms ± ${estimate.bound.toFixed(1)} ms from this browser's)`;
    for (const store of stores) {
      await refreshWindows(store, now);
      const cells = [];
      for (let slot = 0; slot < store.slots; slot++) {
        const { current, next } = entryNow(store, slot, now);
        const shown = current ? await reveal(store, current) : null;
        const name = shown?.item?.item ? shown.item.data?.name ?? shown.item.item : shown ? "(empty)" : current ? "opening…" : "—";
        const left = current ? Math.max(0, current.end - now) : 0;
        cells.push(h("div", {
          class: "slot", "data-slot": slot,
          "data-entry": shown && current ? `${current.slot}:${current.start}` : null,
          "data-item": shown?.item?.item ?? null,
          "data-opened-at": shown?.openedAt ? Math.round(shown.openedAt) : null,
        },
        h("div", { class: "muted" }, `slot ${slot}`),
        h("div", { class: "name" }, name),
        current && h("div", { class: "bar", role: "progressbar", "aria-label": `time left in slot ${slot}`, "aria-valuenow": Math.round(left / 1000) },
          h("i", { style: null, "data-fraction": (left / (current.end - current.start)).toFixed(3) })),
        h("small", { class: "muted" }, current ? `${Math.ceil(left / 1000)} s left` : "", next ? ` · next in ${Math.ceil((next.start - now) / 1000)} s` : "")));
      }
      fill(store.grid, ...cells);
      // Widths set through the CSSOM: the policy allows no inline style attributes.
      for (const bar of store.grid.querySelectorAll(".bar i")) bar.style.width = `${Number(bar.dataset.fraction) * 100}%`;
    }
  }

  async function loop() {
    while (!stopped) {
      pushed = false;
      try {
        await draw();
        problem.textContent &&= problem.textContent.startsWith("Could not") ? "" : problem.textContent;
      } catch (error) {
        problem.textContent = `Could not update the store: ${error.message}`;
      }
      // Drawn again for the countdowns, or at once when a release is pushed.
      await new Promise((resolve) => {
        if (pushed) return resolve();
        wake = resolve;
        setTimeout(resolve, 250);
      });
    }
  }

  async function released(key) {
    const store = stores.find((candidate) => candidate.id === key.store);
    // A key of an epoch whose window is not here yet is left for that window's `released`.
    if (!store?.anchors?.[key.epoch]) return;
    if (!(await keys.add(key, store.anchors[key.epoch]))) {
      problem.textContent = `The server's key ${key.epoch}/${key.index} is not on the chain its window announced.`;
      return;
    }
    releasedThrough = Math.max(releasedThrough, key.time);
    pushed = true;
    wake?.();
  }

  async function followPurchases() {
    const app = session.current().app;
    if (!purchasesByApp.has(app)) purchasesByApp.set(app, { started: false, cursor: null, recent: [] });
    const purchasesRead = purchasesByApp.get(app);
    const recent = purchasesRead.recent;
    const show = () => {
      fill(purchases, recent.map((purchase) => h("tr", {},
        h("td", {}, when(purchase.purchasedAt)), h("td", {}, purchase.buyer), h("td", {}, purchase.store),
        h("td", {}, purchase.slot), h("td", {}, purchase.item))));
      if (!recent.length) fill(purchases, h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No purchases yet.")));
    };
    if (purchasesRead.started) show();
    while (!stopped) {
      try {
        const query = new URLSearchParams({ data: "1", username: "1", batch: "200" });
        if (!purchasesRead.started) query.set("newest", String(purchasesShown));
        else if (purchasesRead.cursor) query.set("cv", purchasesRead.cursor);
        const changes = await api.get(`purchases/all?${query}`);
        if (stopped) return;
        purchasesRead.started = true;
        for (const change of changes) {
          purchasesRead.cursor = change.cv;
          if (change.d) recent.unshift({ ...change.d, buyer: change.username ?? change.id.split("/")[0] });
        }
        recent.splice(purchasesShown);
        show();
      } catch (error) {
        if (stopped) return;
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  }

  openAdmin();
  followReleases(
    (key) => released(key).catch((error) => { problem.textContent = `A pushed key did not check: ${error.message}`; }),
    // Subscribed (again): the newest key covers what was released before, for the stores whose
    // window is here (a store's first window asks for it itself).
    () => { for (const store of stores) if (store.anchors) fetchLatestKey(store).catch(() => {}); });
  loop();
  followPurchases();
  const calibrating = setInterval(() => clock.exchange().catch(() => {}), 5000);
  return () => {
    stopped = true;
    clearInterval(calibrating);
  };
}
