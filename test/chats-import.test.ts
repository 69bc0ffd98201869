/**
 * Bring your chats (#53 item 6): `importChats` takes a ChatGPT export (conversations.json or the
 * export's zip), a Claude export and the documented JSONL; each message an episodic memory with
 * its speaker, time and conversation; a re-import skips what is there; a preview writes nothing;
 * a cancel or a malformed export leaves nothing; the import is one undoable call; the
 * `import_chats` agent tool does the same. Fixtures: test/helpers/chat-exports.ts, built from the
 * formats' public descriptions.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { createMemory } from '../src/local.ts';
import { memoryStorages } from '../src/adapters/storage-memory.ts';
import { memoryTools } from '../src/agents/tools.ts';
import { MemoryError } from '../src/core/errors.ts';
import { readZipEntry } from '../src/core/chats/zip.ts';
import { chatgptExport, claudeExport, jsonlExport, syntheticConversations, SAMPLE_CONVERSATIONS, SAMPLE_T0 } from './helpers/chat-exports.ts';
import { createHashEmbedder } from './helpers/fake-embedder.ts';

const DAY = 86_400;
const T0 = SAMPLE_T0;
const convs = SAMPLE_CONVERSATIONS;

const open = (name: string) => createMemory({ name, embedder: createHashEmbedder(), storage: memoryStorages() });

async function texts(memory: Awaited<ReturnType<typeof open>>): Promise<string[]> {
  return (await memory.listRecent({ limit: 100 })).map((m) => m.text).sort();
}

describe('importChats', () => {
  it('reads a ChatGPT export: the branch shown, speakers, times and conversations; system, hidden, abandoned and image-only parts left out', async () => {
    const memory = await open('chatgpt');
    try {
      const r = await memory.importChats(chatgptExport(convs));
      expect(r).toMatchObject({ format: 'chatgpt', conversations: 2, messages: 5, imported: 5, skipped: 0, emptyMessages: 2, from: T0, to: T0 + 3 * DAY + 30, speakers: ['User', 'ChatGPT'] });
      expect(await texts(memory)).toEqual([
        'ChatGPT: A borrow lends a value without giving up ownership.',
        'ChatGPT: Stay in Alfama and take tram 28 early in the morning.',
        'User: Explain borrowing in Rust in one line.',
        'User: I want to visit Lisbon in May with my sister Ama.',
        'User: We booked the Hotel Mirador for the 12th to the 15th.',
      ]);
      const [hit] = await memory.recall('which hotel did we book in Lisbon?', { k: 1, touch: false });
      expect(hit!.memory).toMatchObject({ type: 'episodic', createdAt: T0 + 120, source: 'ChatGPT: Lisbon trip [c-trip]' });
      expect(hit!.memory.tags).toEqual(['chat', 'chatgpt']);
    } finally {
      await memory.close();
    }
  });

  it("reads the export's zip as downloaded, and says what a zip without conversations.json holds", async () => {
    const memory = await open('zip');
    try {
      const zip = zipSync({ 'chat.html': strToU8('<html></html>'), 'conversations.json': strToU8(chatgptExport(convs)), 'user.json': strToU8('{}') });
      expect((await memory.importChats(new Blob([zip]))).imported).toBe(5);
      const stored = zipSync({ 'conversations.json': [strToU8(chatgptExport(convs)), { level: 0 }] });
      expect(readZipEntry(stored, (n) => n === 'conversations.json').entry?.kind).toBe('stored');
      expect((await memory.importChats(stored)).skipped).toBe(5);
      // One conversation saved on its own, pretty-printed, and the list wrapped in an object: read as ChatGPT.
      const one = JSON.stringify(JSON.parse(chatgptExport(convs.slice(0, 1)))[0], null, 2);
      expect(await memory.importChats(one)).toMatchObject({ format: 'chatgpt', conversations: 1, skipped: 3 });
      expect(await memory.importChats(JSON.stringify({ conversations: JSON.parse(chatgptExport(convs)) }, null, 1))).toMatchObject({ format: 'chatgpt', skipped: 5 });
      const other = zipSync({ 'notes.txt': strToU8('x') });
      await expect(memory.importChats(other)).rejects.toMatchObject({ code: 'INVALID_CHATS', message: expect.stringContaining('no conversations.json in this zip (it holds notes.txt)') });
      await expect(memory.importChats(zip.slice(0, zip.length - 30))).rejects.toMatchObject({ code: 'INVALID_CHATS' });
    } finally {
      await memory.close();
    }
  });

  it('reads a Claude export (words in text or in content) and JSONL, with the speakers named as asked', async () => {
    const memory = await open('claude');
    try {
      const r = await memory.importChats(claudeExport(convs), { speakers: { user: 'Dana' } });
      expect(r).toMatchObject({ format: 'claude', imported: 5, speakers: ['Dana', 'Claude'] });
      const j = await memory.importChats(new TextEncoder().encode(jsonlExport(convs)), { tags: ['history'] });
      expect(j).toMatchObject({ format: 'jsonl', conversations: 2, imported: 5, speakers: ['Dana', 'Assistant'] });
      const [hit] = await memory.recall('what did the assistant say about tram 28?', { k: 1, touch: false });
      expect(hit!.memory.text.startsWith('Assistant: ') || hit!.memory.text.startsWith('Claude: ')).toBe(true);
      const tagged = (await memory.listRecent({ limit: 20 })).filter((m) => m.tags.includes('history'));
      expect(tagged).toHaveLength(5);
      expect(tagged.every((m) => m.source === 'chat: Lisbon trip' || m.source === 'chat: Learning Rust')).toBe(true);
    } finally {
      await memory.close();
    }
  });

  it('a second import skips every message; a preview writes nothing; the import is one call that undo takes back', async () => {
    const memory = await open('again');
    try {
      const preview = await memory.importChats(chatgptExport(convs), { dryRun: true });
      expect(preview).toMatchObject({ imported: 5, messages: 5 });
      expect(await memory.count()).toBe(0);
      await memory.importChats(chatgptExport(convs));
      const again = await memory.importChats(chatgptExport(convs));
      expect(again).toMatchObject({ imported: 0, skipped: 5 });
      expect(await memory.count()).toBe(5);
      const [call] = await memory.journalCalls(1);
      expect(call).toMatchObject({ op: 'import', memories: 5 });
      await memory.undo();
      expect(await memory.count()).toBe(0);
    } finally {
      await memory.close();
    }
  });

  it('a malformed export is INVALID_CHATS naming the line or the node, and nothing is written', async () => {
    const memory = await open('bad');
    try {
      const lines = jsonlExport(convs).split('\n');
      lines[2] = '{"speaker": "Dana", "time": 1714000000, "text": "cut';
      const e1 = await memory.importChats(lines.join('\n')).catch((e: unknown) => e);
      expect(e1).toBeInstanceOf(MemoryError);
      expect(e1).toMatchObject({ code: 'INVALID_CHATS', details: { where: 'line 3', line: 3 } });
      const ms = jsonlExport(convs).replace(`"time":${T0},`, `"time":${T0 * 1000},`);
      await expect(memory.importChats(ms)).rejects.toMatchObject({ code: 'INVALID_CHATS', message: expect.stringContaining('seconds, not milliseconds') });
      const broken = JSON.parse(chatgptExport(convs)) as { mapping: Record<string, { message: { author?: unknown } | null }> }[];
      delete broken[1]!.mapping['c-rust-m1']!.message!.author;
      await expect(memory.importChats(JSON.stringify(broken))).rejects.toMatchObject({ code: 'INVALID_CHATS', details: { where: 'conversations[1].mapping["c-rust-m1"]' } });
      await expect(memory.importChats('not a chat export')).rejects.toMatchObject({ code: 'INVALID_CHATS' });
      // A JSON object over several lines that is no conversation: read as JSONL, refused at its first line.
      await expect(memory.importChats('{\n  "user": "me"\n}')).rejects.toMatchObject({ code: 'INVALID_CHATS', details: { where: 'line 1' } });
      await expect(memory.importChats(chatgptExport(convs), { format: 'slack' as never })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'format' } });
      await expect(memory.importChats(chatgptExport(convs), { speakers: { user: 'Me: ' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(await memory.count()).toBe(0);
    } finally {
      await memory.close();
    }
  });

  it('a cancel mid-import leaves nothing, with progress that only grows', async () => {
    const memory = await open('cancel');
    try {
      const controller = new AbortController();
      const written: number[] = [];
      const run = memory.importChats(jsonlExport(syntheticConversations(400)), {
        batchSize: 50,
        signal: controller.signal,
        onProgress: (e) => {
          if (e.kind !== 'import' || e.phase !== 'write') return;
          written.push(e.rowsWritten);
          if (e.rowsWritten >= 100) controller.abort();
        },
      });
      await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
      expect(written).toEqual([...written].sort((a, b) => a - b));
      expect(await memory.count()).toBe(0);
    } finally {
      await memory.close();
    }
  });

  it('imports an export of 5,000 messages whole, and a second time skips them all', async () => {
    const memory = await open('big');
    try {
      const data = chatgptExport(syntheticConversations(5_000));
      expect(await memory.importChats(data)).toMatchObject({ conversations: 250, messages: 5_000, imported: 5_000 });
      expect(await memory.count()).toBe(5_000);
      expect(await memory.importChats(data)).toMatchObject({ imported: 0, skipped: 5_000 });
    } finally {
      await memory.close();
    }
  }, 120_000);

  it('the import_chats agent tool imports and reports in snake_case; a read-only toolset does not offer it', async () => {
    const memory = await open('tool');
    try {
      const tools = memoryTools(memory);
      const out = await tools.invoke('import_chats', { data: claudeExport(convs), user_name: 'Dana' });
      expect(out).toMatchObject({ ok: true, result: { format: 'claude', imported: 5, empty_messages: 0, speakers: ['Dana', 'Claude'] } });
      const bad = await tools.invoke('import_chats', { data: '{"speaker": 1}' });
      expect(bad).toMatchObject({ ok: false, error: { code: 'INVALID_CHATS' } });
      expect(memoryTools(memory, { readOnly: true }).names).not.toContain('import_chats');
      expect(tools.names).toContain('import_chats');
    } finally {
      await memory.close();
    }
  });
});
