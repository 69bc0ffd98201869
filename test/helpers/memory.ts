import type { Memory } from '../../src/core/types.ts';

/** A fixed "now" for pure scoring tests (Unix seconds). */
export const NOW = 1_700_000_000;
export const DAY = 86_400;

/** A complete Memory with neutral defaults, for tests of pure functions. */
export function makeMemory(id: string, text: string, over: Partial<Memory> = {}): Memory {
  return {
    id, text, type: 'semantic', tags: [], importance: 0.5, createdAt: NOW, lastAccessed: NOW, accessCount: 0,
    source: null, links: [], supersededBy: '', supersededAt: 0, polarity: 0, expiresAt: 0, pinned: false,
    trust: 'trusted', contentHash: '', validFrom: 0, validUntil: 0, surfacesWhen: [], ...over,
  } as Memory;
}
