// The signed-in app and its admin token, kept in this tab's sessionStorage only: never in a
// cookie (so no other request carries it) nor a URL (so no log or history holds it).

const key = "lockstep-console-session";

export function current() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(key) ?? "null");
    return saved && saved.app && saved.token ? saved : null;
  } catch {
    return null;
  }
}

export function save(app, token) {
  sessionStorage.setItem(key, JSON.stringify({ app, token }));
}

export function clear() {
  sessionStorage.removeItem(key);
}
