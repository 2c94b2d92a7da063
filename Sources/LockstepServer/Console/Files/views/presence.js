// Presence: in each presence bucket, which connection (or user) holds each object, by node,
// with the open connections of this node. Live on the console's admin channel: the server
// pushes its presence report at each claim and release, connection, and change to a presence
// bucket; nothing is asked on a timer.
import { followReport } from "../socket.js";
import { fill, h, when } from "../dom.js";

export async function show(main) {
  const body = h("div", {}, h("p", { class: "muted" }, "Waiting for the server's report…"));
  const problem = h("p", { class: "error", role: "alert", hidden: true });
  fill(main, h("h2", {}, "Presence"), problem, body);

  function draw(presence) {
    const byBucket = new Map(presence.buckets.map((bucket) => [bucket.name, []]));
    for (const claim of presence.claims) (byBucket.get(claim.bucket) ?? byBucket.set(claim.bucket, []).get(claim.bucket)).push(claim);
    const open = new Map(presence.connections.map((connection) => [connection.holder, connection]));
    const sections = [];
    for (const [name, claims] of byBucket) {
      const mode = presence.buckets.find((bucket) => bucket.name === name)?.presence ?? "?";
      sections.push(h("section", { "data-presence-bucket": name },
        h("h3", {}, name, h("small", { class: "muted" }, ` presence: ${mode}`)),
        claims.length ? h("table", {},
          h("thead", {}, h("tr", {}, ["Object", "Held by", "Connected from", "Node"].map((title) => h("th", {}, title)))),
          h("tbody", {}, claims.map((claim) => {
            const connection = open.get(claim.holder);
            return h("tr", { "data-claim": claim.id },
              h("td", { class: "mono" }, claim.id),
              h("td", {}, claim.holder),
              h("td", {}, connection ? `${connection.address ?? "?"} since ${when(connection.openedAt)}` : claim.node === presence.node ? "—" : "another node"),
              h("td", { class: "mono" }, claim.node.slice(0, 8)));
          }))) : h("p", { class: "muted" }, "Nobody holds anything here now.")));
    }
    if (!sections.length) sections.push(h("p", { class: "muted" }, "No bucket has the presence option: set one under Buckets."));
    fill(body, ...sections, h("p", { class: "muted" }, `${presence.connections.length} open streaming connection(s) on this node.`));
  }

  await followReport("presence", (report) => {
    problem.hidden = true;
    draw(report);
  }, (text) => {
    problem.textContent = `The live report was refused: ${text}`;
    problem.hidden = false;
  });
}
