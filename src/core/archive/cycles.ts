/**
 * Supersede cycles an import would create (`A superseded by B`, `B superseded by A`: both
 * hidden from recall for good). `supersede()` refuses a cycle; an archive row sets
 * `superseded_by` directly, so the planner checks the state the import would leave: the last
 * write of every id it writes, and the store's memories for the ids those chains reach.
 *
 * Pure: the store is asked through `lookup` (batched), nothing is written.
 */

/** One memory the import writes: its final id and the id it is superseded by (`''`: none). */
export interface WrittenLink {
  lineNo: number;
  id: string;
  supersededBy: string;
}

/** The `supersededBy` of stored memories (`null`: no such memory). */
export type SupersededLookup = (ids: readonly string[]) => Promise<readonly (string | null)[]>;

export interface CycleRejection {
  lineNo: number;
  id: string;
  /** The loop as ids, starting and ending at this row's id. */
  cycle: string[];
}

/** Ids fetched from the store per lookup; and how far a chain through stored memories is followed. */
const LOOKUP_BATCH = 256;
const MAX_ROUNDS = 10_000;

/**
 * The rows (by line) whose final id lies on a supersede cycle. Only the last write of an id
 * counts (an overwrite later in the file replaces an earlier row); a cycle made of stored
 * memories only is not the import's and is ignored. Rejecting rows changes which write of an id
 * is the last, so the check runs again until nothing more is rejected.
 */
export async function supersedeCycles(written: readonly WrittenLink[], lookup: SupersededLookup | null): Promise<CycleRejection[]> {
  const stored = new Map<string, string | null>();
  const rejectedLines = new Set<number>();
  const rejections: CycleRejection[] = [];
  for (;;) {
    // The state after the import: the last accepted write of each id.
    const finalWrite = new Map<string, WrittenLink>();
    for (const w of written) if (!rejectedLines.has(w.lineNo)) finalWrite.set(w.id, w);
    const next = (id: string): string => {
      const w = finalWrite.get(id);
      if (w) return w.supersededBy;
      return stored.get(id) ?? '';
    };
    if (lookup) await fetchChains(finalWrite, stored, lookup);
    const found = findCycles(finalWrite, next);
    if (found.length === 0) return rejections;
    for (const { id, cycle } of found) {
      const w = finalWrite.get(id)!;
      rejectedLines.add(w.lineNo);
      rejections.push({ lineNo: w.lineNo, id, cycle });
    }
  }
}

/** Loads the stored memories every written chain reaches, a level at a time. */
async function fetchChains(finalWrite: Map<string, WrittenLink>, stored: Map<string, string | null>, lookup: SupersededLookup): Promise<void> {
  let frontier = new Set<string>();
  for (const w of finalWrite.values()) {
    if (w.supersededBy && !finalWrite.has(w.supersededBy) && !stored.has(w.supersededBy)) frontier.add(w.supersededBy);
  }
  for (let round = 0; frontier.size > 0 && round < MAX_ROUNDS; round++) {
    const ids = [...frontier];
    frontier = new Set();
    for (let at = 0; at < ids.length; at += LOOKUP_BATCH) {
      const chunk = ids.slice(at, at + LOOKUP_BATCH);
      const answers = await lookup(chunk);
      chunk.forEach((id, i) => stored.set(id, answers[i] ?? null));
    }
    for (const id of ids) {
      const to = stored.get(id);
      if (to && !finalWrite.has(to) && !stored.has(to)) frontier.add(to);
    }
  }
}

/**
 * Every written id on a cycle of the functional graph `id → next(id)` (out-degree ≤ 1), each
 * with its loop. Linear: every node is walked once.
 */
function findCycles(finalWrite: Map<string, WrittenLink>, next: (id: string) => string): { id: string; cycle: string[] }[] {
  const state = new Map<string, 1 | 2>(); // 1: on the current walk, 2: done
  const out: { id: string; cycle: string[] }[] = [];
  for (const start of finalWrite.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [];
    let at = start;
    while (at !== '' && !state.has(at)) {
      state.set(at, 1);
      path.push(at);
      at = next(at);
    }
    if (at !== '' && state.get(at) === 1) {
      const loop = path.slice(path.indexOf(at));
      for (const id of loop) {
        if (finalWrite.has(id)) {
          const from = loop.indexOf(id);
          out.push({ id, cycle: [...loop.slice(from), ...loop.slice(0, from), id] });
        }
      }
    }
    for (const id of path) state.set(id, 2);
  }
  return out;
}
