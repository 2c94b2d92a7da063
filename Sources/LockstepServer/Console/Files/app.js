// The console's frame: sign-in, the views' navigation (#/<view>?…), keyboard shortcuts.
import * as session from "./session.js";
import * as api from "./api.js";
import { closeAll } from "./socket.js";
import { fill, h, status } from "./dom.js";

const views = {
  overview: () => import("./views/overview.js"),
  users: () => import("./views/users.js"),
  buckets: () => import("./views/buckets.js"),
  objects: () => import("./views/objects.js"),
  tail: () => import("./views/tail.js"),
  presence: () => import("./views/presence.js"),
  clock: () => import("./views/clock.js"),
  store: () => import("./views/store.js"),
  webhooks: () => import("./views/webhooks.js"),
};
const order = Object.keys(views);
let cleanup = null;

const $ = (id) => document.getElementById(id);

/** Shows the sign-in form, and drops everything a view drew: on a shared screen, what the last
 * session showed must not stay in the page (hidden or not). */
function showSignIn(message = "") {
  routes++;
  cleanup?.();
  cleanup = null;
  closeAll();
  $("main").replaceChildren();
  $("who").textContent = "";
  status("");
  $("shell").hidden = true;
  $("who").hidden = true;
  $("sign-out").hidden = true;
  $("sign-in").hidden = false;
  $("sign-in-error").textContent = message;
  $("app-id").value ||= session.current()?.app ?? "";
  ($("app-id").value ? $("admin-token") : $("app-id")).focus();
}

async function signIn(event) {
  event.preventDefault();
  const app = $("app-id").value.trim();
  const token = $("admin-token").value.trim();
  session.save(app, token);
  try {
    await api.get("__admin__/stats");
  } catch (error) {
    session.clear();
    const why = error.status === 401 ? "That token is not this app's admin token (or the app id is wrong): " :
      error.status === 403 ? "That is a user's token; the console needs the app's admin token: " :
      error.status === 404 ? "There is no such app: " : "Could not sign in: ";
    $("sign-in-error").textContent = why + error.message;
    return;
  }
  $("admin-token").value = "";
  enterShell();
}

function enterShell() {
  $("sign-in").hidden = true;
  $("shell").hidden = false;
  $("who").hidden = false;
  $("sign-out").hidden = false;
  $("who").textContent = `app ${session.current().app}`;
  route();
}

/** The view and its parameters from the location's hash, #/objects?bucket=notes&owner=… */
function parseHash() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  return { view: views[path] ? path : "overview", params: new URLSearchParams(query) };
}

// Each route draws into a view of its own, put in place only if no later route began
// meanwhile: a slow view (the overview, just after sign-in) must not cover a quicker one.
let routes = 0;

async function route() {
  if (!session.current()) return showSignIn();
  const { view, params } = parseHash();
  const turn = ++routes;
  cleanup?.();
  cleanup = null;
  closeAll();
  for (const link of document.querySelectorAll(".views a")) {
    link.toggleAttribute("aria-current", link.dataset.view === view);
    if (link.dataset.view === view) link.setAttribute("aria-current", "page");
  }
  fill($("main"), h("p", { class: "muted" }, "Loading…"));
  const main = h("div", { class: "view", "data-view": view });
  try {
    const module = await views[view]();
    const shown = await module.show(main, params);
    if (turn !== routes) return shown?.();
    $("main").replaceChildren(main);
    cleanup = shown ?? null;
  } catch (error) {
    if (turn !== routes) return;
    if (error instanceof api.APIError && error.status === 401) {
      session.clear();
      return showSignIn("The server no longer accepts this token: " + error.message);
    }
    fill($("main"), h("h2", {}, "Something went wrong"), h("p", { class: "error", role: "alert" }, error.message));
  }
}

/** Alt+1…9 (or [ and ]) move between views; the views' own controls are reachable with Tab. */
function keyboard(event) {
  if ($("shell").hidden || event.ctrlKey || event.metaKey) return;
  const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? "");
  const current = order.indexOf(parseHash().view);
  let next = -1;
  if (event.altKey && /^[1-9]$/.test(event.key)) next = Number(event.key) - 1;
  else if (!typing && !event.altKey && event.key === "]") next = (current + 1) % order.length;
  else if (!typing && !event.altKey && event.key === "[") next = (current + order.length - 1) % order.length;
  if (next < 0) return;
  event.preventDefault();
  location.hash = `#/${order[next]}`;
  $("main").focus();
}

$("sign-in-form").addEventListener("submit", signIn);
$("sign-out").addEventListener("click", () => {
  session.clear();
  showSignIn();
});
window.addEventListener("hashchange", route);
document.addEventListener("keydown", keyboard);
if (session.current()) enterShell();
else showSignIn();
