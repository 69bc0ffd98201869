/**
 * The platform's clock, ids and randomness, for the composition roots to inject: the core never
 * reads `Date.now`, `crypto.randomUUID` or `Math.random` itself, so tests can pin all three.
 */
import type { Clock, IdSource, RandomSource } from '../core/ports.ts';

/** Wall-clock Unix seconds (with fractions). */
export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** Random UUID v4s from the platform's CSPRNG. */
export const randomIds: IdSource = { next: () => crypto.randomUUID() };

/** `Math.random`: sampling only, nothing secret. */
export const mathRandom: RandomSource = { next: () => Math.random() };
