// Buckets: every bucket of every owner with its object count, and each bucket name's options
// (shared, read-only, presence), which the admin edits here.
import * as api from "../api.js";
import { fill, h } from "../dom.js";

export async function show(main, params) {
  const ownerFilter = params.get("owner");
  const message = h("p", { role: "alert" });
  const rows = h("tbody");
  const { buckets } = await api.get("__admin__/buckets");
  const listed = ownerFilter ? buckets.filter((bucket) => bucket.owner === ownerFilter) : buckets;
  const byName = new Map();
  for (const bucket of listed) {
    const entry = byName.get(bucket.name) ?? { name: bucket.name, options: bucket.options, owners: [] };
    entry.owners.push(bucket);
    byName.set(bucket.name, entry);
  }
  for (const entry of byName.values()) rows.append(...bucketRows(entry, message));
  if (!byName.size) rows.append(h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No buckets yet: they appear with their first object.")));

  const name = h("input", { placeholder: "bucket name", "aria-label": "Bucket name for options", spellcheck: "false" });
  const setForm = h("form", { class: "row" }, name, h("button", { type: "submit" }, "Edit options of a bucket"));
  setForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const bucket = name.value.trim();
    if (bucket) rows.prepend(...bucketRows({ name: bucket, options: {}, owners: [] }, message));
  });

  fill(main,
    h("h2", {}, ownerFilter ? `Buckets of ${ownerFilter}` : "Buckets"),
    ownerFilter && h("p", {}, h("a", { href: "#/buckets" }, "All owners")),
    message,
    setForm,
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Bucket", "Owner", "Objects", "Changes", "Options"].map((title) => h("th", {}, title)))),
      rows)));
}

function ownerLabel(bucket) {
  if (bucket.owner === "") return "shared";
  if (bucket.owner.startsWith("space:")) return `space ${bucket.ownerName || bucket.owner.slice(6)}`;
  return bucket.ownerName || bucket.owner;
}

function bucketRows(entry, message) {
  const editor = optionsEditor(entry, message);
  if (!entry.owners.length) return [h("tr", { "data-bucket": entry.name }, h("td", {}, entry.name), h("td", { colspan: 3, class: "muted" }, "no objects yet"), h("td", {}, editor))];
  return entry.owners.map((bucket, index) => {
    // A space's bucket is browsed under the name its members use, __<space>.<bucket>.
    const browsable = !bucket.owner.startsWith("space:") || bucket.ownerName;
    const space = bucket.owner.startsWith("space:") ? `&space=${encodeURIComponent(bucket.ownerName)}` : "";
    const link = `#/objects?bucket=${encodeURIComponent(bucket.name)}&owner=${encodeURIComponent(bucket.owner)}${space}`;
    return h("tr", { "data-bucket": bucket.name, "data-owner": bucket.owner },
      h("td", {}, browsable ? h("a", { href: link }, bucket.name) : bucket.name),
      h("td", {}, ownerLabel(bucket)),
      h("td", { class: "objects" }, bucket.objects),
      h("td", {}, bucket.changes),
      h("td", {}, index === 0 ? editor : h("span", { class: "muted" }, "as above")));
  });
}

function optionsEditor(entry, message) {
  const shared = h("input", { type: "checkbox", checked: entry.options.shared === true });
  const readOnly = h("input", { type: "checkbox", checked: entry.options.read_only === true });
  const presence = h("select", { "aria-label": `Presence of ${entry.name}` },
    ["", "client", "user"].map((mode) => h("option", { value: mode, selected: (entry.options.presence ?? "") === mode }, mode || "no presence")));
  const save = h("button", { type: "button", class: "quiet" }, "Save");
  save.addEventListener("click", async () => {
    const options = { shared: shared.checked, read_only: readOnly.checked, presence: presence.value || null };
    try {
      await api.post(`__options__/i/${encodeURIComponent(entry.name)}`, options);
      message.className = "ok";
      message.textContent = `Saved the options of ${entry.name}.`;
    } catch (error) {
      message.className = "error";
      message.textContent = `The server refused the options of ${entry.name}: ${error.message}`;
    }
  });
  return h("div", { class: "row" },
    h("label", {}, shared, " shared"),
    h("label", {}, readOnly, " read-only"),
    presence,
    save);
}
