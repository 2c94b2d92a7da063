// Choosing a bucket to open in a view (objects, live tail): every bucket of every owner, as the
// admin API lists them, a space's by its space's name, so nobody types `__<space>.<bucket>`.
import * as api from "../api.js";
import { h } from "../dom.js";

/** How the console reaches a bucket: a user's is read as that user (`user`, sent as X-Simperium-User or
 * in the channel's init); a shared one has no owner; a space's is read as the admin under the name its
 * members use, `__<space>.<bucket>`. */
export function address(bucket, owner, space) {
  return {
    user: owner && !owner.startsWith("space:") ? owner : undefined,
    name: owner.startsWith("space:") && space ? `__${space}.${bucket}` : bucket,
  };
}

/** A list of the buckets that opens the chosen one in `view` (#/<view>?bucket=&owner=&space=). */
export async function bucketChooser(view, bucket, owner) {
  const { buckets } = await api.get("__admin__/buckets");
  const choices = buckets.filter((entry) => !entry.owner.startsWith("space:") || entry.ownerName);
  const select = h("select", { "aria-label": "Bucket and owner", class: "bucket-chooser" },
    h("option", { value: "" }, "Choose a bucket…"),
    choices.map((entry) => h("option", {
      value: `${entry.name}\n${entry.owner}\n${entry.owner.startsWith("space:") ? entry.ownerName : ""}`,
      selected: entry.name === bucket && entry.owner === owner,
    }, `${entry.name} · ${entry.owner === "" ? "shared" : entry.owner.startsWith("space:") ? `space ${entry.ownerName}` : entry.ownerName || entry.owner} (${entry.objects})`)));
  select.addEventListener("change", () => {
    if (!select.value) return;
    const [name, who, space] = select.value.split("\n");
    const inSpace = space ? `&space=${encodeURIComponent(space)}` : "";
    location.hash = `#/${view}?bucket=${encodeURIComponent(name)}&owner=${encodeURIComponent(who)}${inSpace}`;
  });
  return h("div", { class: "row" }, select);
}
