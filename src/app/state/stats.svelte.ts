/**
 * Stats: what `stats()` reports, plus top tags and memories created per day, computed from the
 * newest memories (`listRecent` pages, up to SAMPLE_LIMIT rows: the store has no aggregate
 * query for tags or days yet).
 */
import type { Memory } from '../../index.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';

export const SAMPLE_LIMIT = 5000;
export const DAYS = 30;

export interface DayCount {
  /** Local midnight, Unix seconds. */
  start: number;
  count: number;
}

function midnight(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

export function perDay(memories: readonly Memory[], now = new Date(), days = DAYS): DayCount[] {
  const today = midnight(now);
  const out: DayCount[] = [];
  for (let i = days - 1; i >= 0; i--) {
    const start = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    out.push({ start: start.getTime() / 1000, count: 0 });
  }
  const first = out[0]!.start;
  for (const m of memories) {
    if (m.createdAt < first) continue;
    const d = midnight(new Date(m.createdAt * 1000)).getTime() / 1000;
    const slot = out.find((x) => x.start === d);
    if (slot) slot.count++;
  }
  return out;
}

export function topTags(memories: readonly Memory[], limit = 12): { tag: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const m of memories) for (const t of m.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts]
    .map(([tag, count]) => ({ tag, count }))
    .sort((a, b) => b.count - a.count || a.tag.localeCompare(b.tag))
    .slice(0, limit);
}

export class StatsState {
  constructor() {
    memory.onOpen(() => {
      this.loadedVersion = -1;
      this.tags = [];
      this.days = [];
      this.sampled = 0;
    });
  }

  tags = $state.raw<{ tag: string; count: number }[]>([]);
  days = $state.raw<DayCount[]>([]);
  /** How many memories the tag and day figures were computed from. */
  sampled = $state(0);
  /** True when the sample stopped at SAMPLE_LIMIT before the oldest memory. */
  truncated = $state(false);
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
      await memory.refreshStats();
      const rows: Memory[] = [];
      let before: number | undefined;
      let more = true;
      while (more && rows.length < SAMPLE_LIMIT) {
        const limit = Math.min(1000, SAMPLE_LIMIT - rows.length);
        const page = await client.listRecent({ limit, ...(before !== undefined ? { before } : {}) });
        rows.push(...page);
        more = page.length === limit;
        before = page.at(-1)?.createdAt;
      }
      this.sampled = rows.length;
      this.truncated = more;
      this.tags = topTags(rows);
      this.days = perDay(rows);
      this.loadedVersion = version;
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.loading = false;
    }
  }
}

export const stats = new StatsState();
