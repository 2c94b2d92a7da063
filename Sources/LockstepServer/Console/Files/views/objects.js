// Objects of one bucket (one owner's): paged by key, searchable by key prefix, live through a
// streaming channel. An object shows its JSON and its history (each version with who made it
// and when; any two compared by the server as a jsondiff and as text per string, and as
// highlighted lines; any one restored, after a confirmation, as a new change), and is edited
// or deleted as a change with its own ccid.
import * as api from "../api.js";
import { openChannel, startFromNow } from "../socket.js";
import { fill, h, when } from "../dom.js";
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
      await history(key, version));
  }

  async function send(change, message) {
    fill(message, h("span", { class: "muted" }, "Sending…"));
    const answer = await channel.change(change);
    if (answer.error) fill(message, h("span", { class: "error" }, `The server refused the change (${answer.error}): ${answer.message ?? "no reason given"}`));
    else fill(message, h("span", { class: "ok" }, `Saved: version ${answer.ev} (change ${change.ccid}).`));
  }

  /** The object's retained versions, a page of 20 at a time from the newest (one request per page,
   * __admin__/versions), each with who made it and when; any two compared by the server (…/compare:
   * the jsondiff, and each string that differs as text) and as highlighted lines of the whole object;
   * any one restored after a confirmation (…/restore), a new change every device receives. */
  async function history(key, current) {
    const section = h("section", { id: "history" }, h("h4", {}, "History"));
    const versions = []; // as the server sends them, newest first
    let before = null;
    const rows = h("tbody");
    const older = h("button", { type: "button", class: "quiet", id: "older-versions" }, "Older versions");
    const pickers = h("div", { class: "row" });
    const output = h("div", { id: "comparison" });
    const count = h("p", { class: "muted" });

    async function loadPage() {
      const query = new URLSearchParams({ owner, limit: "20" });
      if (before) query.set("before", before);
      const page = await api.get(`__admin__/versions/${encodeURIComponent(bucket)}/${encodeURIComponent(key)}?${query}`);
      versions.push(...page.versions);
      rows.append(...page.versions.map(versionRow));
      before = page.before ?? null;
      older.hidden = !before;
    }

    function versionRow(entry) {
      const restore = entry.removed || entry.v === current ? "" :
        h("button", { type: "button", class: "quiet restore-version", onclick: () => restoreTo(entry.v) }, "Restore");
      const note = entry.removed ? "removed"
        : entry.restoredFrom === 0 ? "restore (removed: made after the moment)"
        : entry.restoredFrom !== undefined ? `restored from version ${entry.restoredFrom}` : "";
      return h("tr", { "data-version": entry.v },
        h("td", {}, entry.v),
        h("td", { title: new Date(entry.committedAt).toISOString() }, when(entry.committedAt)),
        h("td", { class: "author" }, authorLabel(entry.author)),
        h("td", { class: "mono" }, entry.author.client),
        h("td", {}, note),
        h("td", {}, restore));
    }

    async function restoreTo(version) {
      if (!confirm(`Restore ${key} to version ${version}? Its data becomes a new version, which every device receives.`)) return;
      const ccid = api.newChangeID();
      sent.add(ccid);
      fill(message, h("span", { class: "muted" }, "Restoring…"));
      try {
        const query = new URLSearchParams({ clientid: channel.clientID, ccid });
        const answer = await api.post(path(`i/${encodeURIComponent(key)}/restore?${query}`), { version }, { user });
        fill(message, h("span", { class: "ok" }, answer.changed
          ? `Restored: version ${answer.version} holds the data of version ${version}.`
          : `Nothing to restore: the object holds the data of version ${version} already.`));
      } catch (error) {
        fill(message, h("span", { class: "error" }, `The server refused the restore (${error.status}): ${error.message}`));
      }
    }

    function draw(from, to) {
      count.textContent = `${versions.length} version${versions.length === 1 ? "" : "s"} shown` + (before ? "; older ones are retained" : "");
      const comparable = versions.filter((entry) => !entry.removed);
      if (comparable.length < 2) {
        fill(pickers);
        fill(output, h("p", { class: "muted" }, comparable.length ? "Only one version with data is retained." : "No earlier versions are retained."));
        return;
      }
      const pick = (label, chosen) => h("select", { "aria-label": label },
        comparable.map((entry) => h("option", { value: entry.v, selected: entry.v === chosen },
          `version ${entry.v} · ${when(entry.committedAt)} · ${authorLabel(entry.author)}`)));
      const fromPicker = pick("Compare from version", from ?? comparable[1].v);
      const toPicker = pick("Compare to version", to ?? comparable[0].v);
      const compare = () => showComparison(Number(fromPicker.value), Number(toPicker.value));
      fromPicker.addEventListener("change", compare);
      toPicker.addEventListener("change", compare);
      fill(pickers, fromPicker, "→", toPicker);
      compare();
    }

    async function showComparison(from, to) {
      const data = (version) => versions.find((entry) => entry.v === version)?.data ?? {};
      let compared;
      try {
        compared = await api.get(path(`i/${encodeURIComponent(key)}/compare?from=${from}&to=${to}`), { user });
      } catch (error) {
        return fill(output, h("p", { class: "error" }, error.message));
      }
      const strings = Object.entries(compared.text).sort(([a], [b]) => a.localeCompare(b));
      fill(output,
        h("h5", {}, "jsondiff"),
        h("pre", { class: "jsondiff" }, JSON.stringify(compared.diff, null, 2)),
        h("h5", {}, "Strings, as text"),
        strings.length ? strings.map(([place, runs]) => h("div", { class: "string-diff", "data-member": place },
          h("b", { class: "mono" }, place),
          h("pre", { class: "stringdiff" }, runs.map(([kind, text]) =>
            h("span", { class: kind === "+" ? "diff-add" : kind === "-" ? "diff-del" : "" }, text)))))
          : h("p", { class: "muted" }, "No string differs."),
        h("h5", {}, "The whole object, as lines"),
        h("pre", { class: "textdiff" }, lineDiff(pretty(data(from)), pretty(data(to))).map(([kind, text]) =>
          h("span", { class: `diff-line${kind === "+" ? " diff-add" : kind === "-" ? " diff-del" : ""}` }, `${kind} ${text}`))));
    }

    older.addEventListener("click", async () => {
      const [from, to] = [...pickers.querySelectorAll("select")].map((select) => Number(select.value));
      try {
        await loadPage();
      } catch (error) {
        return fill(output, h("p", { class: "error" }, error.message));
      }
      draw(from, to);
    });
    try {
      await loadPage();
    } catch (error) {
      section.append(h("p", { class: "error" }, error.message));
      return section;
    }
    section.append(
      h("div", { class: "table-wrap" }, h("table", { id: "versions" },
        h("thead", {}, h("tr", {}, ["Version", "Committed", "Author", "Client", "", ""].map((title) => h("th", {}, title)))), rows)),
      older, count, pickers, output);
    draw();
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

/** Who made a version, as the history lists it: a user's email (or id), the admin, the server, or unknown. */
function authorLabel(author) {
  if (author.kind === "user") return author.email ?? `user ${author.user}`;
  return { admin: "admin", server: "server", unknown: "unknown" }[author.kind] ?? author.kind;
}
