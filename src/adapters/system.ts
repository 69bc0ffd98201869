/**
 * The platform's clock and ids, for the composition roots to inject: the core never reads
 * `Date.now` or `crypto.randomUUID` itself, so tests can pin both. (The core's only sampling is
 * seeded by the store itself: core/domain/seeded-random.ts.)
 */
import type { Clock, IdSource } from '../core/ports.ts';

/** Wall-clock Unix seconds (with fractions). */
export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** Random UUID v4s from the platform's CSPRNG. */
export const randomIds: IdSource = { next: () => crypto.randomUUID() };
