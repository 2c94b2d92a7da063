// Objects of one bucket (one owner's): paged by key, searchable by key prefix, live through a
// streaming channel. An object shows its JSON, its history (any two versions compared as a
// jsondiff and as highlighted text), and is edited or deleted as a change with its own ccid.
import * as api from "../api.js";
import { openChannel, startFromNow } from "../socket.js";
import { fill, h } from "../dom.js";
import { lineDiff, objectDiff, pretty } from "../jsondiff.js";
import { address, bucketChooser } from "./choose.js";

export async function show(main, params) {
  const bucket = params.get("bucket") ?? "";
  const owner = params.get("owner") ?? "";
  const space = params.get("space") ?? "";
  const chooser = await bucketChooser("objects", bucket, owner);
  if (!bucket) {
    fill(main, h("h2", {}, "Objects"), chooser, h("p", { class: "muted" }, "Choose a bucket (or open one from Buckets)."));
    return;
  }
  const { user, name } = address(bucket, owner, space);
  const path = (rest) => `${encodeURIComponent(name)}/${rest}`;
  const prefix = h("input", { type: "search", placeholder: "key begins with…", "aria-label": "Search objects by key prefix", spellcheck: "false" });
  const rows = h("tbody");
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "More");
  const detail = h("section", { class: "detail", "aria-live": "polite" }, h("p", { class: "muted" }, "Choose an object."));
  // Outlives each redraw of the object (its own change comes back live and redraws it).
  const message = h("p", { role: "alert", id: "edit-message" });
  let after = null;
  let selected = null;
  // Whether the shown object's JSON has been edited and not saved: a change from elsewhere then
  // leaves the editor alone (saving sends the edit against the version it was made on, and the
  // server merges it over what came since).
  let editing = () => false;
  // The ccids this page sent: their change coming back redraws the object, edited or not.
  const sent = new Set();
  const rowFor = new Map();

  async function load(reset) {
    if (reset) {
      after = null;
      rows.replaceChildren();
      rowFor.clear();
    }
    const query = new URLSearchParams({ owner, prefix: prefix.value, limit: "50" });
    if (after) query.set("after", after);
    const page = await api.get(`__admin__/objects/${encodeURIComponent(bucket)}?${query}`);
    for (const object of page.objects) upsertRow(object.id, object.v, object.deleted, false);
    after = page.after ?? null;
    more.hidden = !after;
  }

  function upsertRow(key, version, deleted, live) {
    let row = rowFor.get(key);
    const cells = [
      h("td", {}, h("button", { type: "button", class: "quiet object-key", onclick: () => select(key) }, key)),
      h("td", { class: "version" }, version),
      h("td", {}, deleted ? "removed" : ""),
    ];
    if (row) fill(row, ...cells);
    else {
      row = h("tr", { "data-key": key }, ...cells);
      rowFor.set(key, row);
      if (live) rows.prepend(row);
      else rows.append(row);
    }
    row.classList.toggle("selected", key === selected);
  }

  async function select(key) {
    if (key !== selected) message.replaceChildren();
    selected = key;
    for (const [other, row] of rowFor) row.classList.toggle("selected", other === key);
    await showObject(key);
  }

  async function showObject(key) {
    const title = h("h3", {}, key);
    let response;
    try {
      response = await api.get(path(`i/${encodeURIComponent(key)}`), { user, raw: true });
    } catch (error) {
      fill(detail, title, h("p", { class: "error" }, error.message));
      return;
    }
    const data = await response.json();
    const version = Number(response.headers.get("X-Simperium-Version"));
    const editor = h("textarea", { "aria-label": `JSON of ${key}`, spellcheck: "false", class: "mono", id: "object-json" });
    editor.value = pretty(data);
    editing = () => editor.value !== pretty(data);
    const save = h("button", { type: "button", id: "save-object" }, "Save as a change");
    const remove = h("button", { type: "button", class: "danger" }, "Delete");
    save.addEventListener("click", async () => {
      let edited;
      try {
        edited = JSON.parse(editor.value);
      } catch (error) {
        return fill(message, h("span", { class: "error" }, `Not valid JSON: ${error.message}`));
      }
      if (edited === null || typeof edited !== "object" || Array.isArray(edited)) {
        return fill(message, h("span", { class: "error" }, "An object's data must be a JSON object ({…})."));
      }
      const diff = objectDiff(data, edited);
      if (!Object.keys(diff).length) return fill(message, h("span", { class: "muted" }, "Nothing changed."));
      const ccid = api.newChangeID();
      sent.add(ccid);
      await send({ id: key, o: "M", v: diff, sv: version, ccid }, message);
    });
    remove.addEventListener("click", async () => {
      if (!confirm(`Delete ${key}? A removed object never comes back.`)) return;
      await send({ id: key, o: "-", sv: version, ccid: api.newChangeID() }, message);
    });
    fill(detail,
      title,
      h("p", { class: "muted" }, `version ${version}`),
      editor,
      h("div", { class: "row" }, save, remove),
      message,
      await history(key));
  }

  async function send(change, message) {
    fill(message, h("span", { class: "muted" }, "Sending…"));
    const answer = await channel.change(change);
    if (answer.error) fill(message, h("span", { class: "error" }, `The server refused the change (${answer.error}): ${answer.message ?? "no reason given"}`));
    else fill(message, h("span", { class: "ok" }, `Saved: version ${answer.ev} (change ${change.ccid}).`));
  }

  /** The object's retained versions, a page of 20 at a time from the newest (one request per page,
   * __admin__/versions), any two compared as a jsondiff and as highlighted text. */
  async function history(key) {
    const section = h("section", {}, h("h4", {}, "History"));
    const versions = []; // [number, data], oldest first
    let before = null;
    const older = h("button", { type: "button", class: "quiet", id: "older-versions" }, "Older versions");
    const pickers = h("div", { class: "row" });
    const output = h("div");
    const count = h("p", { class: "muted" });

    async function loadPage() {
      const query = new URLSearchParams({ owner, limit: "20" });
      if (before) query.set("before", before);
      const page = await api.get(`__admin__/versions/${encodeURIComponent(bucket)}/${encodeURIComponent(key)}?${query}`);
      versions.unshift(...page.versions.map((entry) => [entry.v, entry.data]).reverse());
      before = page.before ?? null;
      older.hidden = !before;
    }

    function draw(fromIndex, toIndex) {
      count.textContent = `${versions.length} version${versions.length === 1 ? "" : "s"} shown` + (before ? `; older ones are retained` : "");
      if (versions.length < 2) {
        fill(pickers);
        fill(output, h("p", { class: "muted" }, versions.length ? "Only one version is retained." : "No earlier versions are retained."));
        return;
      }
      const pick = (label, index) => h("select", { "aria-label": label },
        versions.map(([number], position) => h("option", { value: position, selected: position === index }, `version ${number}`)));
      const from = pick("Compare from version", fromIndex);
      const to = pick("Compare to version", toIndex);
      const compare = () => {
        const a = versions[Number(from.value)][1];
        const b = versions[Number(to.value)][1];
        fill(output,
          h("h5", {}, "jsondiff"),
          h("pre", { class: "jsondiff" }, JSON.stringify(objectDiff(a, b), null, 2)),
          h("h5", {}, "As text"),
          h("pre", { class: "textdiff" }, lineDiff(pretty(a), pretty(b)).map(([kind, text]) =>
            h("span", { class: `diff-line${kind === "+" ? " diff-add" : kind === "-" ? " diff-del" : ""}` }, `${kind} ${text}`))));
      };
      from.addEventListener("change", compare);
      to.addEventListener("change", compare);
      fill(pickers, from, "→", to);
      compare();
    }

    older.addEventListener("click", async () => {
      const added = versions.length;
      try {
        await loadPage();
      } catch (error) {
        return fill(output, h("p", { class: "error" }, error.message));
      }
      // The comparison stays on the versions it was on; they moved down by the page just added.
      const [from, to] = [...pickers.querySelectorAll("select")].map((select) => Number(select.value) + versions.length - added);
      draw(from ?? versions.length - 2, to ?? versions.length - 1);
    });
    try {
      await loadPage();
    } catch (error) {
      section.append(h("p", { class: "error" }, error.message));
      return section;
    }
    draw(versions.length - 2, versions.length - 1);
    section.append(count, pickers, older, output);
    return section;
  }

  const index = await api.get(path("index?limit=1"), { user });
  const channel = openChannel(name, user, {
    start: (opened) => startFromNow(opened, index.current),
    changes(list) {
      for (const change of list) {
        if (change.error || !change.id.startsWith(prefix.value)) continue;
        upsertRow(change.id, change.ev, change.o === "-", true);
        if (change.id !== selected) continue;
        if (!editing() || (change.ccids ?? []).some((ccid) => sent.has(ccid))) showObject(selected);
        else fill(message, h("span", { class: "muted" },
          `Changed elsewhere (now version ${change.ev}). Your edit is kept: saving merges it over that change. `),
          h("button", { type: "button", class: "quiet", onclick: () => showObject(selected) }, "Discard my edit and reload"));
      }
    },
    error: (text) => fill(detail, h("p", { class: "error" }, `The live channel was refused: ${text}`)),
  });

  let typing = 0;
  prefix.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(true), 200);
  });
  more.addEventListener("click", () => load(false));
  fill(main,
    h("h2", {}, `Objects of ${bucket}`, h("small", { class: "muted" }, space ? ` (space ${space})` : owner ? ` (owner ${owner})` : " (shared)")),
    chooser,
    h("div", { class: "split" },
      h("div", {}, h("div", { class: "row" }, prefix),
        h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Key"), h("th", {}, "Version"), h("th", {}, ""))), rows)),
        more),
      detail));
  await load(true);
  const wanted = params.get("key");
  if (wanted) await select(wanted);
}
