/**
 * Issue #16 item 13: the lifecycle operations as agent tools (AI-Houkai's MCP names and shapes),
 * the writing ones marked non-read-only in MCP annotations and refused through connections below
 * `trusted`, read-only or namespaced (the store's scope rules, item 1).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LIFECYCLE_TOOL_NAMES } from '../src/agents/lifecycle-tools.ts';
import { memoryTools, type MemoryToolset } from '../src/agents/tools.ts';
import { scopeMemory } from '../src/core/scope/index.ts';
import type { LocalMemory } from '../src/local.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

const open: LocalMemory[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});
async function store(options: Parameters<typeof openTestStore>[0] = {}): Promise<LocalMemory> {
  const s = await openTestStore(options);
  open.push(s);
  return s;
}
async function call(toolset: MemoryToolset, name: string, args: Record<string, unknown> = {}): Promise<any> {
  return JSON.parse(await toolset.dispatch(name, JSON.stringify(args)));
}

describe('lifecycle tools', () => {
  it('are offered with MCP annotations: reads read-only, undo / purge_expired / trash_purge destructive', async () => {
    const toolset = memoryTools(await store());
    const mcp = new Map(toolset.mcp().map((t) => [t.name, t.annotations]));
    for (const name of LIFECYCLE_TOOL_NAMES) expect(mcp.has(name), name).toBe(true);
    for (const name of ['history', 'journal_tail', 'state_at', 'trash_list']) expect(mcp.get(name)).toMatchObject({ readOnlyHint: true });
    for (const name of ['undo', 'purge_expired', 'trash_purge']) expect(mcp.get(name)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(mcp.get('trash_restore')).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const reader = memoryTools(await store(), { readOnly: true });
    expect(reader.names).toEqual(expect.arrayContaining(['history', 'journal_tail', 'state_at', 'trash_list']));
    for (const name of ['undo', 'purge_expired', 'trash_restore', 'trash_purge']) {
      expect(reader.names).not.toContain(name);
      expect((await call(reader, name, {})).error.code).toBe('UNKNOWN_TOOL');
    }
  });

  it('history, journal_tail, state_at and undo over a store', async () => {
    const clock = manualClock();
    const s = await store({ clock });
    const tools = memoryTools(s, { now: () => clock.now() });
    const { id } = await call(tools, 'remember', { text: 'the deploy runs at noon' });
    const t0 = clock.now();
    clock.advance(60);
    await call(tools, 'edit', { memory_id: id, text: 'the deploy runs at midnight' });
    const history = await call(tools, 'history', { memory_id: id });
    expect(history.map((e: { op: string }) => e.op)).toEqual(['remember', 'edit']);
    expect(history[1]).toMatchObject({ id, before: { text: 'the deploy runs at noon' }, after: { text: 'the deploy runs at midnight' } });
    expect(history[1].summary).toMatch(/^edit [0-9a-f]{8} «the deploy runs at midnight»$/);
    expect((await call(tools, 'journal_tail', { n: 1 })).map((e: { op: string }) => e.op)).toEqual(['edit']);
    expect((await call(tools, 'journal_tail', { op: 'remember' })).map((e: { id: string }) => e.id)).toEqual([id]);
    expect(await call(tools, 'journal_tail', { since_seconds: 30 })).toHaveLength(1);
    const then = await call(tools, 'state_at', { ts: t0 });
    expect(then).toMatchObject({ count: 1, memories: [{ id, text: 'the deploy runs at noon' }] });
    expect((await call(tools, 'state_at', { ts: '30s' })).memories[0].text).toBe('the deploy runs at noon');
    const undone = await call(tools, 'undo', { memory_id: id });
    expect(undone).toMatchObject({ ok: true, op: 'edit', id, error: null });
    expect((await s.get(id))!.text).toBe('the deploy runs at noon');
    const byTs = await call(tools, 'undo', { ts: history[0].ts });
    expect(byTs).toMatchObject({ ok: true, op: 'remember', id });
    expect(await s.get(id)).toBeNull();
    expect((await call(tools, 'undo', { ts: 1, seq: 2 })).error.code).toBe('INVALID_ARGUMENT');
  });

  it('purge_expired and the trash', async () => {
    const clock = manualClock();
    const s = await store({ clock });
    const tools = memoryTools(s, { now: () => clock.now() });
    const { id: soon } = await call(tools, 'remember', { text: 'the window closes tonight', ttl_seconds: 10 });
    const { id: faded } = await call(tools, 'remember', { text: 'a note nobody reads', importance: 0.05 });
    clock.advance(400 * 86_400);
    expect(await call(tools, 'purge_expired', { dry_run: true })).toEqual({ purged: 0, dry_run: true, ids: [soon] });
    expect(await call(tools, 'purge_expired')).toEqual({ purged: 1, dry_run: false, ids: [soon] });
    await s.prune({ dryRun: false });
    const trash = await call(tools, 'trash_list');
    expect(trash).toEqual([expect.objectContaining({ memory_id: faded, actor: 'decay', memory: expect.objectContaining({ text: 'a note nobody reads' }) })]);
    expect(await call(tools, 'trash_restore', { memory_id: faded })).toMatchObject({ restored: true, id: faded, memory: { id: faded } });
    expect(await call(tools, 'trash_list')).toEqual([]);
    await s.prune({ dryRun: false, minScore: 0.99 });
    expect((await call(tools, 'trash_purge', { memory_id: faded })).purged).toBe(1);
    expect((await call(tools, 'trash_purge', { memory_id: faded, older_than_days: 1 })).error.code).toBe('INVALID_ARGUMENT');
  });

  it('the writing ones are refused through an untrusted or namespaced connection', async () => {
    const s = await store();
    await s.remember('the owner wrote this');
    for (const scope of [{ trust: 'untrusted' as const }, { namespace: 'web' }]) {
      const tools = memoryTools(scopeMemory(s, scope));
      for (const [name, args] of [
        ['undo', {}],
        ['purge_expired', {}],
        ['trash_restore', { memory_id: 'x' }],
        ['trash_purge', {}],
      ] as const) {
        expect((await call(tools, name, args)).error.code, `${name} ${JSON.stringify(scope)}`).toBe('PERMISSION_DENIED');
      }
    }
    expect(await s.count()).toBe(1);
    expect((await s.journalTail(10)).length).toBe(1);
  });
});
