// Overview: the server's version, uptime, connections, changes per second and store, read
// from GET __admin__/stats each second (the app's change count is shared by every node).
import * as api from "../api.js";
import { duration, fill, h } from "../dom.js";
import { lineChart } from "./chart.js";

export async function show(main) {
  const rates = [];
  let previous = null;
  const cards = h("div", { class: "cards" });
  const chart = h("div");
  fill(main, h("h2", {}, "Overview"), cards, h("h3", {}, "Changes per second (last minute)"), chart);

  async function refresh() {
    const stats = await api.get("__admin__/stats");
    if (previous) {
      const seconds = Math.max((stats.now - previous.now) / 1000, 0.001);
      rates.push(Math.max(0, (stats.changes - previous.changes) / seconds));
      while (rates.length > 60) rates.shift();
    }
    previous = stats;
    const card = (title, value, note) => h("div", { class: "card", "data-stat": title.toLowerCase() }, h("small", {}, title), h("b", {}, value), note && h("small", {}, note));
    fill(cards,
      card("Version", stats.version),
      card("Uptime", duration(stats.uptimeSeconds), `since ${new Date(stats.startedAt).toLocaleString()}`),
      card("Connections", stats.connections, "streaming, this node"),
      card("Changes/s", rates.length ? rates[rates.length - 1].toFixed(1) : "…", `${stats.changes} in all`),
      card("Users", stats.users),
      card("Store", stats.store.kind, `${stats.store.nodes.length} node${stats.store.nodes.length === 1 ? "" : "s"}`));
    fill(chart, lineChart(rates.length ? rates : [0], { label: "changes per second over the last minute" }));
  }

  await refresh();
  const timer = setInterval(() => refresh().catch(() => {}), 1000);
  return () => clearInterval(timer);
}
