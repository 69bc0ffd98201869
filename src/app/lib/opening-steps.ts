/**
 * What opening a store involves, step by step, with how far each has got and why it is needed:
 * the opening screen's list, from the progress kinds the worker has reported so far. Pure, so
 * that what a step says for each event is tested without a browser (test/app-opening-steps.test.ts).
 */
import type { ProgressEvent } from '../../index.ts';
import { modelPercent } from './models.ts';

export interface OpeningStep {
  key: string;
  label: string;
  why: string;
  state: 'done' | 'active' | 'waiting';
  done?: number;
  total?: number;
  unit?: string;
  /** What an active step without a count is doing (a step whose length is not known). */
  note?: string;
}

export interface OpeningState {
  /** The progress kinds seen since the store began to open, in order (`index-open-done` once the index is open). */
  seen: readonly string[];
  /** The latest progress event. */
  progress: ProgressEvent | null;
  /** No model in this browser's cache yet. */
  firstVisit: boolean;
}

/** Progress kinds the worker reports while a store opens, beside the model's. */
const INDEX_KINDS: Record<string, { label: string; why: string; unit: string }> = {
  'index-rebuild': {
    label: 'Rebuilding the search index',
    why: 'The saved index was missing or did not match the stored memories, so it is rebuilt from their stored vectors. Once done, it is saved again.',
    unit: 'memories',
  },
  'index-open': {
    label: 'Opening the search index',
    why: 'The saved index is read back from this browser’s storage, so searches are fast; a large store takes a few seconds.',
    unit: '',
  },
  'index-replay': {
    label: 'Catching the search index up',
    why: 'Memories written after the index was last saved (an import, another tab) are added to it. They can be searched meanwhile.',
    unit: 'memories',
  },
};

const UPGRADE_LABEL = 'Upgrading the store to this version’s storage format';
const UPGRADE_ROWS_WHY =
  'This version stores memories more compactly (smaller vectors and index entries, faster reads). Each memory is rewritten once, in one step, and a large store takes minutes: if the page closes now, nothing is lost and the upgrade starts again next time.';
const UPGRADE_INDEX_WHY =
  'This version indexes memories more compactly. The browser builds the new index over every memory in one step, without rewriting them, and cannot say how far it has got: a large store takes minutes (about three at a million memories). If the page closes now, nothing is lost and the upgrade starts again next time.';

/** The opening screen's steps for what has been reported so far. */
export function openingSteps({ seen, progress: p, firstVisit }: OpeningState): OpeningStep[] {
  const out: OpeningStep[] = [];
  const modelSeen = seen.includes('model');
  // The schema upgrade runs as the database opens, before the model loads: its own step.
  const later = seen.filter((k) => k !== 'model' && k !== 'upgrade' && k !== 'index-open-done' && k !== 'index-load');
  const indexOpened = seen.includes('index-open-done');
  out.push({
    key: 'worker',
    label: 'Starting the memory worker and opening the store’s database',
    why: 'Everything runs in a background worker of this page; the memories stay in this browser’s storage.',
    state: seen.length ? 'done' : 'active',
  });
  // A count of rows rewritten, or (total null) an index the browser builds, whose length is unknown.
  const upgrading = p?.kind === 'upgrade' && (p.total === null || p.done < p.total) ? p : null;
  if (seen.includes('upgrade')) {
    const counted = upgrading !== null && upgrading.total !== null;
    out.push({
      key: 'upgrade',
      label: UPGRADE_LABEL,
      why: upgrading && !counted ? UPGRADE_INDEX_WHY : UPGRADE_ROWS_WHY,
      state: upgrading ? 'active' : 'done',
      ...(upgrading && counted ? { done: upgrading.done, total: upgrading.total!, unit: 'rows' } : {}),
      ...(upgrading && !counted ? { note: 'building the new index over every memory' } : {}),
    });
  }
  // The model is done when the next step starts: after "ready" it still runs its first embedding.
  const modelActive = modelSeen && later.length === 0;
  const percent = modelPercent(p);
  out.push({
    key: 'model',
    label: 'Loading the embedding model',
    why: firstVisit
      ? 'First visit: the model that turns text into vectors is loaded from this app’s own files and kept in the browser’s cache; later visits start faster, offline too.'
      : 'The model that turns text into vectors runs on this device; it comes from the browser’s cache.',
    state: modelActive ? 'active' : modelSeen || later.length ? 'done' : seen.length && !upgrading ? 'active' : 'waiting',
    ...(modelActive && percent !== null ? { done: percent, total: 100, unit: '%' } : {}),
  });
  for (const kind of later) {
    const known = INDEX_KINDS[kind];
    if (kind === 'index-open') {
      // Active from its start until it says done, unless a rebuild or replay inside it is the active step.
      const inner = p?.kind === 'index-rebuild' && p.total > 0;
      // An index saved in parts (the int8 index's blocks) says how much of it is read.
      const loading = !indexOpened && p?.kind === 'index-load' && p.total > 0 ? p : null;
      out.push({
        key: kind,
        label: loading ? 'Loading the search index' : known!.label,
        why: known!.why,
        state: indexOpened ? 'done' : inner ? 'waiting' : 'active',
        ...(loading ? { done: loading.done, total: loading.total, unit: '%' } : {}),
      });
      continue;
    }
    const current = p && p.kind === kind && 'done' in p ? p : null;
    // Nothing to rebuild or replay: no step (and no "0 of 0" flash).
    if (current && current.total === 0) continue;
    out.push({
      key: kind,
      label: known?.label ?? 'Preparing the store',
      why: known?.why ?? '',
      state: current ? 'active' : 'done',
      ...(current ? { done: current.done, ...(current.total === null ? {} : { total: current.total }), unit: known?.unit ?? '' } : {}),
    });
  }
  // The index is open and the app is reading the store's figures: say so, rather than show every step done while it waits.
  if (indexOpened) {
    out.push({ key: 'figures', label: 'Reading what the store holds', why: 'Counts, the model in use and the review queue, for the status bar and the tabs.', state: 'active' });
  }
  return out;
}
