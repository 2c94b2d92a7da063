// Clock: this browser's offset from the server's clock, from GET /time exchanges made here
// (five quickly, then two a second, as a connected app's ServerClock calibrates
// continuously), and how the page's own estimate converges as they accumulate: its offset
// with its uncertainty, which shrinks, and the bound, which holds whatever the network does.
import * as clock from "../clock.js";
import { fill, h } from "../dom.js";
import { lineChart } from "./chart.js";

export async function show(main) {
  const reading = h("p", { class: "card", id: "clock-offset" });
  const server = h("p", { class: "mono" });
  const chart = h("div", { id: "clock-convergence" });
  const table = h("tbody");
  fill(main,
    h("h2", {}, "Clock"),
    h("p", { class: "muted" }, "Positive: the server's clock is ahead of this browser's. The page combines every exchange of the last two minutes: ± its uncertainty (the truth is within it 199 times in 200 on a link that delays alike both ways), and the bound, which holds whatever the network does."),
    reading, server,
    h("h3", {}, "The page's estimate converging (offset and its uncertainty, ms)"), chart,
    h("div", { class: "table-wrap" }, h("table", {}, h("thead", {}, h("tr", {}, ["Exchange", "Offset ms", "± ms", "Round trip ms"].map((title) => h("th", {}, title)))), table)));

  function draw() {
    const current = clock.estimate();
    if (!current) return;
    reading.dataset.offset = current.offset.toFixed(3);
    reading.dataset.uncertainty = current.uncertainty.toFixed(3);
    reading.dataset.bound = current.bound.toFixed(3);
    reading.dataset.exchanges = String(current.count);
    fill(reading, h("small", {}, "Offset"),
      h("b", {}, `${current.offset >= 0 ? "+" : ""}${current.offset.toFixed(2)} ms ± ${current.uncertainty.toFixed(2)} ms`),
      h("small", {}, ` bound ± ${current.bound.toFixed(2)} ms, from ${current.count} exchanges`));
    fill(server, `server time ${new Date(clock.serverNow()).toISOString()}`);
    const estimates = clock.estimateHistory();
    fill(chart, lineChart(estimates.map((estimate) => estimate.offset), {
      label: "the page's estimate of the offset after each exchange, with its uncertainty",
      band: estimates.map((estimate) => [estimate.offset - estimate.uncertainty, estimate.offset + estimate.uncertainty]),
    }));
    fill(table, clock.history().slice(-10).reverse().map((sample) => h("tr", {},
      h("td", {}, new Date(sample.at).toLocaleTimeString()), h("td", {}, sample.offset.toFixed(2)),
      h("td", {}, sample.bound.toFixed(2)), h("td", {}, sample.roundTrip.toFixed(2)))));
  }

  await clock.calibrate(5);
  draw();
  const timer = setInterval(() => clock.exchange().then(draw).catch(() => {}), 500);
  const ticker = setInterval(() => fill(server, `server time ${new Date(clock.serverNow()).toISOString()}`), 100);
  return () => {
    clearInterval(timer);
    clearInterval(ticker);
  };
}
