// Clock: this browser's offset from the server's clock, with its error bar, from GET /time
// exchanges made here (five quickly, then one a second), and how it moves over a minute.
import * as clock from "../clock.js";
import { fill, h } from "../dom.js";
import { lineChart } from "./chart.js";

export async function show(main) {
  const reading = h("p", { class: "card", id: "clock-offset" });
  const server = h("p", { class: "mono" });
  const chart = h("div");
  const table = h("tbody");
  fill(main,
    h("h2", {}, "Clock"),
    h("p", { class: "muted" }, "Positive: the server's clock is ahead of this browser's. The bar is half the round trip of the best recent exchange."),
    reading, server,
    h("h3", {}, "The last minute (offset and its error bar, ms)"), chart,
    h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, ["Exchange", "Offset ms", "± ms", "Round trip ms"].map((title) => h("th", {}, title)))), table)));

  function draw() {
    const best = clock.estimate();
    if (!best) return;
    reading.dataset.offset = best.offset.toFixed(3);
    reading.dataset.bound = best.bound.toFixed(3);
    fill(reading, h("small", {}, "Offset"), h("b", {}, `${best.offset >= 0 ? "+" : ""}${best.offset.toFixed(1)} ms ± ${best.bound.toFixed(1)} ms`));
    fill(server, `server time ${new Date(clock.serverNow()).toISOString()}`);
    const minute = clock.history().filter((sample) => sample.at > clock.localNow() - 60000);
    fill(chart, lineChart(minute.map((sample) => sample.offset), {
      label: "offset over the last minute", band: minute.map((sample) => [sample.offset - sample.bound, sample.offset + sample.bound]),
    }));
    fill(table, minute.slice(-10).reverse().map((sample) => h("tr", {},
      h("td", {}, new Date(sample.at).toLocaleTimeString()), h("td", {}, sample.offset.toFixed(2)),
      h("td", {}, sample.bound.toFixed(2)), h("td", {}, sample.roundTrip.toFixed(2)))));
  }

  await clock.calibrate(5);
  draw();
  const timer = setInterval(() => clock.exchange().then(draw).catch(() => {}), 1000);
  const ticker = setInterval(() => fill(server, `server time ${new Date(clock.serverNow()).toISOString()}`), 100);
  return () => {
    clearInterval(timer);
    clearInterval(ticker);
  };
}
