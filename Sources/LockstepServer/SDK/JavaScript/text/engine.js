// Computes the edits between two runs of scalars: Myers' O(ND) algorithm with the speedups of
// diff-match-patch, as LockstepCore's TextDiffEngine does, step for step, so that both make
// the same diffs: trim the common ends, answer the trivial shapes, split around a long shared
// middle (the half match), diff long texts line by line first (line mode).
import { commonPrefixLength, commonSuffixLength, firstOccurrence } from "./search.js";
import { mergeAdjacentEdits } from "./merge.js";
import { cleanUpSemantically } from "./semantic.js";

/** @typedef {import("./edits.js").Edit} Edit */

const now = () => (typeof performance === "undefined" ? Date.now() : performance.now());

export class TextDiffEngine {
  /**
   * @param {number | null} timeoutMs How long to look for the shortest diff before settling for
   *   a valid but longer one; `null` never gives up (and never takes the half-match shortcut).
   */
  constructor(timeoutMs) {
    /** @type {number | null} */
    this.deadline = timeoutMs === null ? null : now() + timeoutMs;
  }

  get isPastDeadline() {
    return this.deadline !== null && now() >= this.deadline;
  }

  /**
   * The edits that turn `old` into `neu`, merged.
   * @param {number[]} old @param {number[]} neu
   * @param {boolean} lineMode Whether texts over 100 scalars may be diffed line by line first.
   * @returns {Edit[]}
   */
  edits(old, neu, lineMode) {
    if (old.length === neu.length && commonPrefixLength(old, neu) === old.length) {
      return old.length === 0 ? [] : [{ op: "=", s: old }];
    }
    const prefix = commonPrefixLength(old, neu);
    const suffix = commonSuffixLength(old, neu, prefix, old.length, prefix, neu.length);
    return this.editsKnowingEnds(old, neu, prefix, suffix, lineMode);
  }

  /**
   * `edits` of two different texts whose common prefix and suffix (measured after the prefix)
   * are known.
   * @param {number[]} old @param {number[]} neu @param {number} prefix @param {number} suffix
   * @param {boolean} lineMode
   * @returns {Edit[]}
   */
  editsKnowingEnds(old, neu, prefix, suffix, lineMode) {
    /** @type {Edit[]} */
    let edits = [];
    if (prefix > 0) edits.push({ op: "=", s: old.slice(0, prefix) });
    edits = edits.concat(this.betweenDifferentEnds(
      old.slice(prefix, old.length - suffix), neu.slice(prefix, neu.length - suffix), lineMode));
    if (suffix > 0) edits.push({ op: "=", s: old.slice(old.length - suffix) });
    return mergeAdjacentEdits(edits);
  }

  /**
   * The edits between two texts that differ at their first and at their last scalar.
   * @param {number[]} old @param {number[]} neu @param {boolean} lineMode
   * @returns {Edit[]}
   */
  betweenDifferentEnds(old, neu, lineMode) {
    if (old.length === 0) return [{ op: "+", s: neu }];
    if (neu.length === 0) return [{ op: "-", s: old }];
    const oldIsLonger = old.length > neu.length;
    const longer = oldIsLonger ? old : neu;
    const shorter = oldIsLonger ? neu : old;
    const start = firstOccurrence(longer, shorter);
    if (start >= 0) {
      // The shorter text sits inside the longer one: all around it is inserted or deleted.
      const op = oldIsLonger ? "-" : "+";
      return [
        { op, s: longer.slice(0, start) },
        { op: "=", s: shorter },
        { op, s: longer.slice(start + shorter.length) },
      ];
    }
    if (shorter.length === 1) {
      // A single scalar that the other text does not contain: nothing is shared.
      return [{ op: "-", s: old }, { op: "+", s: neu }];
    }
    const half = this.halfMatch(old, neu);
    if (half) {
      return this.edits(half.oldPrefix, half.newPrefix, lineMode)
        .concat([{ op: "=", s: half.common }], this.edits(half.oldSuffix, half.newSuffix, lineMode));
    }
    if (lineMode && old.length > 100 && neu.length > 100) return this.lineModeEdits(old, neu);
    return this.bisect(old, neu);
  }

  /**
   * Looks for a run both texts share that is at least half as long as the longer text. Only
   * with a deadline: diffing around it is faster but may miss the shortest diff.
   * @param {number[]} old @param {number[]} neu
   */
  halfMatch(old, neu) {
    if (this.deadline === null) return null;
    const oldIsLonger = old.length > neu.length;
    const longer = oldIsLonger ? old : neu;
    const shorter = oldIsLonger ? neu : old;
    if (longer.length < 4 || shorter.length * 2 < longer.length) return null;
    // A shared run of half the longer text must contain its second or its third quarter.
    const second = this.sharedRun(longer, shorter, Math.floor((longer.length + 3) / 4));
    const third = this.sharedRun(longer, shorter, Math.floor((longer.length + 1) / 2));
    const best = !second ? third : !third ? second : second.length > third.length ? second : third;
    if (!best) return null;
    const longerPrefix = longer.slice(0, best.longerStart);
    const longerSuffix = longer.slice(best.longerStart + best.length);
    const shorterPrefix = shorter.slice(0, best.shorterStart);
    const shorterSuffix = shorter.slice(best.shorterStart + best.length);
    const common = shorter.slice(best.shorterStart, best.shorterStart + best.length);
    return oldIsLonger
      ? { oldPrefix: longerPrefix, oldSuffix: longerSuffix, newPrefix: shorterPrefix, newSuffix: shorterSuffix, common }
      : { oldPrefix: shorterPrefix, oldSuffix: shorterSuffix, newPrefix: longerPrefix, newSuffix: longerSuffix, common };
  }

  /**
   * The longest run both texts share that contains the quarter of `longer` from `seedStart`,
   * if it is at least half as long as `longer`.
   * @param {number[]} longer @param {number[]} shorter @param {number} seedStart
   */
  sharedRun(longer, shorter, seedStart) {
    const seed = longer.slice(seedStart, seedStart + Math.floor(longer.length / 4));
    /** @type {{ longerStart: number, shorterStart: number, length: number } | null} */
    let best = null;
    let searchFrom = 0;
    for (;;) {
      const found = firstOccurrence(shorter, seed, searchFrom);
      if (found < 0) break;
      const after = commonPrefixLength(longer, shorter, seedStart, longer.length, found, shorter.length);
      const before = commonSuffixLength(longer, shorter, 0, seedStart, 0, found);
      if (after + before > (best ? best.length : 0)) {
        best = { longerStart: seedStart - before, shorterStart: found - before, length: before + after };
      }
      // A seed that recurs all over a repetitive text makes this quadratic: stop at the deadline.
      if (this.isPastDeadline) break;
      searchFrom = found + 1;
    }
    if (!best || best.length * 2 < longer.length) return null;
    return best;
  }

  /**
   * Finds the middle snake of a shortest edit script and diffs the halves on either side of it
   * (Myers 1986, section 4b), in linear space. Past the deadline, replaces all of `old` with all
   * of `neu`.
   * @param {number[]} old @param {number[]} neu
   * @returns {Edit[]}
   */
  bisect(old, neu) {
    const oldCount = old.length;
    const newCount = neu.length;
    const maxDifferences = Math.floor((oldCount + newCount + 1) / 2);
    // Diagonals −radius … radius + 1 are stored at k + radius, grown as d grows.
    let radius = Math.min(maxDifferences, 1024);
    let forward = new Int32Array(2 * radius + 2).fill(-1);
    let backward = new Int32Array(2 * radius + 2).fill(-1);
    forward[radius + 1] = 0;
    backward[radius + 1] = 0;
    const delta = oldCount - newCount;
    // Paths can only meet after a forward step when delta is odd, after a backward one when even.
    const meetsOnForwardStep = delta % 2 !== 0;
    let forwardTrimStart = 0;
    let forwardTrimEnd = 0;
    let backwardTrimStart = 0;
    let backwardTrimEnd = 0;

    for (let d = 0; d < maxDifferences; d++) {
      if (this.isPastDeadline) break;
      if (d + 1 > radius) {
        const wider = Math.min(2 * radius, maxDifferences);
        forward = widen(forward, radius, wider);
        backward = widen(backward, radius, wider);
        radius = wider;
      }
      const offset = radius;
      const diagonals = forward.length;

      for (let k = -d + forwardTrimStart; k <= d - forwardTrimEnd; k += 2) {
        const index = offset + k;
        let x = k === -d || (k !== d && forward[index - 1] < forward[index + 1]) ? forward[index + 1] : forward[index - 1] + 1;
        let y = x - k;
        while (x < oldCount && y < newCount && old[x] === neu[y]) {
          x++;
          y++;
        }
        forward[index] = x;
        if (x > oldCount) forwardTrimEnd += 2;
        else if (y > newCount) forwardTrimStart += 2;
        else if (meetsOnForwardStep) {
          const backwardIndex = offset + delta - k;
          if (backwardIndex >= 0 && backwardIndex < diagonals && backward[backwardIndex] !== -1
            && x >= oldCount - backward[backwardIndex]) {
            return this.split(old, neu, x, y);
          }
        }
      }

      for (let k = -d + backwardTrimStart; k <= d - backwardTrimEnd; k += 2) {
        const index = offset + k;
        let x = k === -d || (k !== d && backward[index - 1] < backward[index + 1]) ? backward[index + 1] : backward[index - 1] + 1;
        let y = x - k;
        while (x < oldCount && y < newCount && old[oldCount - x - 1] === neu[newCount - y - 1]) {
          x++;
          y++;
        }
        backward[index] = x;
        if (x > oldCount) backwardTrimEnd += 2;
        else if (y > newCount) backwardTrimStart += 2;
        else if (!meetsOnForwardStep) {
          const forwardIndex = offset + delta - k;
          if (forwardIndex >= 0 && forwardIndex < diagonals && forward[forwardIndex] !== -1) {
            const forwardX = forward[forwardIndex];
            const forwardY = forwardX - (forwardIndex - offset);
            if (forwardX >= oldCount - x) return this.split(old, neu, forwardX, forwardY);
          }
        }
      }
    }
    // Only reached past the deadline: the paths always meet within maxDifferences rounds.
    return [{ op: "-", s: old }, { op: "+", s: neu }];
  }

  /** @param {number[]} old @param {number[]} neu @param {number} x @param {number} y @returns {Edit[]} */
  split(old, neu, x, y) {
    return this.edits(old.slice(0, x), neu.slice(0, y), false).concat(this.edits(old.slice(x), neu.slice(y), false));
  }

  /**
   * Diffs long texts line by line, then refines each changed block scalar by scalar.
   * @param {number[]} old @param {number[]} neu
   * @returns {Edit[]}
   */
  lineModeEdits(old, neu) {
    // A text of one line could only share it by being contained in the other, which the
    // caller ruled out: lines are no help then.
    if (!hasLineBreakBeforeEnd(old) || !hasLineBreakBeforeEnd(neu)) return this.bisect(old, neu);
    const tokenizer = new LineTokenizer();
    const oldLines = tokenizer.tokens(old);
    const newLines = tokenizer.tokens(neu);
    const tokenEdits = this.edits(oldLines, newLines, false);
    if (!tokenEdits.some((edit) => edit.op === "=")) return this.bisect(old, neu);
    // Lines that happen to be equal inside changed blocks ("}", blank lines) join the blocks.
    const lineEdits = cleanUpSemantically(tokenEdits.map((edit) => ({ op: edit.op, s: tokenizer.text(edit.s) })));

    /** @type {Edit[]} */
    let refined = [];
    /** @type {Edit[]} */
    let block = [];
    /** @type {number[]} */
    let deleted = [];
    /** @type {number[]} */
    let inserted = [];
    const refineBlock = () => {
      if (deleted.length === 0 || inserted.length === 0) refined = refined.concat(block);
      else refined = refined.concat(this.edits(deleted, inserted, false));
      block = [];
      deleted = [];
      inserted = [];
    };
    for (const edit of lineEdits) {
      if (edit.op === "=") {
        refineBlock();
        refined.push(edit);
      } else {
        block.push(edit);
        if (edit.op === "-") deleted = deleted.concat(edit.s);
        else inserted = inserted.concat(edit.s);
      }
    }
    refineBlock();
    return refined;
  }
}

/** @param {Int32Array} values @param {number} radius @param {number} wider */
function widen(values, radius, wider) {
  const widened = new Int32Array(2 * wider + 2).fill(-1);
  widened.set(values, wider - radius);
  return widened;
}

/** @param {number[]} text */
function hasLineBreakBeforeEnd(text) {
  for (let index = 0; index < text.length - 1; index++) if (text[index] === 0x0a) return true;
  return false;
}

/**
 * Numbers the distinct lines of texts, so that a diff over line numbers is a diff over lines.
 * Tokens are plain numbers like scalars, so the same engine runs on them, with no limit on the
 * number of distinct lines.
 */
class LineTokenizer {
  constructor() {
    /** @type {number[][]} */
    this.lines = [];
    /** @type {Map<string, number>} */
    this.tokenOfLine = new Map();
  }

  /** @param {number[]} text */
  tokens(text) {
    /** @type {number[]} */
    const tokens = [];
    let lineStart = 0;
    while (lineStart < text.length) {
      let lineEnd = text.indexOf(0x0a, lineStart);
      lineEnd = lineEnd < 0 ? text.length : lineEnd + 1;
      const line = text.slice(lineStart, lineEnd);
      const key = unitString(line);
      let token = this.tokenOfLine.get(key);
      if (token === undefined) {
        token = this.lines.length;
        this.lines.push(line);
        this.tokenOfLine.set(key, token);
      }
      tokens.push(token);
      lineStart = lineEnd;
    }
    return tokens;
  }

  /** @param {number[]} tokens */
  text(tokens) {
    /** @type {number[]} */
    let text = [];
    for (const token of tokens) text = text.concat(this.lines[token]);
    return text;
  }
}

/** A line as a string that tells it apart from any other line: a map key.
 * @param {number[]} line */
function unitString(line) {
  let key = "";
  for (let from = 0; from < line.length; from += 4096) {
    /** @type {number[]} */
    const units = [];
    for (const scalar of line.slice(from, from + 4096)) {
      if (scalar > 0xffff) units.push(0xd800 + ((scalar - 0x10000) >> 10), 0xdc00 + ((scalar - 0x10000) & 0x3ff));
      else units.push(scalar);
    }
    key += String.fromCharCode(...units);
  }
  return key;
}
