// The customer portal of the inventory example: a customer signs in, picks their job and
// follows its items and photos live as the movers change them, and marks an item "please
// return". Everything goes through lockstep.js, loaded from the sync server itself: its store
// is in IndexedDB, so the list shows at once on a reload and return requests made offline are
// sent when the page is back online.
//
// The link the office sends: https://<where the portal is served>/?app=APP&key=API_KEY, and
// &server=https://sync.example.com when the portal is served from another origin than the
// sync server (which then lists that origin with --allowed-origin).
import { forgetSession, keptSession, signIn } from "./sign-in.js";
import { ItemList, jobSpace, returnsSpace } from "./items.js";

const query = new URLSearchParams(location.search);
const link = {
  server: (query.get("server") ?? location.origin).replace(/\/+$/, ""),
  app: query.get("app") ?? "",
  apiKey: query.get("key") ?? "",
};

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const say = (/** @type {string} */ text) => { byId("status").textContent = text; };

/** @type {any} The open lockstep.js client, while signed in. */
let client = null;
/** @type {ItemList | null} */
let shown = null;

async function main() {
  if (!link.app || !link.apiKey) {
    say("This link is incomplete: ask the office for your portal link (it carries ?app=…&key=…).");
    return;
  }
  const { Lockstep } = await import(`${link.server}/sdk/lockstep.js`);
  const form = /** @type {HTMLFormElement} */ (byId("sign-in"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    say("Signing in…");
    try {
      const session = await signIn(link, /** @type {HTMLInputElement} */ (byId("username")).value.trim(),
        /** @type {HTMLInputElement} */ (byId("password")).value);
      form.hidden = true;
      await open(Lockstep, session);
    } catch (error) {
      say(`Could not sign in: ${/** @type {Error} */ (error).message}`);
    }
  });
  byId("sign-out").addEventListener("click", signOut);
  const session = keptSession(link);
  if (session) await open(Lockstep, session);
  else form.hidden = false;
}

/**
 * @param {any} Lockstep
 * @param {import("./sign-in.js").Session} session
 */
async function open(Lockstep, session) {
  say("");
  byId("email").textContent = session.username;
  byId("who").hidden = false;
  client = await Lockstep.open({ server: link.server, app: link.app, token: session.token, storeName: `portal:${link.app}:${session.username}` });
  client.addEventListener("statechange", (/** @type {CustomEvent} */ event) => {
    const state = event.detail;
    byId("sync-state").textContent = state === "connecting" ? "Offline: showing what this device last saw." : "";
    if (state === "unauthorized") signOut().then(() => say("Your session has ended: sign in again."));
  });
  client.addEventListener("change", (/** @type {any} */ event) => {
    if (shown && (event.bucket === shown.items.name || event.bucket === shown.requests?.name)) shown.refresh();
  });
  client.addEventListener("spacelost", () => showJobs());
  client.sync.start();
  await showJobs();
}

/** Lists the jobs this customer is on, and shows the one chosen (the first by default). */
async function showJobs() {
  if (!client) return;
  /** @type {{ name: string, role: string | null }[]} */
  let spaces;
  try {
    spaces = await client.spaces();
  } catch (error) {
    say(`Could not list your jobs: ${/** @type {Error} */ (error).message}`);
    return;
  }
  const jobs = spaces.filter((space) => space.name.startsWith("job-")).map((space) => space.name.slice(4)).sort();
  const select = /** @type {HTMLSelectElement} */ (byId("job"));
  const chosen = jobs.includes(select.value) ? select.value : jobs[0];
  select.replaceChildren(...jobs.map((number) => Object.assign(document.createElement("option"), { value: number, textContent: number })));
  byId("jobs").hidden = jobs.length === 0;
  if (jobs.length === 0) {
    say("You are on no job yet: the office adds you when your move is booked.");
    return;
  }
  select.value = chosen;
  select.onchange = () => showJob(select.value, spaces);
  showJob(chosen, spaces);
}

/**
 * @param {string} number
 * @param {{ name: string, role: string | null }[]} spaces
 */
function showJob(number, spaces) {
  shown?.close();
  const role = spaces.find((space) => space.name === returnsSpace(number))?.role;
  const mayRequest = role === "writer" || role === "owner";
  byId("returns-closed").hidden = mayRequest;
  // A space the customer is not on is never opened: its bucket would only be refused.
  const requests = mayRequest ? client.space(returnsSpace(number)).bucket("requests") : null;
  shown = new ItemList(byId("items"), client.space(jobSpace(number)).bucket("items"), requests);
  shown.draw();
}

async function signOut() {
  shown?.close();
  shown = null;
  const closing = client;
  client = null;
  forgetSession(link);
  await closing?.close();
  byId("who").hidden = true;
  byId("jobs").hidden = true;
  byId("items").replaceChildren();
  /** @type {HTMLFormElement} */ (byId("sign-in")).hidden = false;
}

main().catch((error) => say(`The portal could not start: ${error.message}`));
