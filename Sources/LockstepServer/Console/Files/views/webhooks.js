// Webhooks: the app's endpoints, each with the events it is owed and its latest deliveries;
// add, test, rotate a secret, replay, remove. Live on the console's admin channel: the server
// pushes its webhooks report when an endpoint changes, a delivery is attempted or the app takes
// a change; nothing is asked on a timer.
import * as api from "../api.js";
import { followReport } from "../socket.js";
import { duration, fill, h, when } from "../dom.js";

const EVENTS = ["change", "space.member", "presence", "blob", "purchase"];

/** @param {HTMLElement} main */
export async function show(main) {
  const message = h("p", { role: "alert" });
  const list = h("div", {}, h("p", { class: "muted" }, "Waiting for the server's report…"));
  const problem = h("p", { class: "error", role: "alert", hidden: true });

  /** @param {string | Node} text @param {boolean} [ok] */
  const say = (text, ok = false) => {
    message.className = ok ? "ok" : "error";
    fill(message, text);
  };

  /** A secret, shown once: when an endpoint is made or its secret rotated. @param {string} what @param {string} secret */
  const reveal = (what, secret) => say(h("span", {}, `${what} Its signing secret (shown once): `, h("code", { class: "webhook-secret" }, secret)), true);

  const url = h("input", { type: "url", required: true, placeholder: "https://office.example.com/lockstep", "aria-label": "Endpoint URL", spellcheck: "false" });
  const buckets = h("input", { placeholder: "buckets (optional): items, __*.items", "aria-label": "Bucket patterns, comma-separated", spellcheck: "false" });
  const boxes = EVENTS.map((name) => h("label", { class: "check" },
    h("input", { type: "checkbox", value: name, checked: name === "change", "data-event": name }), ` ${name}`));
  const form = h("form", { class: "row webhook-add" }, url, ...boxes, buckets, h("button", { type: "submit" }, "Add endpoint"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const events = boxes.map((box) => /** @type {HTMLInputElement} */ (box.querySelector("input"))).filter((box) => box.checked).map((box) => box.value);
    const patterns = /** @type {HTMLInputElement} */ (buckets).value.split(",").map((text) => text.trim()).filter(Boolean);
    try {
      const added = await api.post("__admin__/webhooks", { url: /** @type {HTMLInputElement} */ (url).value.trim(), events, buckets: patterns });
      reveal(`Added ${added.id}.`, added.secret);
      /** @type {HTMLInputElement} */ (url).value = "";
      /** @type {HTMLInputElement} */ (buckets).value = "";
    } catch (error) {
      say(`Could not add the endpoint: ${error.message}`);
    }
  });

  /** @param {any} endpoint */
  function section(endpoint) {
    const path = `__admin__/webhooks/${encodeURIComponent(endpoint.id)}`;
    /** @param {string} label @param {string} className @param {() => Promise<void>} action */
    const button = (label, className, action) => {
      const element = h("button", { type: "button", class: className }, label);
      element.addEventListener("click", () => action().catch((error) => say(`${label}: ${error.message}`)));
      return element;
    };
    const test = button("Send a test", "quiet", async () => {
      const result = await api.post(`${path}/test`);
      if (result.error) say(`The test got no answer after ${result.milliseconds.toFixed(0)} ms: ${result.error}`);
      else say(`The test was answered ${result.status} in ${result.milliseconds.toFixed(0)} ms.`, result.status >= 200 && result.status < 300);
    });
    const rotate = button("Rotate secret", "quiet", async () => {
      if (!confirm("Make a new signing secret? The current one keeps signing for a day beside it.")) return;
      const rotated = await api.post(`${path}/rotate`, {});
      reveal(`Rotated ${endpoint.id}; the previous secret signs too until ${when(rotated.previousSecretUntil)}.`, rotated.secret);
    });
    const replay = button(endpoint.enabled ? "Replay last" : "Enable and replay", endpoint.enabled ? "quiet" : "", async () => {
      const answer = await api.post(`${path}/replay`, endpoint.enabled && endpoint.deliveries[0] ? { delivery: endpoint.deliveries[0].id } : {});
      say(answer.delivery ? `Sending ${answer.delivery.id} again.` : `${endpoint.id} is enabled.`, true);
    });
    const remove = button("Remove", "danger", async () => {
      if (!confirm(`Remove ${endpoint.url}? Its deliveries go with it.`)) return;
      await api.request("DELETE", path);
      say(`Removed ${endpoint.id}.`, true);
    });
    const pending = endpoint.pending.events
      ? `${endpoint.pending.events} events owed, the oldest ${duration(Math.max(0, (Date.now() - endpoint.pending.oldestAt) / 1000))} old`
      : "nothing owed";
    return h("section", { class: "webhook", "data-endpoint": endpoint.id },
      h("h3", {}, h("span", { class: "mono" }, endpoint.url), " ",
        h("small", { class: endpoint.enabled ? "ok" : "error", "data-state": endpoint.enabled ? "enabled" : "disabled" },
          endpoint.enabled ? "enabled" : "disabled")),
      h("p", { class: "muted" }, `${endpoint.id} · ${endpoint.events.join(", ")} · ${endpoint.buckets.length ? endpoint.buckets.join(", ") : "every bucket"}`
        + ` · ${pending}`),
      !endpoint.enabled && h("p", { class: "error" }, `Disabled ${when(endpoint.disabledAt)}: ${endpoint.disabledReason}`),
      h("div", { class: "row" }, test, rotate, replay, remove),
      endpoint.deliveries.length ? h("div", { class: "table-wrap" }, h("table", {},
        h("thead", {}, h("tr", {}, ["Delivery", "State", "Events", "Attempts", "Last answer", "At"].map((title) => h("th", {}, title)))),
        h("tbody", {}, endpoint.deliveries.map((/** @type {any} */ delivery) => h("tr", { "data-delivery": delivery.id, "data-state": delivery.state },
          h("td", { class: "mono" }, delivery.id),
          h("td", {}, delivery.state === "pending" ? `pending, next ${when(delivery.nextAttemptAt)}` : delivery.state),
          h("td", {}, delivery.events),
          h("td", {}, delivery.attempts),
          h("td", { title: delivery.lastAttempt?.response ?? "" },
            delivery.lastAttempt ? delivery.lastAttempt.error ?? String(delivery.lastAttempt.status) : "—"),
          h("td", {}, when(delivery.lastAttempt?.at))))))) : h("p", { class: "muted" }, "No deliveries yet."));
  }

  /** @param {any} report */
  function draw(report) {
    if (!report.endpoints.length) return fill(list, h("p", { class: "muted" }, "No endpoints: add one above, or with lockstep webhooks add."));
    fill(list, ...report.endpoints.map(section));
  }

  fill(main, h("h2", {}, "Webhooks"), form, message, problem, list);
  await followReport("webhooks", (report) => {
    problem.hidden = true;
    draw(report);
  }, (text) => {
    problem.textContent = `The live report was refused: ${text}`;
    problem.hidden = false;
  });
}
