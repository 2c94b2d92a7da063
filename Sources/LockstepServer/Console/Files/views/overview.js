// Overview: the server's version, uptime, connections, changes per second and store, live on the
// console's admin channel: the server pushes its stats report when the app takes a change (on
// any node) or a connection opens or closes, and nothing is asked on a timer. Changes per second
// are counted here from the pushes' change counts, by the second each push arrived in.
import { followReport } from "../socket.js";
import { duration, fill, h } from "../dom.js";
import { lineChart } from "./chart.js";

const minute = 60;

export async function show(main) {
  const arrivals = []; // {at (ms, this page's clock), count}: the changes each push brought
  let stats = null;
  let receivedAt = 0;
  let problem = "";
  const cards = h("div", { class: "cards" });
  const chart = h("div");
  const note = h("p", { class: "error", role: "alert" });
  fill(main, h("h2", {}, "Overview"), note, cards, h("h3", {}, "Changes per second (last minute)"), chart);

  function rates(now) {
    const second = Math.floor(now / 1000);
    const counts = new Array(minute).fill(0);
    for (const { at, count } of arrivals) {
      const index = minute - 1 - (second - Math.floor(at / 1000));
      if (index >= 0 && index < minute) counts[index] += count;
    }
    return counts;
  }

  // Drawn at each push, and each second in between so the chart moves on and the uptime counts:
  // the page's own clock, no request.
  function draw() {
    note.textContent = problem;
    note.hidden = !problem;
    if (!stats) return fill(cards, h("p", { class: "muted" }, "Waiting for the server's report…"));
    const now = Date.now();
    while (arrivals.length && arrivals[0].at < now - minute * 1000) arrivals.shift();
    const lastSecond = arrivals.filter(({ at }) => at > now - 1000).reduce((sum, { count }) => sum + count, 0);
    const uptime = stats.uptimeSeconds + Math.max(0, Math.floor((now - receivedAt) / 1000));
    const card = (title, value, detail, extra = {}) =>
      h("div", { class: "card", "data-stat": title.toLowerCase(), ...extra }, h("small", {}, title), h("b", {}, value), detail && h("small", {}, detail));
    fill(cards,
      card("Version", stats.version),
      card("Uptime", duration(uptime), `since ${new Date(stats.startedAt).toLocaleString()}`),
      card("Connections", stats.connections, "streaming, this node"),
      card("Changes/s", lastSecond, `${stats.changes} in all`, { "data-changes": stats.changes }),
      card("Users", stats.users),
      card("Store", stats.store.kind, `${stats.store.nodes.length} node${stats.store.nodes.length === 1 ? "" : "s"}`));
    fill(chart, lineChart(rates(now), { label: "changes per second over the last minute" }));
  }

  await followReport("stats", (report) => {
    if (stats && report.changes > stats.changes) arrivals.push({ at: Date.now(), count: report.changes - stats.changes });
    stats = report;
    receivedAt = Date.now();
    problem = "";
    draw();
  }, (text) => {
    problem = `The live report was refused: ${text}`;
    draw();
  });
  draw();
  const ticking = setInterval(draw, 1000);
  return () => clearInterval(ticking);
}
