// The timed store's cryptography, as the Swift client does it (LockstepCore/Releases), with
// WebCrypto: a key of an epoch's hash chain is checked against the window's anchor (hashed
// index + 1 times it must give the anchor), an earlier key is the later one hashed again, and
// an item's box opens with AES-256-GCM under HKDF-SHA256(chain key, "lockstep-releases-v1",
// "seal|<slot>"), bound to its place by the associated data.

export const format = "lockstep-releases-v1";
export const epochMilliseconds = 3_600_000;
export const tickMilliseconds = 1000;
const text = new TextEncoder();

export function hexBytes(hex) {
  const bytes = new Uint8Array(hex.length / 2);
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(hex.substr(index * 2, 2), 16);
  return bytes;
}

export function base64Bytes(base64) {
  return Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
}

const sameBytes = (a, b) => a.length === b.length && a.every((byte, index) => byte === b[index]);

/** The chain position whose key opens what starts at `time` (ms). */
export function position(time) {
  const epoch = Math.floor(time / epochMilliseconds);
  return { epoch, index: Math.floor((time - epoch * epochMilliseconds) / tickMilliseconds) };
}

/** `key` hashed `steps` times: the key that many places earlier on its chain. */
export async function earlier(key, steps) {
  let bytes = key;
  for (let step = 0; step < steps; step++) bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return bytes;
}

/** The keys this page has checked, newest per store and epoch: {index, key}. */
export class KeyRing {
  constructor() {
    this.newest = new Map();
  }

  /** Checks a released key ({store, epoch, index, key}) against its epoch's anchor (hex), and keeps it if newer. */
  async add(released, anchorHex) {
    const slot = `${released.store}/${released.epoch}`;
    const known = this.newest.get(slot);
    if (known && known.index >= released.index) return true;
    const key = hexBytes(released.key);
    // From a key already checked, fewer hashes reach solid ground; else all the way to the anchor.
    const ok = known
      ? sameBytes(await earlier(key, released.index - known.index), known.key)
      : anchorHex !== undefined && sameBytes(await earlier(key, released.index + 1), hexBytes(anchorHex));
    if (ok) this.newest.set(slot, { index: released.index, key });
    return ok;
  }

  /** The chain key at `at` ({epoch, index}) of `store`, if a checked key at or after it is known. */
  async keyAt(store, at) {
    const known = this.newest.get(`${store}/${at.epoch}`);
    if (!known || known.index < at.index) return null;
    return earlier(known.key, known.index - at.index);
  }
}

/** Opens an entry's box with the chain key at its start: {item, data} (item null for an empty slot). Throws when it does not open. */
export async function open(entry, store, chainKey) {
  const associated = text.encode(`${format}|${store}|${entry.slot}|${entry.start}|${entry.end}`);
  const material = await crypto.subtle.importKey("raw", chainKey, "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: text.encode(format), info: text.encode(`seal|${entry.slot}`) },
    material, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
  const box = base64Bytes(entry.box);
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: box.slice(0, 12), additionalData: associated, tagLength: 128 }, key, box.slice(12));
  return JSON.parse(new TextDecoder().decode(plain));
}
