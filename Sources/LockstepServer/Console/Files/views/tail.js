// Live tail of a bucket: every change as it lands on the streaming channel, newest first,
// with pause (changes wait, counted) and a filter on key, client and diff.
import * as api from "../api.js";
import { openChannel, startFromNow } from "../socket.js";
import { fill, h } from "../dom.js";
import { address, bucketChooser } from "./choose.js";

const kept = 500;

export async function show(main, params) {
  const bucket = params.get("bucket") ?? "";
  const owner = params.get("owner") ?? "";
  const space = params.get("space") ?? "";
  const chooser = await bucketChooser("tail", bucket, owner);
  // A bucket nobody wrote yet is not listed: it can be named.
  const name = h("input", { value: owner ? "" : bucket, placeholder: "or name a shared bucket", "aria-label": "Shared bucket to tail", spellcheck: "false" });
  const named = h("form", { class: "row" }, name, h("button", { type: "submit" }, "Tail"));
  named.addEventListener("submit", (event) => {
    event.preventDefault();
    location.hash = `#/tail?bucket=${encodeURIComponent(name.value.trim())}&owner=`;
  });
  const choose = h("div", {}, chooser, named);
  if (!bucket) {
    fill(main, h("h2", {}, "Live tail"), choose, h("p", { class: "muted" }, "Choose a bucket to watch its changes as they land."));
    return;
  }
  const { user, name: wireName } = address(bucket, owner, space);
  const list = h("ul", { class: "tail", id: "tail", "aria-live": "off" });
  const filter = h("input", { type: "search", placeholder: "filter: key, client or diff text", "aria-label": "Filter changes" });
  const pause = h("button", { type: "button", class: "quiet", "aria-pressed": "false" }, "Pause");
  const state = h("span", { class: "muted" });
  const problem = h("p", { class: "error", role: "alert" });
  let paused = false;
  let waiting = [];
  const entries = [];

  const matches = (change) => !filter.value || JSON.stringify(change).toLowerCase().includes(filter.value.toLowerCase());
  const line = (change) => h("li", { "data-key": change.id, hidden: !matches(change) },
    h("span", { class: "muted" }, new Date().toLocaleTimeString(), " "),
    h("b", {}, change.o === "-" ? "removed " : "changed "),
    h("span", { class: "mono" }, change.id), ` → v${change.ev ?? "?"} `,
    h("span", { class: "muted" }, `by ${change.clientid}`),
    change.error ? h("span", { class: "error" }, ` refused (${change.error}) ${change.message ?? ""}`) : null,
    change.v ? h("pre", {}, JSON.stringify(change.v)) : null);

  function add(changes) {
    for (const change of changes) {
      entries.unshift(change);
      list.prepend(line(change));
    }
    while (entries.length > kept) {
      entries.pop();
      list.lastElementChild?.remove();
    }
  }

  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    pause.setAttribute("aria-pressed", String(paused));
    if (!paused) {
      add(waiting);
      waiting = [];
    }
    state.textContent = "";
  });
  filter.addEventListener("input", () => {
    [...list.children].forEach((item, index) => { item.hidden = !matches(entries[index]); });
  });

  const index = await api.get(`${encodeURIComponent(wireName)}/index?limit=1`, { user });
  openChannel(wireName, user, {
    start: (channel) => startFromNow(channel, index.current),
    changes(changes) {
      // The first answer (to cv:) says the channel is live.
      list.dataset.live = "true";
      if (!changes.length) return;
      if (paused) {
        waiting.push(...changes);
        state.textContent = `${waiting.length} change${waiting.length === 1 ? "" : "s"} waiting`;
      } else add(changes);
    },
    error: (text) => { problem.textContent = `The channel was refused: ${text}`; },
  });
  fill(main,
    h("h2", {}, `Live tail of ${bucket}`, h("small", { class: "muted" }, space ? ` (space ${space})` : owner ? ` (owner ${owner})` : " (shared)")),
    choose, problem, h("div", { class: "row" }, filter, pause, state), list);
}
