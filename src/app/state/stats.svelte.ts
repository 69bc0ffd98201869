/**
 * Stats: what `stats()` reports, plus the top tags and the memories created per day over the
 * last 30 days — exact counts over every active memory, from the store's `aggregate` (read
 * from its indexes, so a 100k store is counted, not sampled).
 */
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';

export const DAYS = 30;
export const TOP_TAGS = 12;

export interface DayCount {
  /** Local midnight, Unix seconds. */
  start: number;
  count: number;
}

/** The local midnights of the last `days` days (today last), plus the next midnight: `days + 1` edges. */
export function dayEdges(now = new Date(), days = DAYS): number[] {
  const edges: number[] = [];
  for (let i = days - 1; i >= -1; i--) edges.push(new Date(now.getFullYear(), now.getMonth(), now.getDate() - i).getTime() / 1000);
  return edges;
}

export class StatsState {
  constructor() {
    memory.onOpen(() => {
      this.loadedVersion = -1;
      this.tags = [];
      this.days = [];
      this.distinctTags = 0;
      this.expired = null;
    });
  }

  tags = $state.raw<{ tag: string; count: number }[]>([]);
  /** How many different tags the active memories carry. */
  distinctTags = $state(0);
  /** Expired memories not purged yet (part of `active`, hidden from recall and lists). */
  expired = $state<number | null>(null);
  days = $state.raw<DayCount[]>([]);
  loading = $state(false);
  loadedVersion = $state(-1);
  error = $state<string | null>(null);

  async load(): Promise<void> {
    const client = memory.api;
    if (!client || this.loading) return;
    const version = memory.version;
    this.loading = true;
    this.error = null;
    try {
      const edges = dayEdges();
      const [, counts] = await Promise.all([memory.refreshStats(), client.aggregate({ topTags: TOP_TAGS, createdEdges: edges, countExpired: true })]);
      this.tags = counts.tags;
      this.distinctTags = counts.distinctTags;
      this.expired = counts.expired ?? null;
      this.days = counts.created.map((count, i) => ({ start: edges[i]!, count }));
      this.loadedVersion = version;
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.loading = false;
    }
  }
}

export const stats = new StatsState();
