/** Store names and clocks for tests, with nothing Node- or browser-only (the contract suites run in both). */

const run = (globalThis as { process?: { pid?: number } }).process?.pid ?? Math.floor(Math.random() * 1e6);
let counter = 0;
/** A unique store name, so tests sharing one IndexedDB (fake or real) never see each other's data. */
export function uniqueName(prefix = 'test'): string {
  counter += 1;
  return `${prefix}-${run}-${Date.now()}-${counter}`;
}

/** A settable clock (Unix seconds). */
export function manualClock(start = 1_760_000_000.25): { now(): number; advance(seconds: number): void; set(t: number): void } {
  let t = start;
  return { now: () => t, advance: (s) => void (t += s), set: (v) => void (t = v) };
}
