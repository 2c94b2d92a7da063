// One job's items as the customer sees them: the items the movers list (the space
// `job-<number>`, bucket `items`, which a customer may only read), each with its photos, and
// the customer's return requests beside them (the space `returns-<number>`, bucket
// `requests`, which the office opens to the customer as a writer). Drawn with DOM nodes, never
// HTML strings: every name here was typed by someone else.

/** @typedef {import("../../Clients/JavaScript/types/bucket.js").Bucket} Bucket */

/** The spaces of job `number`. */
export const jobSpace = (/** @type {string} */ number) => `job-${number}`;
export const returnsSpace = (/** @type {string} */ number) => `returns-${number}`;

/** An item's photos are its members named `photo-<name>` that refer to an attachment. */
const photoPrefix = "photo-";

export class ItemList {
  /**
   * @param {HTMLElement} list The `<ul>` to draw into.
   * @param {Bucket} items The job's items.
   * @param {Bucket | null} requests The customer's return requests, by item key; null when the
   *   customer may not make any (not a writer of `returns-<number>`).
   */
  constructor(list, items, requests) {
    this.list = list;
    this.items = items;
    this.requests = requests;
    /** @type {Map<string, Promise<string>>} Object URLs of the photos fetched, by SHA-256. */
    this.photos = new Map();
    this.scheduled = false;
  }

  /** Draws the list again, once, after the changes arriving in this turn. */
  refresh() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.draw();
    });
  }

  draw() {
    const entries = this.items.list().sort((a, b) => String(a.object.name).localeCompare(String(b.object.name)));
    this.list.replaceChildren(...entries.map(({ key, object }) => this.row(key, object)));
  }

  /**
   * @param {string} key
   * @param {Record<string, any>} item
   */
  row(key, item) {
    const returning = this.requests?.get(key)?.pleaseReturn === true;
    const row = element("li", { className: returning ? "item returning" : "item" });
    row.dataset.key = key;
    row.append(
      element("h2", { textContent: String(item.name ?? key) }),
      element("p", { className: "status", textContent: `${item.status ?? "listed"} · ${item.category ?? ""}` }));
    const photos = element("div", { className: "photos" });
    for (const member of Object.keys(item).filter((name) => name.startsWith(photoPrefix)).sort()) {
      const attachment = this.items.attachment(member, key);
      if (!attachment) continue;
      const image = element("img", { alt: member.slice(photoPrefix.length) });
      image.dataset.sha256 = attachment.sha256;
      this.photoURL(attachment).then((url) => { image.src = url; }, () => { image.alt += " (not available)"; });
      photos.append(image);
    }
    row.append(photos);
    const button = element("button", {
      type: "button", className: "return", disabled: !this.requests,
      textContent: returning ? "Cancel the return request" : "Please return",
    });
    button.addEventListener("click", () => this.request(key, item, !returning));
    row.append(button);
    return row;
  }

  /**
   * Marks an item "please return", or takes the mark back: kept at once, sent when online.
   * @param {string} key
   * @param {Record<string, any>} item
   * @param {boolean} pleaseReturn
   */
  async request(key, item, pleaseReturn) {
    await this.requests?.put(key, { pleaseReturn, item: String(item.name ?? key) });
    this.refresh();
  }

  /**
   * @param {import("../../Clients/JavaScript/types/attachments/reference.js").Attachment} attachment
   * @returns {Promise<string>}
   */
  photoURL(attachment) {
    let url = this.photos.get(attachment.sha256);
    if (!url) {
      url = this.items.data(attachment).then((blob) => URL.createObjectURL(blob));
      url.catch(() => this.photos.delete(attachment.sha256));
      this.photos.set(attachment.sha256, url);
    }
    return url;
  }

  /** Lets the photos' object URLs go. */
  close() {
    for (const url of this.photos.values()) url.then((value) => URL.revokeObjectURL(value), () => {});
    this.photos.clear();
  }
}

/**
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Partial<HTMLElementTagNameMap[Tag]>} properties
 * @returns {HTMLElementTagNameMap[Tag]}
 */
function element(tag, properties) {
  return Object.assign(document.createElement(tag), properties);
}
