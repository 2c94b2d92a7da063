// Building the page from data without innerHTML: every value from the server becomes text.

/** An element: h("td", {class: "mono"}, "text", child…). Attributes starting with "on" are listeners. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's content. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

/** A time in milliseconds since the epoch as the reader's local date and time. */
export function when(milliseconds) {
  return milliseconds ? new Date(milliseconds).toLocaleString() : "—";
}

/** Seconds as "3 d 4 h", "5 min 2 s". */
export function duration(seconds) {
  const parts = [[86400, "d"], [3600, "h"], [60, "min"], [1, "s"]];
  const out = [];
  for (const [size, unit] of parts) {
    if (seconds >= size || (unit === "s" && out.length === 0)) {
      out.push(`${Math.floor(seconds / size)} ${unit}`);
      seconds %= size;
    }
    if (out.length === 2) break;
  }
  return out.join(" ");
}

/** The status line at the foot of the page, for what happens in the background. */
export function status(text) {
  document.getElementById("status").textContent = text;
}
