// Buckets: every bucket of every owner with its object count, and each bucket name's options
// (shared, read-only, presence), which the admin edits here; any bucket is restored to a moment
// here, after a dry run that says what would change.
import * as api from "../api.js";
import { fill, h, when } from "../dom.js";
import { address } from "./choose.js";

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
  if (!byName.size) rows.append(h("tr", {}, h("td", { colspan: 6, class: "muted" }, "No buckets yet: they appear with their first object.")));

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
      h("thead", {}, h("tr", {}, ["Bucket", "Owner", "Objects", "Changes", "Options", "History"].map((title) => h("th", {}, title)))),
      rows)));
}

function ownerLabel(bucket) {
  if (bucket.owner === "") return "shared";
  if (bucket.owner.startsWith("space:")) return `space ${bucket.ownerName || bucket.owner.slice(6)}`;
  return bucket.ownerName || bucket.owner;
}

function bucketRows(entry, message) {
  const editor = optionsEditor(entry, message);
  if (!entry.owners.length) return [h("tr", { "data-bucket": entry.name }, h("td", {}, entry.name), h("td", { colspan: 3, class: "muted" }, "no objects yet"), h("td", {}, editor), h("td"))];
  return entry.owners.flatMap((bucket, index) => {
    // A space's bucket is browsed under the name its members use, __<space>.<bucket>.
    const browsable = !bucket.owner.startsWith("space:") || bucket.ownerName;
    const space = bucket.owner.startsWith("space:") ? `&space=${encodeURIComponent(bucket.ownerName)}` : "";
    const link = `#/objects?bucket=${encodeURIComponent(bucket.name)}&owner=${encodeURIComponent(bucket.owner)}${space}`;
    const form = h("td", { colspan: 6 });
    const formRow = h("tr", { class: "restore-row", hidden: true }, form);
    const open = h("button", { type: "button", class: "quiet restore-bucket", "aria-expanded": "false" }, "Restore to a moment…");
    open.addEventListener("click", () => {
      formRow.hidden = !formRow.hidden;
      open.setAttribute("aria-expanded", String(!formRow.hidden));
      if (!formRow.hidden && !form.firstChild) form.append(restoreForm(bucket));
    });
    return [
      h("tr", { "data-bucket": bucket.name, "data-owner": bucket.owner },
        h("td", {}, browsable ? h("a", { href: link }, bucket.name) : bucket.name),
        h("td", {}, ownerLabel(bucket)),
        h("td", { class: "objects" }, bucket.objects),
        h("td", {}, bucket.changes),
        h("td", {}, index === 0 ? editor : h("span", { class: "muted" }, "as above")),
        h("td", {}, browsable ? open : "")),
      formRow,
    ];
  });
}

/** Restoring one owner's bucket to a moment (POST …/restore): a dry run first, which says how many
 * objects would change and which removed ones stay removed; then the restore, after a confirmation,
 * as one group of changes every device receives. */
function restoreForm(bucket) {
  const { user, name } = address(bucket.name, bucket.owner, bucket.owner.startsWith("space:") ? bucket.ownerName : "");
  const moment = h("input", { type: "datetime-local", step: "1", class: "restore-moment", "aria-label": `The moment to restore ${bucket.name} of ${ownerLabel(bucket)} to` });
  const dryRun = h("button", { type: "button", class: "quiet restore-dry-run" }, "Dry run");
  const restore = h("button", { type: "button", class: "danger restore-go", disabled: true }, "Restore");
  const result = h("p", { role: "status", class: "restore-result" });
  let planned = null;

  const chosen = () => {
    const at = new Date(moment.value).getTime();
    return Number.isFinite(at) ? at : null;
  };
  const say = (className, text) => {
    result.className = `restore-result ${className}`;
    result.textContent = text;
  };
  const summary = (answer, would) => {
    const changes = `${answer.changes} object${answer.changes === 1 ? "" : "s"} ${would ? "would change" : "changed"}` +
      ` (${answer.putBack} put back, ${answer.removed} made since and removed)`;
    const stay = answer.stayRemoved.length ? `; ${answer.stayRemoved.length} removed since stay removed: ${answer.stayRemoved.join(", ")}` : "";
    const refused = answer.refused.length ? `; refused: ${answer.refused.map((entry) => `${entry.id} (${entry.message})`).join(", ")}` : "";
    return `${changes}${stay}${refused}.`;
  };
  async function send(at, isDryRun) {
    return api.post(`${encodeURIComponent(name)}/restore?clientid=console`, { at, dryRun: isDryRun }, { user });
  }

  moment.addEventListener("input", () => {
    planned = null;
    restore.disabled = true;
  });
  dryRun.addEventListener("click", async () => {
    const at = chosen();
    if (at === null) return say("error", "Choose a moment first.");
    try {
      const answer = await send(at, true);
      planned = at;
      restore.disabled = answer.changes === 0;
      say("", `As at ${when(at)}: ${summary(answer, true)}`);
    } catch (error) {
      say("error", `The server refused (${error.status}): ${error.message}`);
    }
  });
  restore.addEventListener("click", async () => {
    if (planned === null) return;
    if (!confirm(`Put every object of ${bucket.name} (${ownerLabel(bucket)}) back as it was at ${when(planned)}? ` +
      "The changes go to every device, as one group.")) return;
    restore.disabled = true;
    try {
      const answer = await send(planned, false);
      say("ok", `Restored to ${when(planned)}: ${summary(answer, false)}`);
    } catch (error) {
      say("error", `The server refused (${error.status}): ${error.message}`);
    }
  });
  return h("div", { class: "restore-form" },
    h("div", { class: "row" }, h("label", {}, "Restore to ", moment), dryRun, restore),
    result);
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
