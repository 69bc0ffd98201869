/**
 * Two embedders, measured (issue #51 item 6): does fusing bge-small with a second model (MiniLM,
 * or e5-small-v2 where its files are provisioned) gain ≥ 1.5 points where it matters? The fusion
 * is the plainest one a store could ship: each text's two unit vectors, scaled by √w and √(1 − w)
 * and concatenated, so the store's cosine is `w·cos₁ + (1 − w)·cos₂` and everything downstream
 * (index, lexical union, signals, selection) is the product's own path. w = 0.5 is fixed, not
 * fitted: nothing is tuned here, so every figure is as fair on either dev conversation.
 *
 * Measured: LoCoMo dev (both conversations, and each on its own), the reworded questions'
 * report half at 10 / 100 / 1,000 memories, and the agent set's test half. A fused store has no
 * shipped calibration (the generic model judges its badges), so its badges are not compared.
 *
 * Run: `npx tsx bench/two-embedders.ts [--second minilm]`.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchEmbedders, cachedEmbed, type BenchEmbedder, type BenchEmbedderKey } from './embedders.ts';
import { locomoEval, locomoTable, loadLocomo } from './locomo.ts';
import { rewordedEval } from './reworded.ts';
import { agentMemoryEval } from './relevance-eval.ts';

/** `a` and `b` fused as the module comment says; each part's vectors come from its own cache. */
export function fusedEmbedder(a: BenchEmbedder, b: BenchEmbedder, w = 0.5): BenchEmbedder {
  const sa = Math.sqrt(w);
  const sb = Math.sqrt(1 - w);
  let batch = 0;
  return {
    // The cache keys on `key`; "bge-small" in it keeps queries apart from passages (bge's instruction).
    key: `${a.key}+${b.key}@${w}` as BenchEmbedderKey,
    id: `fused:${a.id}+${b.id}`,
    available: () => a.available() && b.available(),
    fingerprint: () => `${a.fingerprint()}|${b.fingerprint()}|${w}`,
    async embed(texts, input) {
      const label = `fused-part-${batch++}`;
      const [va, vb] = await Promise.all([cachedEmbed(a, label, texts, input), cachedEmbed(b, label, texts, input)]);
      return va.map((x, i) => {
        const y = vb[i]!;
        const out = new Float32Array(x.length + y.length);
        for (let j = 0; j < x.length; j++) out[j] = x[j]! * sa;
        for (let j = 0; j < y.length; j++) out[x.length + j] = y[j]! * sb;
        return out;
      });
    },
    async dispose() {
      await Promise.all([a.dispose(), b.dispose()]);
    },
  };
}

async function main(): Promise<void> {
  const arg = (flag: string): string | undefined => (process.argv.includes(flag) ? process.argv[process.argv.indexOf(flag) + 1] : undefined);
  const all = new Map(benchEmbedders().map((e) => [e.key as string, e]));
  const first = all.get('bge-small')!;
  const second = all.get(arg('--second') ?? 'minilm');
  if (!second || !first.available() || !second.available()) throw new Error('two-embedders: bge-small and the second model must be provisioned (npm run models)');
  const fused = fusedEmbedder(first, second);
  const data = loadLocomo();
  const out: Record<string, unknown> = {};
  for (const e of [first, second, fused]) {
    const both = await locomoEval(e, { default: {} }, data);
    const per = Object.fromEntries(await Promise.all(data.map(async (c) => [c.id, (await locomoEval(e, { default: {} }, [c])).default!.all.recall10] as const)));
    const reworded = await rewordedEval(e);
    const agent = await agentMemoryEval(e);
    console.log(locomoTable(e.key, both));
    console.log(`  per conversation R@10: ${Object.entries(per).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(', ')}`);
    console.log(`  reworded (report half) top-1 at 10/100/1000: ${(['10', '100', '1000'] as const).map((s) => reworded[s].report.top1.toFixed(3)).join(' / ')}`);
    console.log(`  agent set (test half): top-1 ${agent.after.hybrid.test.top1.toFixed(3)}, MRR@10 ${agent.after.hybrid.test.mrr10.toFixed(3)}`);
    out[e.key] = { locomo: both.default, perConversation: per, reworded: Object.fromEntries((['10', '100', '1000'] as const).map((s) => [s, reworded[s].report])), agent: agent.after.hybrid.test };
  }
  console.log(JSON.stringify(out));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) void main();
