// The browser's offset from the server's clock, from NTP-style exchanges with GET /time:
// t1 (sent) and t4 (received) on this page's clock, t2 and t3 on the server's. Each gives the
// offset ((t2 − t1) + (t3 − t4)) / 2 with an error bound of half the round trip less the
// server's time in hand; the estimate is the sample with the smallest bound.

const samples = [];

/** This page's clock, in milliseconds since the epoch, with sub-millisecond precision. */
export const localNow = () => performance.timeOrigin + performance.now();

/** One exchange; returns the sample {at, offset, bound, roundTrip} in milliseconds. */
export async function exchange() {
  const t1 = localNow();
  // Integer nanoseconds are past a double's precision: sent as text, and t1 kept here.
  const nanoseconds = (BigInt(Math.floor(t1 * 1000)) * 1000n).toString();
  const response = await fetch(`/time?t1=${nanoseconds}`, { cache: "no-store", credentials: "omit" });
  const body = await response.json();
  const t4 = localNow();
  const t2 = body.t2 / 1e6;
  const t3 = body.t3 / 1e6;
  const roundTrip = t4 - t1 - (t3 - t2);
  const sample = { at: t4, offset: (t2 - t1 + (t3 - t4)) / 2, bound: Math.max(roundTrip / 2, 0.001), roundTrip };
  samples.push(sample);
  while (samples.length > 120) samples.shift();
  return sample;
}

/** The best estimate so far, or null before the first exchange. */
export function estimate() {
  let best = null;
  for (const sample of samples.slice(-30)) if (!best || sample.bound < best.bound) best = sample;
  return best;
}

export function history() {
  return samples.slice();
}

/** Server time now, in ms, by the best estimate (this page's clock until one is made). */
export function serverNow() {
  return localNow() + (estimate()?.offset ?? 0);
}

/** Makes exchanges until there are `count` samples (a few quick ones for a first estimate). */
export async function calibrate(count = 5) {
  while (samples.length < count) await exchange();
  return estimate();
}
