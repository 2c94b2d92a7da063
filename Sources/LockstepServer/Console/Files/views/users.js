// Users: search by name, make a user, issue a token, end a user's tokens.
import * as api from "../api.js";
import { fill, h, when } from "../dom.js";

export async function show(main) {
  const search = h("input", { type: "search", placeholder: "name begins with…", "aria-label": "Search users by name" });
  const rows = h("tbody");
  const more = h("button", { type: "button", class: "quiet", hidden: true }, "More");
  const message = h("p", { role: "alert" });
  const username = h("input", { required: true, placeholder: "alice@example.com", "aria-label": "New user's name", spellcheck: "false" });
  const password = h("input", { type: "password", placeholder: "password (optional)", "aria-label": "New user's password", autocomplete: "new-password" });
  let after = null;

  const say = (text, ok = false) => {
    message.className = ok ? "ok" : "error";
    fill(message, text);
  };

  async function load(reset) {
    if (reset) {
      after = null;
      rows.replaceChildren();
    }
    const query = new URLSearchParams({ prefix: search.value.trim(), limit: "50" });
    if (after) query.set("after", after);
    const page = await api.get(`__admin__/users?${query}`);
    for (const user of page.users) rows.append(row(user));
    if (!rows.children.length) rows.append(h("tr", {}, h("td", { colspan: 5, class: "muted" }, "No users match.")));
    after = page.after ?? null;
    more.hidden = !after;
  }

  function row(user) {
    const issue = h("button", { type: "button", class: "quiet" }, "Issue token");
    const revoke = h("button", { type: "button", class: "danger" }, "Revoke tokens");
    const tokens = h("td", {}, user.tokens);
    issue.addEventListener("click", async () => {
      try {
        const grant = await api.post("token", { username: user.username });
        tokens.textContent = Number(tokens.textContent) + 1;
        say(h("span", {}, `Token for ${user.username} (shown once): `, h("code", { class: "issued-token" }, grant.access_token)), true);
      } catch (error) {
        say(`Could not issue a token: ${error.message}`);
      }
    });
    revoke.addEventListener("click", async () => {
      if (!confirm(`End every token of ${user.username}? Their devices are signed out at once.`)) return;
      try {
        const answer = await api.post("revoke", { username: user.username });
        tokens.textContent = "0";
        say(`Revoked ${answer.revoked} token${answer.revoked === 1 ? "" : "s"} of ${user.username}.`, true);
      } catch (error) {
        say(`Could not revoke: ${error.message}`);
      }
    });
    return h("tr", { "data-user": user.username },
      h("td", {}, h("a", { href: `#/buckets?owner=${encodeURIComponent(user.id)}` }, user.username)),
      h("td", { class: "mono" }, user.id),
      h("td", {}, when(user.createdAt)),
      h("td", {}, user.password ? "yes" : "no"),
      tokens,
      h("td", {}, h("div", { class: "row" }, issue, revoke)));
  }

  const form = h("form", { class: "row" }, username, password, h("button", { type: "submit" }, "Create user"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const body = { username: username.value.trim() };
      if (password.value) body.password = password.value;
      const user = await api.post("__admin__/users", body);
      say(`Created ${user.username}.`, true);
      username.value = "";
      password.value = "";
      await load(true);
    } catch (error) {
      say(`Could not create the user: ${error.message}`);
    }
  });
  let typing = 0;
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => load(true).catch((error) => say(error.message)), 200);
  });
  more.addEventListener("click", () => load(false).catch((error) => say(error.message)));

  fill(main,
    h("h2", {}, "Users"),
    form,
    message,
    h("div", { class: "row" }, search),
    h("div", { class: "table-wrap" }, h("table", {},
      h("thead", {}, h("tr", {}, ["Name", "Id", "Created", "Password", "Tokens", ""].map((title) => h("th", {}, title)))),
      rows)),
    more);
  await load(true);
}
