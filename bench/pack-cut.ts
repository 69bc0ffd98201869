/**
 * Score-adaptive packs on LoCoMo's development conversations (issue #51 item 5), cross-validated
 * (item 7): each question's pack candidates are what `recallPack` recalls (the default recall,
 * k = 50), packed into 200, 400 and 800 tokens either whole (AI-Houkai's packer: as many as fit)
 * or cut at the first cliff of their scores (core/domain/pack-cut.ts). R@budget = the share of a
 * question's evidence turns in the pack; tokens = what the pack used.
 *
 * The rule, fixed before looking: on the conversation fitted on, the (cliff, minItems) that uses
 * the fewest tokens while losing at most 0.01 of R@budget (mean over the three budgets) against
 * the whole list; reported on the other conversation. Run: `npx tsx bench/pack-cut.ts [--embedder KEY]`.
 */
import 'fake-indexeddb/auto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMemory } from '../src/local.ts';
import { cutAtCliff } from '../src/core/domain/pack-cut.ts';
import { packMemories, type RankedMemory } from '../src/core/domain/recall-pack.ts';
import { benchEmbedders, servedEmbedder } from './embedders.ts';
import { loadLocomo, locomoVectors, type LocomoQuestion } from './locomo.ts';

const BUDGETS = [200, 400, 800] as const;
const CLIFFS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5];
const MIN_ITEMS = [1, 2, 3, 5, 8];

interface Asked {
  q: LocomoQuestion;
  ranked: RankedMemory[];
  turnOf: Map<string, string>;
}

interface Figures {
  recall: number;
  tokens: number;
  items: number;
}

/** Near-ties (neighbours within `tie`·spread) reordered cheapest first: the budget holds more of them. */
export function cheapTiesFirst(ranked: RankedMemory[], tie: number): RankedMemory[] {
  if (ranked.length < 2 || tie <= 0) return ranked;
  const scores = ranked.map((r) => r.score);
  const spread = Math.max(...scores) - Math.min(...scores);
  const out: RankedMemory[] = [];
  let group: RankedMemory[] = [ranked[0]!];
  const flush = () => out.push(...group.sort((a, b) => a.memory.text.length - b.memory.text.length));
  for (let i = 1; i < ranked.length; i++) {
    if (ranked[i - 1]!.score - ranked[i]!.score <= tie * spread) group.push(ranked[i]!);
    else {
      flush();
      group = [ranked[i]!];
    }
  }
  flush();
  return out;
}

type Reorder = (r: RankedMemory[]) => RankedMemory[];
const asRanked: Reorder = (r) => r;

function measure(asked: readonly Asked[], budget: number, cut: ((scores: number[]) => number) | null, reorder: Reorder = asRanked): Figures {
  let recall = 0;
  let tokens = 0;
  let items = 0;
  for (const a of asked) {
    const offered = reorder(cut ? a.ranked.slice(0, cut(a.ranked.map((r) => r.score))) : a.ranked);
    const pack = packMemories(offered, { tokenBudget: budget, maxItems: 50, header: '' });
    const found = new Set(pack.items.map((i) => a.turnOf.get(i.memory.id)));
    recall += a.q.evidence.filter((e) => found.has(e)).length / a.q.evidence.length;
    tokens += pack.usedTokens;
    items += pack.items.length;
  }
  const n = Math.max(asked.length, 1);
  return { recall: recall / n, tokens: tokens / n, items: items / n };
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;

async function main(): Promise<void> {
  const only = process.argv.includes('--embedder') ? process.argv[process.argv.indexOf('--embedder') + 1] : 'bge-small';
  const embedder = benchEmbedders().find((e) => e.key === only && e.available());
  if (!embedder) throw new Error(`pack-cut: ${only} is not provisioned`);
  const data = loadLocomo();
  const vectors = await locomoVectors(embedder, data);
  const byConv = new Map<string, Asked[]>();
  for (const conv of data) {
    const now = Math.max(...conv.turns.map((t) => t.createdAt)) + 86_400;
    const store = await createMemory({ name: `pack-cut-${conv.id}-${process.pid}-${Date.now()}`, embedder: servedEmbedder(embedder, vectors, 'locomo'), index: 'exact', clock: { now: () => now } });
    try {
      const stored = await store.rememberMany(conv.turns.map((t) => ({ text: t.text, createdAt: t.createdAt })), { batchSize: 500 });
      const turnOf = new Map(stored.map((r, i) => [r.memory.id, conv.turns[i]!.id]));
      const asked: Asked[] = [];
      for (const q of conv.questions) {
        const hits = await store.recall(q.question, { k: 50, touch: false });
        asked.push({ q, ranked: hits.map((h) => ({ memory: h.memory, score: h.score })), turnOf });
      }
      byConv.set(conv.id, asked);
    } finally {
      await store.close();
    }
  }
  const convs = [...byConv.keys()];
  const grid = CLIFFS.flatMap((cliff) => MIN_ITEMS.map((minItems) => ({ cliff, minItems })));
  const summary = (asked: Asked[], cut: ((s: number[]) => number) | null, reorder: Reorder = asRanked) => BUDGETS.map((b) => measure(asked, b, cut, reorder));
  const line = (label: string, figs: Figures[]) =>
    `  ${label.padEnd(34)} ${figs.map((f, i) => `@${BUDGETS[i]} R ${f.recall.toFixed(3)} tok ${f.tokens.toFixed(0).padStart(3)} n ${f.items.toFixed(1).padStart(4)}`).join(' | ')}`;
  const chosen: Record<string, { cliff: number; minItems: number }> = {};
  for (const fit of convs) {
    const other = convs.find((c) => c !== fit)!;
    const whole = summary(byConv.get(fit)!, null);
    let best: { cliff: number; minItems: number; tokens: number } | null = null;
    for (const g of grid) {
      const figs = summary(byConv.get(fit)!, (s) => cutAtCliff(s, g));
      const loss = mean(whole.map((w, i) => w.recall - figs[i]!.recall));
      const tokens = mean(figs.map((f) => f.tokens));
      if (loss <= 0.01 && (!best || tokens < best.tokens)) best = { ...g, tokens };
    }
    chosen[fit] = best ?? { cliff: 1, minItems: 50 };
    const g = chosen[fit]!;
    console.log(`fit on ${fit}: cliff ${g.cliff}, minItems ${g.minItems}; reported on ${other}:`);
    console.log(line('whole list (as many as fit)', summary(byConv.get(other)!, null)));
    console.log(line(`cut at the cliff (${g.cliff}, ${g.minItems})`, summary(byConv.get(other)!, (s) => cutAtCliff(s, g))));
  }
  const all = [...byConv.values()].flat();
  console.log('both conversations, each fold’s choice:');
  console.log(line('whole list', summary(all, null)));
  for (const [fit, g] of Object.entries(chosen)) console.log(line(`cut (${g.cliff}, ${g.minItems}) fitted on ${fit}`, summary(all, (s) => cutAtCliff(s, g))));
  // Near-ties cheapest first (no cliff): fitted by the best mean R@budget on one conversation.
  for (const fit of convs) {
    const other = convs.find((c) => c !== fit)!;
    let best = { tie: 0, r: -1 };
    for (const tie of [0, 0.005, 0.01, 0.02, 0.03, 0.05, 0.08]) {
      const r = mean(summary(byConv.get(fit)!, null, (x) => cheapTiesFirst(x, tie)).map((f) => f.recall));
      if (r > best.r + 1e-9) best = { tie, r };
    }
    console.log(`near-ties cheapest first, tie ${best.tie} fitted on ${fit}; reported on ${other}:`);
    console.log(line('whole list', summary(byConv.get(other)!, null)));
    console.log(line(`cheap ties first (${best.tie})`, summary(byConv.get(other)!, null, (x) => cheapTiesFirst(x, best.tie))));
  }
  console.log(JSON.stringify({ embedder: embedder.key, chosen }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
