import { afterEach, describe, expect, it } from 'vitest';
import { dispatchTool, toCallToolResult, validateArguments, type JsonSchema, type ObjectSchema } from '../src/agents/dispatch.ts';
import { MEMORY_TOOL_NAMES, READ_ONLY_TOOL_NAMES, memoryTools, parseTimeArgument, type MemoryToolset } from '../src/agents/tools.ts';
import type { MemoryApi } from '../src/core/api.ts';
import type { LocalMemory } from '../src/local.ts';
import { manualClock, openTestStore } from './helpers/store.ts';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** The keywords the shared subset allows (OpenAI function calling, Anthropic tools, MCP). */
const KEYWORDS = new Set(['type', 'description', 'properties', 'required', 'additionalProperties', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'items', 'minItems', 'maxItems']);
const TYPES = new Set(['object', 'string', 'number', 'integer', 'boolean', 'array', 'null']);

const open: LocalMemory[] = [];
async function store(options: Parameters<typeof openTestStore>[0] = {}): Promise<LocalMemory> {
  const s = await openTestStore(options);
  open.push(s);
  return s;
}
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

/** Dispatches and parses the JSON answer. */
async function call(toolset: MemoryToolset, name: string, args: unknown = {}): Promise<any> {
  const text = await toolset.dispatch(name, typeof args === 'string' ? args : JSON.stringify(args));
  expect(typeof text).toBe('string');
  return JSON.parse(text);
}

function checkSchemaNode(schema: JsonSchema, where: string): void {
  for (const key of Object.keys(schema)) expect(KEYWORDS.has(key), `${where}: keyword ${key}`).toBe(true);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  for (const t of types) expect(TYPES.has(t), `${where}: type ${t}`).toBe(true);
  if (schema.enum) {
    expect(schema.enum.length).toBeGreaterThan(0);
    for (const value of schema.enum) {
      expect(types.some((t) => (t === 'integer' ? Number.isInteger(value) : typeof value === t)), `${where}: enum value ${value}`).toBe(true);
    }
  }
  if (types.includes('array')) {
    expect(schema.items, `${where}: array items`).toBeDefined();
    checkSchemaNode(schema.items!, `${where}[]`);
  }
  if (schema.properties) for (const [key, sub] of Object.entries(schema.properties)) checkSchemaNode(sub, `${where}.${key}`);
}

function checkObjectSchema(schema: ObjectSchema, where: string): void {
  expect(schema.type, where).toBe('object');
  expect(schema.properties && typeof schema.properties === 'object' && !Array.isArray(schema.properties), where).toBe(true);
  expect(schema.additionalProperties, where).toBe(false);
  for (const key of schema.required ?? []) expect(Object.keys(schema.properties), `${where}: required ${key}`).toContain(key);
  for (const [key, sub] of Object.entries(schema.properties)) {
    expect(typeof sub.description === 'string' && sub.description.trim().length > 0, `${where}.${key} description`).toBe(true);
  }
  checkSchemaNode(schema, where);
  expect(JSON.parse(JSON.stringify(schema)), `${where} is plain JSON`).toEqual(schema);
}

function checkNamesAndDescriptions(entries: { name: string; description: string }[]): void {
  const names = entries.map((e) => e.name);
  expect(new Set(names).size).toBe(names.length);
  for (const e of entries) {
    expect(e.name).toMatch(NAME);
    expect(e.description.trim().length).toBeGreaterThan(0);
  }
}

describe('tool definitions', () => {
  it('offers every tool, with a valid schema, in all three formats', async () => {
    const toolset = memoryTools(await store());
    expect(toolset.names).toEqual([...MEMORY_TOOL_NAMES]);
    for (const name of ['remember', 'recall', 'recall_pack', 'forget', 'list_recent', 'stats', 'get', 'edit', 'link', 'unlink', 'neighbors', 'find_conflicts', 'supersede', 'restore', 'auto_context', 'find_path', 'subgraph', 'list_pending_conflicts', 'resolve_conflict']) {
      expect(toolset.names).toContain(name);
    }

    const openai = toolset.openai();
    checkNamesAndDescriptions(openai.map((t) => t.function));
    for (const t of openai) {
      expect(t.type).toBe('function');
      expect(Object.keys(t).sort()).toEqual(['function', 'type']);
      checkObjectSchema(t.function.parameters, `openai ${t.function.name}`);
    }

    const anthropic = toolset.anthropic();
    checkNamesAndDescriptions(anthropic);
    for (const t of anthropic) {
      expect(Object.keys(t).sort()).toEqual(['description', 'input_schema', 'name']);
      checkObjectSchema(t.input_schema, `anthropic ${t.name}`);
    }

    const mcp = toolset.mcp();
    checkNamesAndDescriptions(mcp);
    for (const t of mcp) {
      checkObjectSchema(t.inputSchema, `mcp ${t.name}`);
      expect(t.annotations.readOnlyHint).toBe((READ_ONLY_TOOL_NAMES as readonly string[]).includes(t.name));
      expect(t.annotations.openWorldHint).toBe(false);
    }
    expect(mcp.find((t) => t.name === 'forget')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(mcp.find((t) => t.name === 'remember')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });

    // The formats are copies: editing one leaves the toolset unchanged.
    openai[0]!.function.parameters.properties.text!.description = 'changed';
    expect(toolset.openai()[0]!.function.parameters.properties.text!.description).not.toBe('changed');
  });

  it('follows the reference parameter names', async () => {
    const schemas = Object.fromEntries(memoryTools(await store()).anthropic().map((t) => [t.name, t.input_schema]));
    expect(schemas.remember!.required).toEqual(['text']);
    expect(Object.keys(schemas.remember!.properties)).toEqual(
      expect.arrayContaining(['text', 'type', 'tags', 'importance', 'source', 'on_conflict', 'polarity', 'expires_at', 'ttl_seconds', 'pinned', 'trust', 'idempotent', 'valid_from', 'valid_until']),
    );
    expect(Object.keys(schemas.recall!.properties)).toEqual(
      expect.arrayContaining(['query', 'k', 'type', 'tag', 'min_importance', 'source', 'since', 'until', 'mode', 'overfetch', 'include_superseded', 'include_expired', 'explain', 'fusion', 'diversity', 'dedup_threshold', 'min_cosine', 'touch', 'expand_rels', 'expand_depth', 'expand_cap', 'expand_score', 'expand_decay', 'lexical_index', 'min_trust']),
    );
    expect(Object.keys(schemas.recall_pack!.properties)).toEqual(expect.arrayContaining(['query', 'token_budget', 'max_items', 'compress', 'compress_threshold', 'compress_min_group', 'header', 'include_pinned']));
    expect(Object.keys(schemas.auto_context!.properties)).toEqual(expect.arrayContaining(['task', 'token_budget', 'max_phrases', 'mode', 'min_cosine', 'touch', 'header', 'compress', 'lexical_index', 'min_trust']));
    expect(schemas.forget!.required).toEqual(['memory_id']);
    expect(schemas.link!.required).toEqual(['src_id', 'dst_id']);
    expect(schemas.neighbors!.properties.direction!.enum).toEqual(['out', 'in', 'both']);
    expect(schemas.subgraph!.required).toEqual(['memory_ids']);
    expect(schemas.find_path!.required).toEqual(['from_id', 'to_id']);
    expect(schemas.supersede!.required).toEqual(['old_id', 'new_id']);
    expect(schemas.stats!.properties).toEqual({});
  });

  it('include limits the tools and rejects unknown names', async () => {
    const s = await store();
    const toolset = memoryTools(s, { include: ['recall', 'remember'] });
    expect(toolset.names).toEqual(['remember', 'recall']);
    expect(toolset.openai().map((t) => t.function.name)).toEqual(['remember', 'recall']);
    const refused = await call(toolset, 'forget', { memory_id: 'x' });
    expect(refused.error.code).toBe('UNKNOWN_TOOL');
    expect(refused.error.message).toContain('remember, recall');
    expect(() => memoryTools(s, { include: ['recal'] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => memoryTools(s, { actor: ' ' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});

describe('dispatch round trips', () => {
  it('remember, recall, get, list_recent, stats, edit, forget', async () => {
    const s = await store();
    const tools = memoryTools(s);
    const stored = await call(tools, 'remember', { text: 'The staging cluster is deploy-stg-2', type: 'procedural', tags: ['deploy', 'infra'], importance: 0.8 });
    expect(stored).toMatchObject({ stored: true, action: 'stored', importance: 0.8, expires_at: null, pinned: false, trust: 'trusted' });
    expect(typeof stored.id).toBe('string');
    expect(stored.conflicts).toBeUndefined();
    await call(tools, 'remember', { text: 'Lunch is served at noon in the cafeteria' });

    const hits = await call(tools, 'recall', { query: 'which cluster do we stage deploys on', k: 2 });
    expect(hits[0]).toMatchObject({ id: stored.id, text: 'The staging cluster is deploy-stg-2', type: 'procedural', tags: ['deploy', 'infra'], importance: 0.8, superseded_by: null, expires_at: null });
    expect(Object.keys(hits[0]).sort()).toEqual(expect.arrayContaining(['created_at', 'expires_at', 'id', 'importance', 'score', 'superseded_by', 'tags', 'text', 'type']));
    expect(typeof hits[0].score).toBe('number');
    expect(hits[0].explain).toBeUndefined();
    const explained = await call(tools, 'recall', { query: 'staging cluster', k: 1, mode: 'hybrid', explain: true, type: 'procedural', tag: 'deploy', min_importance: 0.5, since: '7d' });
    expect(explained[0].id).toBe(stored.id);
    expect(explained[0].explain).toMatchObject({ mode: 'hybrid' });
    expect(await call(tools, 'recall', { query: 'staging cluster', type: 'episodic' })).toEqual([]);

    const got = await call(tools, 'get', { memory_id: stored.id });
    expect(got).toMatchObject({ found: true, id: stored.id, type: 'procedural', source: null, links: [], pinned: false, trust: 'trusted', superseded_by: null });
    expect(got.content_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(got.access_count).toBeGreaterThan(0); // recall touched it
    expect(await call(tools, 'get', { memory_id: 'missing' })).toEqual({ found: false, id: 'missing' });

    const recent = await call(tools, 'list_recent', { limit: 5 });
    expect(recent).toHaveLength(2);
    expect(Object.keys(recent[0]).sort()).toEqual(['created_at', 'expires_at', 'id', 'superseded_by', 'tags', 'text', 'type']);
    expect(await call(tools, 'stats')).toMatchObject({ count: 2, active: 2, superseded: 0, collection: s.name, by_type: { procedural: 1, semantic: 1 } });

    const edited = await call(tools, 'edit', { memory_id: stored.id, text: 'The staging cluster is deploy-stg-3', source: 'user' });
    expect(edited).toMatchObject({ ok: true, id: stored.id, text: 'The staging cluster is deploy-stg-3', source: 'user' });
    expect(await call(tools, 'edit', { memory_id: stored.id, clear_source: true })).toMatchObject({ source: null });
    expect((await s.get(stored.id))!.text).toBe('The staging cluster is deploy-stg-3');

    expect(await call(tools, 'forget', { memory_id: stored.id })).toEqual({ deleted: true });
    expect(await call(tools, 'forget', { memory_id: stored.id })).toEqual({ deleted: false });
    expect(await s.count()).toBe(1);
  });

  it('remember options: ttl_seconds, idempotent, actor as default source, raise', async () => {
    const clock = manualClock();
    const s = await store({ clock });
    const tools = memoryTools(s, { actor: 'agent:test', now: () => clock.now() });
    const ttl = await call(tools, 'remember', { text: 'The door code is 4512', ttl_seconds: 3600, pinned: true, trust: 'reported' });
    expect(ttl).toMatchObject({ stored: true, expires_at: clock.now() + 3600, pinned: true, trust: 'reported' });
    expect((await s.get(ttl.id))!.source).toBe('agent:test');
    const explicit = await call(tools, 'remember', { text: 'Deploys happen on Tuesdays', source: 'user' });
    expect((await s.get(explicit.id))!.source).toBe('user');

    const again = await call(tools, 'remember', { text: '  the DOOR code is   4512 ', idempotent: true });
    expect(again).toMatchObject({ id: ttl.id, stored: false });
    expect(await s.count()).toBe(2);

    const both = await call(tools, 'remember', { text: 'x', ttl_seconds: 5, expires_at: 10 });
    expect(both.error.code).toBe('INVALID_ARGUMENT');

    const raised = await call(tools, 'remember', { text: 'Deploys do not happen on Tuesdays', on_conflict: 'raise' });
    expect(raised.stored).toBe(false);
    expect(raised.conflicts[0]).toMatchObject({ kind: 'contradiction', other_id: explicit.id, other_text: 'Deploys happen on Tuesdays' });
    expect(await s.count()).toBe(2);
  });

  it('conflicts: warn on remember, find_conflicts, supersede and restore', async () => {
    const s = await store();
    const tools = memoryTools(s);
    const old = await call(tools, 'remember', { text: 'standup is at nine' });
    const fresh = await call(tools, 'remember', { text: 'standup is not at nine' });
    expect(fresh.conflicts[0]).toMatchObject({ kind: 'contradiction', reason: 'negation_diff', other_id: old.id });

    const found = await call(tools, 'find_conflicts', { memory_id: fresh.id });
    expect(found[0]).toMatchObject({ kind: 'contradiction', a: { id: fresh.id, text: 'standup is not at nine', type: 'semantic' }, b: { id: old.id } });
    expect((await call(tools, 'find_conflicts')).length).toBeGreaterThan(0);

    expect(await call(tools, 'supersede', { old_id: old.id, new_id: fresh.id })).toEqual({ ok: true, old_id: old.id, new_id: fresh.id, noop: false });
    const visible = (await call(tools, 'recall', { query: 'standup nine', k: 5 })).map((h: { id: string }) => h.id);
    expect(visible).not.toContain(old.id);
    const withOld = await call(tools, 'recall', { query: 'standup nine', k: 5, include_superseded: true });
    expect(withOld.find((h: { id: string }) => h.id === old.id).superseded_by).toBe(fresh.id);
    expect(await call(tools, 'restore', { memory_id: old.id })).toEqual({ restored: true, id: old.id, was_superseded_by: fresh.id });
    expect(await call(tools, 'restore', { memory_id: old.id })).toEqual({ restored: false, id: old.id, was_superseded_by: null });
  });

  it('graph: link, neighbors, subgraph, find_path, unlink', async () => {
    const s = await store();
    const tools = memoryTools(s);
    const a = await call(tools, 'remember', { text: 'Use pnpm for installs' });
    const b = await call(tools, 'remember', { text: 'Run pnpm install --frozen-lockfile in CI' });
    const c = await call(tools, 'remember', { text: 'CI runs on GitHub Actions' });
    expect(await call(tools, 'link', { src_id: b.id, dst_id: a.id, rel: 'example_of' })).toEqual({ ok: true, src_id: b.id, dst_id: a.id, rel: 'example_of', added: true });
    expect(await call(tools, 'link', { src_id: b.id, dst_id: c.id })).toMatchObject({ rel: 'related', added: true });
    expect(await call(tools, 'link', { src_id: b.id, dst_id: c.id })).toMatchObject({ added: false });

    const out = await call(tools, 'neighbors', { memory_id: b.id, direction: 'out' });
    expect(out.map((n: { id: string; rel: string }) => [n.id, n.rel])).toEqual([
      [a.id, 'example_of'],
      [c.id, 'related'],
    ]);
    expect(out[0]).toMatchObject({ text: 'Use pnpm for installs', type: 'semantic', tags: [], importance: 0.5, hop: 1, direction: 'out' });
    const incoming = await call(tools, 'neighbors', { memory_id: a.id, direction: 'in' });
    expect(incoming).toMatchObject([{ id: b.id, rel: 'example_of', direction: 'in' }]);

    const graph = await call(tools, 'subgraph', { memory_ids: [b.id], depth: 1 });
    expect(graph.nodes.map((n: { id: string }) => n.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(graph.edges).toEqual(expect.arrayContaining([{ src: b.id, dst: a.id, rel: 'example_of' }, { src: b.id, dst: c.id, rel: 'related' }]));
    expect(graph.dangling).toEqual([]);

    const path = await call(tools, 'find_path', { from_id: a.id, to_id: c.id });
    expect(path).toMatchObject({ found: true, length: 2 });
    expect(path.path.map((p: { id: string }) => p.id)).toEqual([a.id, b.id, c.id]);
    expect(path.path[0]).toMatchObject({ rel: null, text: 'Use pnpm for installs' });
    expect(await call(tools, 'find_path', { from_id: a.id, to_id: c.id, max_depth: 1 })).toEqual({ found: false, length: 0, path: [] });

    expect(await call(tools, 'unlink', { src_id: b.id, dst_id: c.id })).toEqual({ removed: 1 });
    expect(await call(tools, 'unlink', { src_id: b.id, dst_id: c.id })).toEqual({ removed: 0 });
    expect((await call(tools, 'neighbors', { memory_id: b.id })).map((n: { id: string }) => n.id)).toEqual([a.id]);

    const expanded = await call(tools, 'recall', { query: 'pnpm install frozen lockfile CI', k: 1, expand_rels: ['example_of'] });
    expect(expanded.map((h: { id: string }) => h.id)).toEqual([b.id, a.id]);
    expect(expanded[1].expanded_from).toEqual({ id: b.id, rel: 'example_of', hop: 1 });
  });

  it('recall_pack and auto_context', async () => {
    const s = await store();
    const tools = memoryTools(s);
    await call(tools, 'remember', { text: 'We lint with ESLint and format with Prettier', type: 'procedural' });
    await call(tools, 'remember', { text: 'Always answer the user in British English', pinned: true });
    const pack = await call(tools, 'recall_pack', { query: 'how do we lint the code', token_budget: 200, include_pinned: true });
    expect(pack.text).toContain('## Relevant memory');
    expect(pack.text).toContain('We lint with ESLint and format with Prettier');
    expect(pack.text).toContain('British English');
    expect(pack).toMatchObject({ budget: 200, truncated: false, compressed_groups: [] });
    expect(pack.used_tokens).toBeGreaterThan(0);
    expect(Object.keys(pack.items[0]).sort()).toEqual(['id', 'importance', 'score', 'tags', 'text', 'tokens', 'type']);
    const bare = await call(tools, 'recall_pack', { query: 'lint', header: '', token_budget: 0 });
    expect(bare).toMatchObject({ text: '', items: [], budget: 0 });

    const context = await call(tools, 'auto_context', { task: 'set up linting and formatting for the project', max_phrases: 2 });
    expect(context.queries[0]).toBe('set up linting and formatting for the project');
    expect(context.text).toContain('ESLint');
    expect(Array.isArray(context.items)).toBe(true);
  });

  it('the review queue: list_pending_conflicts and resolve_conflict', async () => {
    const s = await store({ conflicts: { policy: 'review' } });
    const tools = memoryTools(s);
    const old = await call(tools, 'remember', { text: 'standup is at nine' });
    const fresh = await call(tools, 'remember', { text: 'standup is not at nine' });
    expect(fresh).toMatchObject({ stored: true, action: 'queued' });
    const pending = await call(tools, 'list_pending_conflicts');
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ kind: 'contradiction', new_id: fresh.id, old_id: old.id, new: { id: fresh.id, text: 'standup is not at nine' }, old: { id: old.id } });
    const resolved = await call(tools, 'resolve_conflict', { conflict_id: pending[0].id, resolution: 'supersede' });
    expect(resolved).toMatchObject({ ok: true, id: pending[0].id, status: 'resolved', resolution: 'supersede', new_id: fresh.id, old_id: old.id });
    expect((await s.get(old.id))!.supersededBy).toBe(fresh.id);
    expect(await call(tools, 'list_pending_conflicts')).toEqual([]);
    expect((await call(tools, 'resolve_conflict', { conflict_id: 'nope', resolution: 'keep_both' })).error.code).toBe('NOT_FOUND');
  });
});

describe('errors come back as results', () => {
  it('bad arguments are INVALID_ARGUMENT and write nothing', async () => {
    const s = await store();
    const tools = memoryTools(s);
    const cases: [string, unknown, string][] = [
      ['remember', {}, 'text'],
      ['remember', { text: 42 }, 'text'],
      ['remember', { text: 'a fact', colour: 'blue' }, 'colour'],
      ['remember', { text: 'a fact', type: 'opinion' }, 'type'],
      ['remember', { text: 'a fact', importance: 2 }, 'importance'],
      ['remember', { text: 'a fact', tags: ['ok', 3] }, 'tags[1]'],
      ['remember', { text: 'a fact', polarity: 2 }, 'polarity'],
      ['remember', { text: '' }, 'text'],
      ['remember', '{"text": "a fact"', 'arguments'],
      ['remember', '["a fact"]', 'arguments'],
      ['remember', 'null', 'arguments'],
      ['recall', { query: 'x', k: 'five' }, 'k'],
      ['recall', { query: 'x', k: 2.5 }, 'k'],
      ['recall', { query: 'x', k: 0 }, 'k'],
      ['recall', { query: 'x', since: 'last tuesday' }, 'since'],
      ['neighbors', { memory_id: 'x', direction: 'sideways' }, 'direction'],
      ['stats', { verbose: true }, 'verbose'],
    ];
    for (const [name, args, field] of cases) {
      const text = await tools.dispatch(name, typeof args === 'string' ? args : JSON.stringify(args));
      const answer = JSON.parse(text);
      expect(answer.error?.code, `${name} ${JSON.stringify(args)}`).toBe('INVALID_ARGUMENT');
      expect(typeof answer.error.message).toBe('string');
      expect(answer.error.details?.field, `${name} ${JSON.stringify(args)}`).toBe(field);
    }
    expect(await s.count()).toBe(0);
  });

  it('null for an optional argument means omitted; empty arguments mean none', async () => {
    const tools = memoryTools(await store());
    const stored = await call(tools, 'remember', { text: 'Tabs, not spaces', type: null, tags: null, importance: null });
    expect(stored).toMatchObject({ stored: true, importance: 0.5 });
    expect(JSON.parse(await tools.dispatch('stats', ''))).toMatchObject({ count: 1 });
    expect(JSON.parse(await tools.dispatch('stats', null))).toMatchObject({ count: 1 });
    expect((await call(tools, 'remember', { text: null })).error.code).toBe('INVALID_ARGUMENT');
    // Anthropic hands over `block.input` as an object.
    expect(JSON.parse(await tools.dispatch('get', { memory_id: stored.id }))).toMatchObject({ found: true, text: 'Tabs, not spaces' });
  });

  it('unknown tools are UNKNOWN_TOOL, listing what is available', async () => {
    const tools = memoryTools(await store());
    const answer = await call(tools, 'rememberr', { text: 'x' });
    expect(answer.error.code).toBe('UNKNOWN_TOOL');
    expect(answer.error.message).toContain('rememberr');
    for (const name of MEMORY_TOOL_NAMES) expect(answer.error.message).toContain(name);
  });

  it("a store MemoryError keeps its code", async () => {
    const tools = memoryTools(await store());
    const edit = await call(tools, 'edit', { memory_id: 'missing', text: 'new text' });
    expect(edit.error).toMatchObject({ code: 'NOT_FOUND' });
    expect(edit.error.message).toContain('missing');
    const a = await call(tools, 'remember', { text: 'a memory' });
    expect((await call(tools, 'link', { src_id: a.id, dst_id: 'missing' })).error.code).toBe('NOT_FOUND');
    expect((await call(tools, 'link', { src_id: a.id, dst_id: a.id })).error.code).toBe('INVALID_ARGUMENT');
    expect((await call(tools, 'neighbors', { memory_id: 'missing' })).error.code).toBe('NOT_FOUND');
  });

  it('anything else thrown is INTERNAL; the dispatcher never throws', async () => {
    const broken = {
      recall: async () => {
        throw new TypeError('boom');
      },
      stats: async () => {
        throw 'not an error';
      },
    } as unknown as MemoryApi;
    const tools = memoryTools(broken);
    expect(await call(tools, 'recall', { query: 'x' })).toEqual({ error: { code: 'INTERNAL', message: 'boom' } });
    expect(await call(tools, 'stats')).toEqual({ error: { code: 'INTERNAL', message: 'not an error' } });
    expect(await tools.call('recall', { query: 'x' })).toEqual({ content: [{ type: 'text', text: '{"error":{"code":"INTERNAL","message":"boom"}}' }], isError: true });
  });
});

describe('read-only toolsets', () => {
  it('expose only read tools, refuse write tools, and touch nothing', async () => {
    const s = await store();
    const writer = memoryTools(s);
    const stored = await call(writer, 'remember', { text: 'The VPN endpoint is vpn.example.org' });
    const reader = memoryTools(s, { readOnly: true });
    expect(reader.readOnly).toBe(true);
    expect(reader.names).toEqual(MEMORY_TOOL_NAMES.filter((n) => (READ_ONLY_TOOL_NAMES as readonly string[]).includes(n)));
    expect(reader.tools.every((t) => t.readOnly)).toBe(true);
    expect(reader.mcp().every((t) => t.annotations.readOnlyHint)).toBe(true);
    for (const name of ['remember', 'forget', 'edit', 'link', 'unlink', 'supersede', 'restore', 'resolve_conflict']) {
      const refused = await call(reader, name, { text: 'x', memory_id: stored.id });
      expect(refused.error.code, name).toBe('UNKNOWN_TOOL');
      expect(refused.error.message).toContain('read-only');
    }
    const hits = await call(reader, 'recall', { query: 'VPN endpoint' });
    expect(hits[0].id).toBe(stored.id);
    await call(reader, 'recall_pack', { query: 'VPN endpoint' });
    await call(reader, 'auto_context', { task: 'connect to the VPN endpoint' });
    expect((await s.get(stored.id))!.accessCount).toBe(0);
    expect((await call(reader, 'recall', { query: 'VPN', touch: true })).error.code).toBe('INVALID_ARGUMENT');
    expect(await s.count()).toBe(1);
  });

  it('include and readOnly combine', async () => {
    const tools = memoryTools(await store(), { readOnly: true, include: ['recall', 'remember'] });
    expect(tools.names).toEqual(['recall']);
  });
});

describe('dispatchTool and the validator', () => {
  it('dispatchTool works on a plain list of tools', async () => {
    const tools = memoryTools(await store()).tools;
    const stored = JSON.parse(await dispatchTool(tools, 'remember', '{"text": "Coffee is on the third floor"}'));
    expect(stored.stored).toBe(true);
    expect(JSON.parse(await dispatchTool(tools, 'nope', '{}')).error.code).toBe('UNKNOWN_TOOL');
    expect(JSON.parse(await dispatchTool([], 'nope', '{}')).error.message).toContain('(none)');
  });

  it('validates the schema subset', () => {
    const schema: ObjectSchema = {
      type: 'object',
      properties: {
        when: { type: ['string', 'number'], description: 'time' },
        list: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 2, description: 'ints' },
        name: { type: 'string', minLength: 2, maxLength: 3, description: 'name' },
        maybe: { type: ['string', 'null'], description: 'nullable' },
      },
      required: ['name'],
      additionalProperties: false,
    };
    expect(validateArguments(schema, { name: 'ab', when: 5 })).toEqual({ name: 'ab', when: 5 });
    expect(validateArguments(schema, { name: 'abc', when: 'now', list: [1, 2], maybe: null })).toEqual({ name: 'abc', when: 'now', list: [1, 2], maybe: null });
    expect(validateArguments(schema, { name: 'ab', when: null })).toEqual({ name: 'ab' });
    const bad: [unknown, string][] = [
      [{ name: 'ab', when: true }, 'when'],
      [{ name: 'ab', list: [1, 0] }, 'list[1]'],
      [{ name: 'ab', list: [1, 2, 3] }, 'list'],
      [{ name: 'a' }, 'name'],
      [{ name: 'abcd' }, 'name'],
      [{ name: null }, 'name'],
      [{}, 'name'],
      [{ name: 'ab', other: 1 }, 'other'],
      [[], 'arguments'],
    ];
    for (const [value, field] of bad) {
      expect(() => validateArguments(schema, value), JSON.stringify(value)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', details: { field } }));
    }
  });

  it('wraps outcomes as MCP call results', () => {
    expect(toCallToolResult({ ok: true, result: { deleted: true } })).toEqual({ content: [{ type: 'text', text: '{"deleted":true}' }] });
  });

  it('parses time arguments', () => {
    const now = 1_760_000_000;
    expect(parseTimeArgument(1_700_000_000, 'since', now)).toBe(1_700_000_000);
    expect(parseTimeArgument('1700000000.5', 'since', now)).toBe(1_700_000_000.5);
    expect(parseTimeArgument('7d', 'since', now)).toBe(now - 7 * 86_400);
    expect(parseTimeArgument('24h', 'since', now)).toBe(now - 86_400);
    expect(parseTimeArgument('30m', 'since', now)).toBe(now - 1_800);
    expect(parseTimeArgument('2 weeks', 'since', now)).toBe(now - 14 * 86_400);
    expect(parseTimeArgument('2025-01-02', 'since', now)).toBe(Date.UTC(2025, 0, 2) / 1000);
    expect(parseTimeArgument('2025-01-02T03:04:05', 'since', now)).toBe(Date.UTC(2025, 0, 2, 3, 4, 5) / 1000);
    expect(parseTimeArgument('2025-01-02T03:04:05+01:00', 'since', now)).toBe(Date.UTC(2025, 0, 2, 2, 4, 5) / 1000);
    expect(() => parseTimeArgument('yesterday', 'since', now)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
