/**
 * Importing a chat history (#53 item 6): a ChatGPT export of N messages (default 5,000, in
 * conversations of 20: test/helpers/chat-exports.ts), imported into a store in a folder (SQLite)
 * in a child process of its own per embedder, so RSS is the import's. Each run: the preview (a dry
 * run: read, check, count), the import (embedding every message), a second import of the same file
 * (every message skipped), and the process's peak RSS sampled every 100 ms. `seeded` is an
 * embedder that costs nothing (the figure is the import's own work); `bge-small` is the default
 * model on the CPU, where embedding is most of the time.
 *
 *   npm run bench -- --chats [--messages 5000] [--embedders seeded,bge-small]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/core/ports.ts';
import { chatgptExport, syntheticConversations } from '../test/helpers/chat-exports.ts';

const args = process.argv.slice(2);
const arg = (flag: string): string | undefined => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
const MESSAGES = Number(arg('--messages') ?? 5_000);

function seeded(dim = 384): Embedder {
  const vectorOf = (text: string): Float32Array => {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    const v = new Float32Array(dim);
    for (let i = 0; i < dim; i++) v[i] = Math.sin(h + i * 7919);
    return v;
  };
  return { id: 'bench-seeded', dim, embed: async (texts) => texts.map(vectorOf) };
}

async function child(embedderName: string): Promise<void> {
  const { createMemory } = await import('../src/local.ts');
  const data = chatgptExport(syntheticConversations(MESSAGES));
  const dir = mkdtempSync(join(tmpdir(), 'houkai-bench-chats-'));
  let peak = 0;
  const sampler = setInterval(() => void (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  try {
    const memory = await createMemory({ name: 'chats', dir, embedder: embedderName === 'seeded' ? seeded() : (embedderName as 'bge-small') });
    const before = process.memoryUsage().rss;
    let t = performance.now();
    const preview = await memory.importChats(data, { dryRun: true });
    const previewMs = performance.now() - t;
    t = performance.now();
    const result = await memory.importChats(data);
    const importMs = performance.now() - t;
    t = performance.now();
    const again = await memory.importChats(data);
    const againMs = performance.now() - t;
    await memory.close();
    clearInterval(sampler);
    console.log(JSON.stringify({
      embedder: embedderName,
      messages: MESSAGES,
      exportBytes: data.length,
      previewMs: Math.round(previewMs),
      previewNew: preview.imported,
      importMs: Math.round(importMs),
      imported: result.imported,
      messagesPerSecond: Math.round(result.imported / (importMs / 1000)),
      reimportMs: Math.round(againMs),
      reimportSkipped: again.skipped,
      rssBeforeMB: Math.round(before / 2 ** 20),
      peakRssMB: Math.round(peak / 2 ** 20),
    }));
  } finally {
    clearInterval(sampler);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (args.includes('--child')) {
  await child(arg('--embedder')!);
} else {
  const embedders = (arg('--embedders') ?? 'seeded,bge-small').split(',');
  const script = fileURLToPath(import.meta.url);
  console.log(`# chat import: a ChatGPT export of ${MESSAGES} messages into a store in a folder, ${new Date().toISOString()}`);
  for (const name of embedders) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, '--child', '--embedder', name, '--messages', String(MESSAGES)], { encoding: 'utf8', timeout: 1_800_000 });
    process.stdout.write(run.stdout || `${JSON.stringify({ embedder: name, failed: run.status, stderr: run.stderr.slice(-500) })}\n`);
  }
}
