/**
 * Browse: every memory, newest first, loaded page by page with `listRecent({ before })` as the
 * list scrolls (the list component renders only the visible rows), filtered by type and tag,
 * plus the memory open in the detail pane.
 *
 * `listRecent` has no type/tag filter yet, so those filters are applied here to each page: a
 * filtered list keeps reading pages until it has enough matching rows (or reaches the end).
 * `before` is strict on `createdAt`, and several memories can share one timestamp (a batch
 * written in the same millisecond), so each page asks for "before the last timestamp, plus a
 * hair" and drops the rows it has already seen at that timestamp: no row is skipped at a tie.
 */
import type { ChangeEvent, Memory, MemoryType } from '../../index.ts';
import { describe, type Problem } from '../lib/errors.ts';
import { memory, type MemoryChanges } from './memory.svelte.ts';

const PAGE = 400;
/** Memories read at once in a list of given ids (Health's lists). */
const ID_PAGE = 100;

/** A fixed list of memories to browse (what a Health count counts), instead of the whole store. */
export interface IdList {
  /** What the list is, in words: "Fading: decay would move them to the trash". */
  label: string;
  ids: string[];
}

export class BrowseState {
  items = $state.raw<Memory[]>([]);
  type = $state<MemoryType | ''>('');
  tag = $state('');
  includeSuperseded = $state(false);
  includeExpired = $state(false);
  /** When set, the list shows these memories (and the filters above do not apply). */
  idList = $state.raw<IdList | null>(null);
  /** Expired memories not yet purged (hidden unless `includeExpired`); null until counted. */
  expiredCount = $state<number | null>(null);
  exhausted = $state(false);
  loading = $state(false);
  /** The first page has arrived (so an empty list means "nothing here"). */
  loadedOnce = $state(false);
  error = $state<string | null>(null);

  selectedId = $state<string | null>(null);
  selected = $state<Memory | null>(null);
  selectedStatus = $state<'none' | 'loading' | 'ready' | 'missing'>('none');

  /** createdAt of the last row read from the store (kept or filtered out). */
  private cursor: number | undefined;
  /** Ids read at exactly `cursor`, to skip them when the next page re-reads that timestamp. */
  private tieIds = new Set<string>();
  private generation = 0;
  private loadingPromise: Promise<void> | null = null;
  private wanted = 0;

  constructor() {
    memory.onChange((event) => void this.changed(event));
    memory.onOpen(() => {
      this.wanted = 0;
      this.idList = null;
      this.expiredCount = null;
      void this.countExpired();
      this.reset();
      void this.select(this.selectedId);
    });
  }

  get filtered(): boolean {
    return this.idList === null && (this.type !== '' || this.tag.trim() !== '');
  }

  /** Rows the scrollbar should account for: the store's count while unfiltered and still loading. */
  get total(): number {
    if (this.idList) return this.idList.ids.length;
    if (this.exhausted || !this.loadedOnce) return this.items.length;
    if (this.filtered) return this.items.length + 1;
    return Math.max(this.items.length + 1, this.expectedTotal ?? 0);
  }

  /** How many rows the unfiltered list holds, from the store's counts (null until known). */
  get expectedTotal(): number | null {
    const stats = memory.stats;
    if (!stats) return null;
    const expired = this.includeExpired ? 0 : (this.expiredCount ?? 0);
    return (this.includeSuperseded ? stats.count : stats.active) - expired;
  }

  /** Counts the expired memories (hidden by default), for the count line. */
  async countExpired(): Promise<void> {
    const client = memory.api;
    if (!client) return;
    try {
      this.expiredCount = (await client.aggregate({ topTags: 0, countExpired: true })).expired ?? 0;
    } catch {
      this.expiredCount = null;
    }
  }

  private matches(m: Memory): boolean {
    const tag = this.tag.trim().replace(/^#/, '');
    return (this.type === '' || m.type === this.type) && (tag === '' || m.tags.includes(tag));
  }

  /** Starts over (store opened, filters changed, an import landed). */
  reset(): void {
    this.generation++;
    this.items = [];
    this.cursor = undefined;
    this.tieIds = new Set();
    this.exhausted = false;
    this.loadedOnce = false;
    this.loading = false;
    this.error = null;
    this.loadingPromise = null;
    void this.ensure(Math.max(this.wanted, 60));
  }

  /** Loads pages until row `index` exists or the list ends. */
  ensure(index: number): Promise<void> {
    this.wanted = Math.max(index, 0);
    if (this.loadingPromise) return this.loadingPromise;
    if (this.exhausted || this.items.length > this.wanted) return Promise.resolve();
    const generation = this.generation;
    this.loading = true;
    this.loadingPromise = (async () => {
      try {
        while (generation === this.generation && !this.exhausted && this.items.length <= this.wanted) {
          await this.loadPage(generation);
        }
      } catch (error) {
        if (generation === this.generation) this.error = describe(error);
      } finally {
        if (generation === this.generation) {
          this.loading = false;
          this.loadingPromise = null;
        }
      }
    })();
    return this.loadingPromise;
  }

  private async loadPage(generation: number): Promise<void> {
    const client = memory.api;
    if (!client) throw new Error('The store is not open');
    if (this.idList) {
      const slice = this.idList.ids.slice(this.items.length, this.items.length + ID_PAGE);
      const rows = await Promise.all(slice.map((id) => client.get(id)));
      if (generation !== this.generation) return;
      // A memory forgotten since the list was made is dropped from it.
      const gone = slice.filter((_, i) => !rows[i]);
      if (gone.length) this.idList = { ...this.idList, ids: this.idList.ids.filter((id) => !gone.includes(id)) };
      this.items = this.items.concat(rows.filter((m): m is Memory => m !== null));
      if (this.items.length >= this.idList.ids.length) this.exhausted = true;
      this.loadedOnce = true;
      return;
    }
    const limit = PAGE + this.tieIds.size;
    const before = this.cursor === undefined ? undefined : this.cursor + Math.max(1e-6, Math.abs(this.cursor) * 1e-15);
    const rows = await client.listRecent({ limit, ...(before !== undefined ? { before } : {}), ...this.listOptions() });
    if (generation !== this.generation) return;
    const fresh: Memory[] = [];
    for (const row of rows) {
      if (this.cursor !== undefined && (row.createdAt > this.cursor || (row.createdAt === this.cursor && this.tieIds.has(row.id)))) continue;
      if (row.createdAt !== this.cursor) {
        this.cursor = row.createdAt;
        this.tieIds = new Set();
      }
      this.tieIds.add(row.id);
      if (this.matches(row)) fresh.push(row);
    }
    if (fresh.length) this.items = this.items.concat(fresh);
    if (rows.length < limit) this.exhausted = true;
    this.loadedOnce = true;
  }

  private listOptions(): { includeSuperseded?: true; includeExpired?: true } {
    return { ...(this.includeSuperseded ? { includeSuperseded: true as const } : {}), ...(this.includeExpired ? { includeExpired: true as const } : {}) };
  }

  setFilters(filters: { type?: MemoryType | ''; tag?: string; includeSuperseded?: boolean; includeExpired?: boolean }): void {
    if (filters.type !== undefined) this.type = filters.type;
    if (filters.tag !== undefined) this.tag = filters.tag;
    if (filters.includeSuperseded !== undefined) this.includeSuperseded = filters.includeSuperseded;
    if (filters.includeExpired !== undefined) this.includeExpired = filters.includeExpired;
    this.idList = null;
    this.wanted = 0;
    this.reset();
  }

  /** Shows exactly these memories (a Health count's list); `clearList` goes back to the whole store. */
  showList(list: IdList): void {
    this.idList = list;
    this.wanted = 0;
    this.reset();
  }

  clearList(): void {
    this.setFilters({});
  }

  private async changed(event: ChangeEvent): Promise<void> {
    if (!this.loadedOnce && !this.loadingPromise) return;
    if (event.op === 'forget' && event.ids.length) {
      const gone = new Set(event.ids);
      this.items = this.items.filter((m) => !gone.has(m.id));
      if (this.selectedId && gone.has(this.selectedId)) {
        this.selected = null;
        this.selectedStatus = 'missing';
      }
      return;
    }
    if (event.op === 'edit' && event.ids.length) {
      for (const id of event.ids) await this.patch(id);
      return;
    }
    if ((event.op === 'remember' || event.op === 'rememberMany') && this.items.length && !this.idList) {
      await this.prependNewest();
      return;
    }
    this.reset();
    void this.countExpired();
    if (this.selectedId) void this.select(this.selectedId);
  }

  /** New memories are the newest: read the head of the list and put what is new on top. */
  private async prependNewest(): Promise<void> {
    const client = memory.api;
    const newest = this.items[0];
    if (!client || !newest) return;
    const generation = this.generation;
    const head = await client.listRecent({ limit: 200, ...this.listOptions() });
    if (generation !== this.generation) return;
    const known = new Set(this.items.map((m) => m.id));
    const added = head.filter((m) => m.createdAt >= newest.createdAt && !known.has(m.id) && this.matches(m));
    if (head.length === 200 && head.every((m) => m.createdAt >= newest.createdAt)) {
      // More than a page landed at once: start over rather than guess.
      this.reset();
      return;
    }
    if (added.length) this.items = [...added, ...this.items];
  }

  private async patch(id: string): Promise<void> {
    const fresh = await memory.get(id);
    if (this.items.some((m) => m.id === id)) {
      this.items = fresh ? this.items.map((m) => (m.id === id ? fresh : m)) : this.items.filter((m) => m.id !== id);
    }
    if (this.selectedId === id) {
      this.selected = fresh;
      this.selectedStatus = fresh ? 'ready' : 'missing';
    }
  }

  async select(id: string | null): Promise<void> {
    this.selectedId = id;
    if (!id) {
      this.selected = null;
      this.selectedStatus = 'none';
      return;
    }
    const cached = this.items.find((m) => m.id === id);
    if (cached) {
      this.selected = cached;
      this.selectedStatus = 'ready';
    } else {
      this.selected = null;
      this.selectedStatus = 'loading';
    }
    try {
      const fresh = await memory.get(id);
      if (this.selectedId !== id) return;
      this.selected = fresh;
      this.selectedStatus = fresh ? 'ready' : 'missing';
    } catch (error) {
      if (this.selectedId === id) {
        this.error = describe(error);
        this.selectedStatus = this.selected ? 'ready' : 'missing';
      }
    }
  }

  /** Saves the open memory's edits; null when saved, else the problem to show by the form. */
  async save(changes: MemoryChanges): Promise<Problem | null> {
    const id = this.selectedId;
    if (!id) return { title: 'Nothing open', message: 'Open a memory first.' };
    const result = await memory.edit(id, changes);
    if ('problem' in result) return result.problem;
    const updated = result.memory;
    if (this.selectedId === id) {
      this.selected = updated;
      this.selectedStatus = 'ready';
    }
    this.items = this.items.map((m) => (m.id === id ? updated : m));
    return null;
  }

  /** Forgets the open memory; Undo (in the toast) brings it back from the journal, same id. */
  async forget(onRestored: (id: string) => void): Promise<boolean> {
    const id = this.selectedId;
    if (!id) return false;
    const done = await memory.forget(id, onRestored);
    if (done) {
      this.items = this.items.filter((m) => m.id !== id);
      if (this.selectedId === id) {
        this.selected = null;
        this.selectedStatus = 'none';
        this.selectedId = null;
      }
    }
    return done;
  }
}

export const browse = new BrowseState();
