import { afterEach, describe, expect, it, vi } from 'vitest';
import { MEMORY_TOOL_NAMES, READ_ONLY_TOOL_NAMES, memoryTools } from '../src/agents/tools.ts';
import { findModelContext, registerMemoryTools, type ModelContextLike, type WebMcpToolDescriptor } from '../src/agents/webmcp.ts';
import type { LocalMemory } from '../src/local.ts';
import { openTestStore } from './helpers/store.ts';

const open: LocalMemory[] = [];
async function store(): Promise<LocalMemory> {
  const s = await openTestStore();
  open.push(s);
  return s;
}
afterEach(async () => {
  vi.unstubAllGlobals();
  for (const s of open.splice(0)) await s.close();
});

/** The current draft: `registerTool(tool, { signal })` returns a promise; aborting the signal unregisters. */
function draftContext() {
  const tools = new Map<string, WebMcpToolDescriptor>();
  const registerTool = vi.fn(async (tool: WebMcpToolDescriptor, options: { signal?: AbortSignal } = {}) => {
    options.signal?.throwIfAborted();
    if (tools.has(tool.name)) throw new DOMException(`A tool named ${tool.name} is already registered`, 'InvalidStateError');
    tools.set(tool.name, tool);
    options.signal?.addEventListener('abort', () => tools.delete(tool.name), { once: true });
  });
  return { tools, registerTool };
}

/** An earlier draft / polyfill: synchronous registerTool that ignores options, and unregisterTool(name). */
function legacyContext() {
  const tools = new Map<string, WebMcpToolDescriptor>();
  const context = {
    tools,
    registerTool: vi.fn((tool: WebMcpToolDescriptor) => {
      if (tools.has(tool.name)) throw new Error('duplicate');
      tools.set(tool.name, tool);
    }),
    unregisterTool: vi.fn((name: string) => {
      if (!tools.delete(name)) throw new DOMException('no such tool', 'InvalidStateError');
    }),
  };
  return context;
}

async function execute(tool: WebMcpToolDescriptor | undefined, input: unknown): Promise<{ text: string; isError: boolean }> {
  expect(tool).toBeDefined();
  const result = await tool!.execute(input, {});
  expect(result.content).toHaveLength(1);
  expect(result.content[0]!.type).toBe('text');
  return { text: result.content[0]!.text, isError: result.isError === true };
}

describe('registerMemoryTools', () => {
  it('registers every tool with document.modelContext and unregisters them all on abort', async () => {
    const s = await store();
    const context = draftContext();
    vi.stubGlobal('document', { modelContext: context });
    expect(findModelContext()).toBe(context);

    const controller = new AbortController();
    const registration = await registerMemoryTools(s, { signal: controller.signal, actor: 'webmcp' });
    expect(registration.names).toEqual([...MEMORY_TOOL_NAMES]);
    expect(registration.modelContext).toBe(context);
    expect([...context.tools.keys()]).toEqual([...MEMORY_TOOL_NAMES]);
    for (const [name, tool] of context.tools) {
      expect(tool.annotations.readOnlyHint, name).toBe((READ_ONLY_TOOL_NAMES as readonly string[]).includes(name));
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.description.length).toBeGreaterThan(0);
    }
    for (const [, options] of context.registerTool.mock.calls) expect(options?.signal).toBeInstanceOf(AbortSignal);

    // execute answers with the dispatcher's JSON as text content.
    const stored = await execute(context.tools.get('remember'), { text: 'The wiki lives at wiki.example.org' });
    expect(stored.isError).toBe(false);
    const id = JSON.parse(stored.text).id as string;
    expect((await s.get(id))!.source).toBe('webmcp');
    const dispatcher = memoryTools(s);
    expect((await execute(context.tools.get('get'), { memory_id: id })).text).toBe(await dispatcher.dispatch('get', JSON.stringify({ memory_id: id })));
    expect((await execute(context.tools.get('stats'), {})).text).toBe(await dispatcher.dispatch('stats', '{}'));
    const hits = JSON.parse((await execute(context.tools.get('recall'), { query: 'where is the wiki' })).text);
    expect(hits[0].id).toBe(id);

    const failed = await execute(context.tools.get('edit'), { memory_id: 'missing', text: 'x' });
    expect(failed.isError).toBe(true);
    expect(JSON.parse(failed.text).error.code).toBe('NOT_FOUND');
    const invalid = await execute(context.tools.get('recall'), { query: 'x', k: 'many' });
    expect(JSON.parse(invalid.text).error.code).toBe('INVALID_ARGUMENT');
    expect(JSON.parse((await execute(context.tools.get('get'), JSON.stringify({ memory_id: id }))).text).found).toBe(true);

    expect(registration.unregistered).toBe(false);
    controller.abort();
    expect(context.tools.size).toBe(0);
    expect(registration.unregistered).toBe(true);
    registration.unregister(); // idempotent
  });

  it('falls back to navigator.modelContext', async () => {
    const context = draftContext();
    vi.stubGlobal('document', {});
    vi.stubGlobal('navigator', { modelContext: context });
    expect(findModelContext()).toBe(context);
    const registration = await registerMemoryTools(await store(), { include: ['recall', 'remember'] });
    expect([...context.tools.keys()]).toEqual(['remember', 'recall']);
    registration.unregister();
    expect(context.tools.size).toBe(0);
  });

  it('uses a polyfill passed in, with unregisterTool(name), read-only', async () => {
    const s = await store();
    vi.stubGlobal('document', { modelContext: draftContext() }); // ignored: the polyfill wins
    const polyfill = legacyContext();
    const controller = new AbortController();
    const registration = await registerMemoryTools(s, { modelContext: polyfill, signal: controller.signal, readOnly: true });
    expect(registration.names).toEqual(MEMORY_TOOL_NAMES.filter((n) => (READ_ONLY_TOOL_NAMES as readonly string[]).includes(n)));
    expect([...polyfill.tools.values()].every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(polyfill.tools.has('remember')).toBe(false);
    const stats = JSON.parse((await execute(polyfill.tools.get('stats'), undefined)).text);
    expect(stats.count).toBe(0);

    controller.abort();
    expect(polyfill.tools.size).toBe(0);
    expect(polyfill.unregisterTool).toHaveBeenCalledTimes(registration.names.length);
  });

  it('calls the handle a registration returns', async () => {
    const active = new Set<string>();
    const context: ModelContextLike = {
      registerTool(tool) {
        active.add(tool.name);
        return { unregister: () => active.delete(tool.name) };
      },
    };
    const registration = await registerMemoryTools(await store(), { modelContext: context, include: ['get', 'stats'] });
    expect([...active]).toEqual(['stats', 'get']);
    registration.unregister();
    expect(active.size).toBe(0);
  });

  it('rolls back when the context refuses a tool', async () => {
    const context = draftContext();
    const foreign = { name: 'stats', description: 'someone else', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, annotations: { readOnlyHint: true } } as unknown as WebMcpToolDescriptor;
    await context.registerTool(foreign);
    await expect(registerMemoryTools(await store(), { modelContext: context })).rejects.toMatchObject({ name: 'InvalidStateError' });
    expect([...context.tools.keys()]).toEqual(['stats']);
    expect(context.tools.get('stats')).toBe(foreign);
  });

  it('needs a model context and a live signal', async () => {
    const s = await store();
    vi.stubGlobal('document', {});
    vi.stubGlobal('navigator', {});
    expect(findModelContext()).toBeUndefined();
    await expect(registerMemoryTools(s)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(registerMemoryTools(s, { modelContext: {} as ModelContextLike })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const context = draftContext();
    await expect(registerMemoryTools(s, { modelContext: context, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(context.registerTool).not.toHaveBeenCalled();
  });

  it('an abort during registration unregisters what was registered and reports ABORTED', async () => {
    const context = draftContext();
    const controller = new AbortController();
    let calls = 0;
    const slow: ModelContextLike = {
      registerTool: async (tool, options) => {
        calls += 1;
        if (calls === 3) controller.abort();
        await context.registerTool(tool, options);
      },
    };
    await expect(registerMemoryTools(await store(), { modelContext: slow, signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
    expect(context.tools.size).toBe(0);
    expect(calls).toBe(3);
  });
});
