/**
 * File globs for `surfacesWhen`, matched in time linear in the path (times the pattern's size).
 *
 * The globs used to be translated into a RegExp (`*` → `[^/]*`, `**` → `.*`). A backtracking
 * engine runs such a translation in O(n^k) for a glob with k stars: `*a*a*a*a*a*a*b` against 200
 * `a`s did not finish in five minutes, and both the glob (a memory's pattern, also from an
 * imported archive) and the path (the caller's `filePath`) come from outside. Here a glob is
 * compiled into a small nondeterministic automaton that is run over the path one code point at
 * a time with a set of live states (Thompson's construction), so no input can make it retry.
 *
 * Syntax (unchanged): `*` and `?` stay within one path segment, `**` spans segments, `**​/` is
 * zero or more whole directories, `[…]` a character class (`[!…]` or `[^…]` negated, ranges
 * `a-z`, a `]` right after the opening bracket is literal), `{a,b}` an alternation (nestable; an
 * unclosed `{` ends at the end of the glob), everything else literal. Matching ignores case.
 * A path longer than {@link MAX_GLOB_PATH} matches no glob.
 */

/** One step of the automaton. `next` indexes the program; `alt` is the second branch of a split. */
type Op =
  | { kind: 'char'; test: (cp: number) => boolean; next: number }
  | { kind: 'split'; next: number; alt: number }
  | { kind: 'match' };

/** A parsed glob: a sequence of items, an alternation holding sequences. */
type Item =
  | { kind: 'char'; test: (cp: number) => boolean }
  | { kind: 'star'; crossSlash: boolean }
  | { kind: 'dirs' }
  | { kind: 'alt'; options: Item[][] };

const SLASH = 0x2f;

/** Case-insensitive comparison: a code point and its lower- and upper-case forms (when single code points). */
function variants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = [cp];
  for (const other of [ch.toLowerCase(), ch.toUpperCase()]) {
    const v = other.codePointAt(0)!;
    if (other.length === String.fromCodePoint(v).length && !out.includes(v)) out.push(v);
  }
  return out;
}

function literal(cp: number): (c: number) => boolean {
  const accepted = variants(cp);
  return accepted.length === 1 ? (c) => c === cp : (c) => accepted.includes(c);
}

/** `[…]` starting at `i` (the `[`); null when it has no closing `]` (then `[` is literal). */
function parseClass(cps: number[], i: number): { test: (cp: number) => boolean; end: number } | 'invalid' | null {
  let j = i + 1;
  let negate = false;
  if (cps[j] === 0x21 /* ! */ || cps[j] === 0x5e /* ^ */) {
    negate = true;
    j++;
  }
  // The first character of the body is never the closing bracket.
  let close = -1;
  for (let k = Math.max(j + 1, i + 2); k < cps.length; k++) {
    if (cps[k] === 0x5d) {
      close = k;
      break;
    }
  }
  if (close < 0) return null;
  const ranges: [number, number][] = [];
  for (let k = j; k < close; k++) {
    const lo = cps[k]!;
    if (cps[k + 1] === 0x2d /* - */ && k + 2 < close) {
      const hi = cps[k + 2]!;
      if (hi < lo) return 'invalid';
      ranges.push([lo, hi]);
      k += 2;
    } else {
      ranges.push([lo, lo]);
    }
  }
  const inClass = (c: number): boolean => ranges.some(([lo, hi]) => c >= lo && c <= hi);
  const test = (c: number): boolean => {
    const hit = variants(c).some(inClass);
    return negate ? !hit : hit;
  };
  return { test, end: close + 1 };
}

/** Parses `cps[from…]` up to the end or to the `}` / `,` closing the current alternation. */
function parseSequence(cps: number[], from: number, depth: number): { items: Item[]; end: number } | 'invalid' {
  const items: Item[] = [];
  let i = from;
  while (i < cps.length) {
    const cp = cps[i]!;
    if (depth > 0 && (cp === 0x7d /* } */ || cp === 0x2c /* , */)) break;
    if (cp === 0x2a /* * */) {
      if (cps[i + 1] === 0x2a) {
        if (cps[i + 2] === SLASH) {
          items.push({ kind: 'dirs' });
          i += 3;
        } else {
          items.push({ kind: 'star', crossSlash: true });
          i += 2;
        }
      } else {
        items.push({ kind: 'star', crossSlash: false });
        i += 1;
      }
    } else if (cp === 0x3f /* ? */) {
      items.push({ kind: 'char', test: (c) => c !== SLASH });
      i += 1;
    } else if (cp === 0x5b /* [ */) {
      const parsed = parseClass(cps, i);
      if (parsed === 'invalid') return 'invalid';
      if (parsed === null) {
        items.push({ kind: 'char', test: literal(cp) });
        i += 1;
      } else {
        items.push({ kind: 'char', test: parsed.test });
        i = parsed.end;
      }
    } else if (cp === 0x7b /* { */) {
      const options: Item[][] = [];
      let j = i + 1;
      for (;;) {
        const option = parseSequence(cps, j, depth + 1);
        if (option === 'invalid') return 'invalid';
        options.push(option.items);
        j = option.end;
        if (cps[j] === 0x2c) {
          j += 1;
          continue;
        }
        if (cps[j] === 0x7d) j += 1; // else: unclosed, the alternation ends with the glob
        break;
      }
      items.push({ kind: 'alt', options });
      i = j;
    } else {
      items.push({ kind: 'char', test: literal(cp) });
      i += 1;
    }
  }
  return { items, end: i };
}

/** Thompson construction: appends the program for `items`, continuing at `next`; returns its entry. */
function compile(items: Item[], next: number, program: Op[]): number {
  let entry = next;
  for (let k = items.length - 1; k >= 0; k--) entry = compileItem(items[k]!, entry, program);
  return entry;
}

function compileItem(item: Item, next: number, program: Op[]): number {
  const add = (op: Op): number => program.push(op) - 1;
  switch (item.kind) {
    case 'char':
      return add({ kind: 'char', test: item.test, next });
    case 'star': {
      // loop: split(body, next); body: char → loop
      const loop = add({ kind: 'split', next: -1, alt: next });
      const body = add({ kind: 'char', test: item.crossSlash ? () => true : (c) => c !== SLASH, next: loop });
      (program[loop] as { next: number }).next = body;
      return loop;
    }
    case 'dirs': {
      // (?:.*/)? : split(any* then '/', next)
      const slash = add({ kind: 'char', test: (c) => c === SLASH, next });
      const loop = add({ kind: 'split', next: -1, alt: slash });
      const body = add({ kind: 'char', test: () => true, next: loop });
      (program[loop] as { next: number }).next = body;
      return add({ kind: 'split', next: loop, alt: next });
    }
    case 'alt': {
      const entries = item.options.map((option) => compile(option, next, program));
      let entry = entries[entries.length - 1]!;
      for (let k = entries.length - 2; k >= 0; k--) entry = add({ kind: 'split', next: entries[k]!, alt: entry });
      return entry;
    }
  }
}

export interface CompiledGlob {
  /** Whether the glob matches `path` (backslashes read as `/`), by the anchoring rules above. */
  matches(path: string): boolean;
}

/**
 * Compiles a glob, or returns null for one that can match nothing (a reversed range `[z-a]`).
 * A glob without `/` matches the path's base name; one starting with `/` the whole path (a
 * leading `/` of the path optional); any other must match a trailing run of whole segments.
 */
export function compileGlob(glob: string): CompiledGlob | null {
  let normalized = glob.replace(/\\/g, '/');
  const mode = !normalized.includes('/') ? 'base' : normalized.startsWith('/') ? 'rooted' : 'suffix';
  if (mode === 'rooted') normalized = normalized.slice(1);
  const parsed = parseSequence(Array.from(normalized, (ch) => ch.codePointAt(0)!), 0, 0);
  if (parsed === 'invalid') return null;
  const program: Op[] = [{ kind: 'match' }];
  let start = compile(parsed.items, 0, program);
  if (mode === 'rooted') {
    const slash = program.push({ kind: 'char', test: (c) => c === SLASH, next: start }) - 1;
    start = program.push({ kind: 'split', next: slash, alt: start }) - 1;
  }
  return { matches: (path) => run(program, start, mode, path) };
}

/** Runs the automaton over `path`; a state set per step, so at most |program| work per code point. */
function run(program: Op[], start: number, mode: 'base' | 'rooted' | 'suffix', path: string): boolean {
  let text = path.replace(/\\/g, '/');
  if (mode === 'base') text = text.slice(text.lastIndexOf('/') + 1);
  const size = program.length;
  let current = new Int32Array(size);
  let next = new Int32Array(size);
  let currentCount = 0;
  let nextCount = 0;
  const mark = new Int32Array(size).fill(-1);
  let step = 0;
  const stack: number[] = [];
  /** Adds `pc` and everything reachable from it through splits to the list for this step. */
  const addState = (list: Int32Array, count: number, pc: number): number => {
    stack.push(pc);
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (mark[at] === step) continue;
      mark[at] = step;
      const op = program[at]!;
      if (op.kind === 'split') {
        stack.push(op.alt, op.next);
      } else {
        list[count++] = at;
      }
    }
    return count;
  };
  currentCount = addState(current, 0, start);
  let previous = -1; // the code point before the current position (-1 at the start)
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    // A suffix glob may also start right after any `/`.
    if (mode === 'suffix' && previous === SLASH) currentCount = addState(current, currentCount, start);
    step += 1;
    nextCount = 0;
    for (let k = 0; k < currentCount; k++) {
      const op = program[current[k]!]!;
      if (op.kind === 'char' && op.test(cp)) nextCount = addState(next, nextCount, op.next);
    }
    [current, next] = [next, current];
    currentCount = nextCount;
    previous = cp;
    if (currentCount === 0 && mode !== 'suffix') return false;
  }
  if (mode === 'suffix' && previous === SLASH) currentCount = addState(current, currentCount, start);
  for (let k = 0; k < currentCount; k++) if (program[current[k]!]!.kind === 'match') return true;
  return false;
}

/**
 * Longest path a glob is tested against (Linux's PATH_MAX): a longer `filePath` matches no glob
 * (keywords still see it), which bounds one match to |glob| × 4,096 steps.
 */
export const MAX_GLOB_PATH = 4096;

/** Does `glob` match the file path `path`? */
export function globMatches(glob: string, path: string): boolean {
  if (path.length > MAX_GLOB_PATH) return false;
  return compileGlob(glob)?.matches(path) ?? false;
}
