/**
 * Search: one query, filters and a mode, recalled with explanations so each hit can show its
 * score breakdown and the query terms it matched. The same filters drive Export.
 */
import type { MemoryType, RecallHit, RecallOptions } from '../../index.ts';
import { dateInputToSeconds } from '../lib/format.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';

export type SearchMode = 'hybrid' | 'semantic';

export interface SearchFilters {
  type: MemoryType | '';
  tag: string;
  /** 0 = no minimum. */
  minImportance: number;
  /** `<input type="date">` value, '' = any time. */
  since: string;
  includeSuperseded: boolean;
}

export const RESULT_COUNT = 20;

/** Hits at or above the relevance floor ('weak'), and the rest (folded away under "weaker matches"). */
export function splitByConfidence(hits: readonly RecallHit[]): { matches: RecallHit[]; weaker: RecallHit[] } {
  const matches: RecallHit[] = [];
  const weaker: RecallHit[] = [];
  for (const hit of hits) (hit.confidence === 'none' ? weaker : matches).push(hit);
  return { matches, weaker };
}

export function emptyFilters(): SearchFilters {
  return { type: '', tag: '', minImportance: 0, since: '', includeSuperseded: false };
}

export class SearchState {
  query = $state('');
  mode = $state<SearchMode>('hybrid');
  filters = $state<SearchFilters>(emptyFilters());
  results = $state.raw<RecallHit[] | null>(null);
  /** The query the current results answer. */
  answered = $state('');
  /** The results split at the relevance floor. */
  split = $derived(splitByConfidence(this.results ?? []));
  searching = $state(false);
  error = $state<string | null>(null);

  private token = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    memory.onChange(() => {
      if (this.query.trim()) this.schedule(250);
    });
    memory.onOpen(() => {
      this.results = null;
      this.answered = '';
      this.error = null;
      if (this.query.trim()) void this.run();
    });
  }

  /** How many filters differ from their defaults (for the "Filters (2)" label). */
  get activeFilters(): number {
    const f = this.filters;
    return (f.type ? 1 : 0) + (f.tag.trim() ? 1 : 0) + (f.minImportance > 0 ? 1 : 0) + (f.since ? 1 : 0) + (f.includeSuperseded ? 1 : 0);
  }

  resetFilters(): void {
    this.filters = emptyFilters();
    this.schedule(0);
  }

  /** Re-runs the search after `delay` ms (typing debounce). */
  schedule(delay = 180): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), delay);
  }

  options(): RecallOptions {
    const f = this.filters;
    const since = dateInputToSeconds(f.since);
    const tag = f.tag.trim().replace(/^#/, '');
    return {
      k: RESULT_COUNT,
      mode: this.mode,
      explain: true,
      // Searching from the UI is looking, not using: it does not count as an access.
      touch: false,
      ...(this.mode === 'hybrid' ? { lexicalIndex: 'corpus' as const } : {}),
      ...(f.type ? { type: f.type } : {}),
      ...(tag ? { tag } : {}),
      ...(f.minImportance > 0 ? { minImportance: f.minImportance } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(f.includeSuperseded ? { includeSuperseded: true } : {}),
    };
  }

  async run(): Promise<void> {
    clearTimeout(this.timer);
    const query = this.query.trim();
    const token = ++this.token;
    const client = memory.api;
    if (!client || !query) {
      this.results = null;
      this.answered = '';
      this.searching = false;
      this.error = null;
      return;
    }
    this.searching = true;
    try {
      const hits = await client.recall(query, this.options());
      if (token !== this.token) return;
      this.results = hits;
      this.answered = query;
      this.error = null;
    } catch (error) {
      if (token === this.token) this.error = describe(error);
    } finally {
      if (token === this.token) this.searching = false;
    }
  }

  clear(): void {
    this.query = '';
    void this.run();
  }
}

export const search = new SearchState();
