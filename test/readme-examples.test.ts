/**
 * The README's first example shows the score and badge it gets (issue #27): this runs its calls in
 * process, on the model the example uses (bge-small, the default since issue #51), and compares with its comment.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemory } from '../src/local.ts';
import { REAL_MODELS_DIR, requireRealModels } from './helpers/real-models.ts';
import { uniqueName } from './helpers/store.ts';

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');

beforeAll(async () => {
  vi.spyOn(console, 'info').mockImplementation(() => undefined);
  await requireRealModels('bge-small');
});

describe("the README's first example", () => {
  it('prints the score and confidence its comment says', async () => {
    const block = /```ts\n([\s\S]*?)```/.exec(README)![1]!;
    const remembered = /memory\.remember\('([^']+)', (\{[^}]*\})\)/.exec(block)!;
    const recalled = /memory\.recall\('([^']+)', \{ k: (\d+) \}\)/.exec(block)!;
    const comment = /hit\.confidence\); \/\/ '([^'…]+)…' ([\d.]+) '(strong|weak|none)'/.exec(block)!;
    expect(block).toContain("connectMemory({ name: 'agent' })");
    const memory = await createMemory({ name: uniqueName('readme'), transformers: { localModelPath: REAL_MODELS_DIR } });
    try {
      expect(memory.embedder.id).toBe('Xenova/bge-small-en-v1.5');
      await memory.remember(remembered[1]!, JSON.parse(remembered[2]!.replace(/(\w+):/g, '"$1":').replace(/'/g, '"')) as never);
      const [hit] = await memory.recall(recalled[1]!, { k: Number(recalled[2]) });
      expect(hit!.memory.text.startsWith(comment[1]!)).toBe(true);
      expect(hit!.score.toFixed(2)).toBe(comment[2]);
      expect(hit!.confidence).toBe(comment[3]);
    } finally {
      await memory.close();
    }
  });
});
