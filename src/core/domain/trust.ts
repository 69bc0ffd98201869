/**
 * Trust levels, fail-safe. A memory's `trust` says how far its origin is trusted
 * (`trusted` > `reported` > `untrusted`). Anything else a row may carry (an archive written by
 * another tool, a hand-edited database) counts as `untrusted`: it never passes a `minTrust`
 * filter that `untrusted` would fail, and packs mark it like `untrusted`. Pure; no I/O.
 */
import { TRUST_LEVELS, type Trust } from '../types.ts';

const WORST = TRUST_LEVELS.length - 1;

/** 0 for trusted, 1 reported, 2 untrusted; an unknown or missing level ranks as untrusted. */
export function trustRank(level: unknown): number {
  const i = typeof level === 'string' ? (TRUST_LEVELS as readonly string[]).indexOf(level) : -1;
  return i === -1 ? WORST : i;
}

/** The level a row's `trust` stands for: itself when known, else `untrusted`. */
export function effectiveTrust(level: unknown): Trust {
  return TRUST_LEVELS[trustRank(level)]!;
}

/** The less trusted of two levels (unknown ones count as untrusted). */
export function lowerTrust(a: unknown, b: unknown): Trust {
  return TRUST_LEVELS[Math.max(trustRank(a), trustRank(b))]!;
}

/** Whether `level` is at most as trusted as `ceiling` (a write capped at `ceiling` could have produced it). */
export function withinCeiling(level: unknown, ceiling: Trust): boolean {
  return trustRank(level) >= trustRank(ceiling);
}
