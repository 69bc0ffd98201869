/**
 * The memory store as agent tools. Names, parameters (snake_case) and result shapes follow
 * AI-Houkai's MCP server, so prompts and agent code written against it keep
 * working; each tool maps its arguments onto this library's camelCase {@link MemoryApi}. The same
 * definitions render as OpenAI function-calling tools, Anthropic tools and MCP `tools/list`
 * entries, and {@link MemoryToolset.dispatch} is AI-Houkai's JSON-in/JSON-out `_dispatch_tool`.
 *
 * @example
 * ```ts
 * import { connectMemory } from 'houkai-web';
 * import { memoryTools } from 'houkai-web/agents';
 *
 * const memory = await connectMemory({ name: 'agent' });
 * const toolset = memoryTools(memory, { actor: 'support-bot' });
 * const response = await openai.chat.completions.create({ model, messages, tools: toolset.openai() });
 * for (const call of response.choices[0].message.tool_calls ?? []) {
 *   const content = await toolset.dispatch(call.function.name, call.function.arguments);
 *   messages.push({ role: 'tool', tool_call_id: call.id, content });
 * }
 * ```
 *
 * Differences from the reference, all additive or forced by the platform:
 * - failures come back as `{"error": {"code", "message"}}` (see `dispatch.ts`) instead of
 *   `{ok: false, error}` / `{stored: false, error}`; a conflict under `on_conflict: "raise"` is
 *   still the reference's `{stored: false, conflicts: [...]}`;
 * - `stats` reports `collection` (the store name) but no `path` (there is no directory);
 * - not offered: `graph`, `expand_rerank`, `as_of` (the store has no graph-proximity channel, no
 *   rerank-before-dedup expansion and no journal to travel back through);
 * - added: `surfaces_when` on remember/edit, `before` on list_recent, `action` on remember,
 *   `confidence` and `trust` on recall hits, `hop`/`direction` on neighbours, `dangling` on
 *   subgraph, and the review queue tools `list_pending_conflicts` / `resolve_conflict`;
 * - the lifecycle tools (`history`, `journal_tail`, `state_at`, `undo`, `purge_expired`,
 *   `trash_list`, `trash_restore`, `trash_purge`) live in `lifecycle-tools.ts`.
 */
import { MemoryError, invalid } from '../core/errors.ts';
import type { MemoryApi } from '../core/api.ts';
import { contentHash } from '../core/domain/text.ts';
import { MEMORY_TYPES, TRUST_LEVELS, type Conflict, type Memory, type MemoryInput, type RecallHit } from '../core/types.ts';
import type { PackResult } from '../core/domain/recall-pack.ts';
import {
  boolean,
  choice,
  id,
  integer,
  number,
  objectSchema,
  orNull,
  rename,
  round4,
  string,
  strings,
  time,
  TIME_FORMS,
  memoryRecord,
  parseTimeArgument,
  type Args,
  type Context,
  type ToolSpec,
} from './tool-kit.ts';
import { LIFECYCLE_READ_TOOL_NAMES, LIFECYCLE_TOOL_NAMES, lifecycleTools } from './lifecycle-tools.ts';
import { IMPORT_TOOL_NAMES, importTools } from './import-tools.ts';
import {
  invokeTool,
  outcomeJson,
  toCallToolResult,
  unknownTool,
  type CallToolResult,
  type JsonSchema,
  type ObjectSchema,
  type ToolDef,
  type ToolOutcome,
} from './dispatch.ts';

export { memoryRecord, parseTimeArgument } from './tool-kit.ts';
export type { CallToolResult, JsonSchema, JsonSchemaType, ObjectSchema, ToolDef, ToolErrorBody, ToolErrorCode, ToolOutcome } from './dispatch.ts';

// ---------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------

/** Every tool, in the order they are listed. */
export const MEMORY_TOOL_NAMES = [
  'remember',
  'recall',
  'recall_pack',
  'auto_context',
  'forget',
  'list_recent',
  'stats',
  'get',
  'edit',
  'link',
  'unlink',
  'neighbors',
  'subgraph',
  'find_path',
  'find_conflicts',
  'supersede',
  'restore',
  'list_pending_conflicts',
  'resolve_conflict',
  ...LIFECYCLE_TOOL_NAMES,
  ...IMPORT_TOOL_NAMES,
] as const;

export type MemoryToolName = (typeof MEMORY_TOOL_NAMES)[number];

/** The tools that change nothing (recall touches access counts unless `touch: false`; a read-only toolset forces that). */
export const READ_ONLY_TOOL_NAMES: readonly MemoryToolName[] = [
  'recall',
  'recall_pack',
  'auto_context',
  'list_recent',
  'stats',
  'get',
  'neighbors',
  'subgraph',
  'find_path',
  'find_conflicts',
  'list_pending_conflicts',
  ...LIFECYCLE_READ_TOOL_NAMES,
];

// ---------------------------------------------------------------------------------------------
// Provider formats
// ---------------------------------------------------------------------------------------------

/** OpenAI (and Ollama, and other OpenAI-compatible endpoints) function-calling tool. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: ObjectSchema };
}

/** Anthropic Messages API tool. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectSchema;
}

/** An MCP `tools/list` entry. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
}

export interface MemoryToolsOptions {
  /** Only these tools (names from {@link MEMORY_TOOL_NAMES}); default all. Unknown names are rejected. */
  include?: readonly string[];
  /**
   * Who is calling, e.g. `'webmcp'` or `'extension:notes'`. Recorded as the `source` (provenance)
   * of memories this toolset stores when a `remember` call names none. The store has no journal,
   * so this is the only place an actor can be kept today.
   */
  actor?: string;
  /**
   * Expose only the read tools, and make them write nothing at all: recall-type tools run with
   * `touch: false` (their `touch` parameter is not offered). A write tool's name is refused with
   * UNKNOWN_TOOL.
   */
  readOnly?: boolean;
  /** Current time in Unix seconds, for `ttl_seconds` and relative `since`/`until` ("7d"). Default: the system clock. */
  now?: () => number;
}

export interface MemoryToolset {
  /** The tools offered, in {@link MEMORY_TOOL_NAMES} order. */
  readonly tools: readonly ToolDef[];
  readonly names: readonly string[];
  readonly readOnly: boolean;
  readonly actor: string | undefined;
  /** `[{ type: 'function', function: { name, description, parameters } }]` for OpenAI-style APIs. */
  openai(): OpenAITool[];
  /** `[{ name, description, input_schema }]` for Anthropic's Messages API. */
  anthropic(): AnthropicTool[];
  /** `[{ name, description, inputSchema, annotations }]`: the `tools` of an MCP `tools/list` result. */
  mcp(): McpTool[];
  /** JSON string in (or Anthropic's already-parsed `input` object), JSON string out; never throws. */
  dispatch(name: string, argumentsJson: string | Record<string, unknown> | null | undefined): Promise<string>;
  /** As dispatch, without the final `JSON.stringify`. */
  invoke(name: string, args: string | Record<string, unknown> | null | undefined): Promise<ToolOutcome>;
  /** As dispatch, shaped as an MCP `tools/call` result (`content: [{type: 'text', text}]`, `isError`). */
  call(name: string, args: string | Record<string, unknown> | null | undefined): Promise<CallToolResult>;
}

// ---------------------------------------------------------------------------------------------
// Schema helpers
// ---------------------------------------------------------------------------------------------

const TYPE_LIST = MEMORY_TYPES.join(' | ');
function filterProperties(): Record<string, JsonSchema> {
  return {
    type: choice(MEMORY_TYPES, `Only memories of this type (${TYPE_LIST}).`),
    tag: string('Only memories carrying this tag.', { minLength: 1 }),
    min_importance: number('Only memories at least this important (0..1).', 0, 1),
    source: string('Only memories whose provenance label is exactly this.'),
    since: time(`Only memories created at or after this time: ${TIME_FORMS}.`),
    until: time(`Only memories created at or before this time: ${TIME_FORMS}.`),
    include_superseded: boolean('Also return memories replaced by newer ones. Default false.'),
    include_expired: boolean('Also return memories whose TTL has passed. Default false.'),
    min_trust: choice(TRUST_LEVELS, 'Least trusted origin admitted: "trusted" admits only trusted memories, "reported" also reported ones, "untrusted" (the default) everything.'),
  };
}

function rankingProperties(readOnly: boolean, defaultMode: 'semantic' | 'hybrid'): Record<string, JsonSchema> {
  return {
    mode: choice(['semantic', 'hybrid'], `"semantic" (cosine similarity) or "hybrid" (cosine + keyword BM25 + recency + importance). Default "${defaultMode}".`),
    fusion: choice(['weighted', 'rrf'], 'How hybrid signals combine: "weighted" (default) or reciprocal-rank fusion "rrf".'),
    diversity: number('MMR trade-off in [0, 1]: 1 = pure relevance, lower values favour novelty. Omit for none.', 0, 1),
    dedup_threshold: number('Skip a result whose cosine to an already chosen one is at least this (0..1).', 0, 1),
    min_cosine: number('Absolute relevance floor in [-1, 1]: return nothing rather than weak matches.', -1, 1),
    lexical_index: choice(['pool', 'corpus'], '"corpus" (default): the keyword index also finds candidates (exact identifiers, error codes, names); "pool": keyword scoring over the vector candidates only.'),
    ...(readOnly ? {} : { touch: boolean('Record the access on each hit (access count, last accessed). Default true; false = a pure read.') }),
  };
}

function expandProperties(): Record<string, JsonSchema> {
  return {
    expand_rels: strings('Follow these link relations from the hits and append the linked memories (default refines, example_of). Supplying any expand_* parameter turns expansion on.', {
      items: { type: 'string', minLength: 1, maxLength: 64 },
      maxItems: 20,
    }),
    expand_depth: integer('Expansion hops, default 1.', 0, 10),
    expand_cap: integer('Most memories expansion may add, default 5.', 0, 100),
    expand_score: number('Score given to an expanded memory (0..1), default 0.7.', 0, 1),
    expand_decay: number('Score multiplier per extra hop (0..1), default 1.', 0, 1),
  };
}

function packProperties(): Record<string, JsonSchema> {
  return {
    token_budget: integer('Soft ceiling on the tokens of the memory lines (about 4 characters per token; the header is not counted). Default 800.', 0, 1_000_000),
    header: string('Heading placed above the block, default "## Relevant memory"; "" for none.', { maxLength: 500 }),
    compress: boolean('Fold similar memories that did not fit into one summary line. Default false.'),
    compress_threshold: number('Word-overlap (Jaccard) similarity for folding, default 0.30.', 0, 1),
    compress_min_group: integer('Smallest group worth a folded line, default 2.', 1, 1000),
    cut: choice(['none', 'cliff'], '"none" (default): pack as many ranked memories as fit; "cliff": stop where the scores drop sharply (fewer tokens, may leave out an answer).'),
  };
}

// ---------------------------------------------------------------------------------------------
// Argument mapping
// ---------------------------------------------------------------------------------------------

function filterOptions(args: Args, ctx: Context): Record<string, unknown> {
  return {
    ...rename(args, {
      type: 'type',
      tag: 'tag',
      min_importance: 'minImportance',
      source: 'source',
      include_superseded: 'includeSuperseded',
      include_expired: 'includeExpired',
      min_trust: 'minTrust',
    }),
    ...(args.since === undefined ? {} : { since: parseTimeArgument(args.since, 'since', ctx.now()) }),
    ...(args.until === undefined ? {} : { until: parseTimeArgument(args.until, 'until', ctx.now()) }),
  };
}

function rankingOptions(args: Args, ctx: Context): Record<string, unknown> {
  return {
    ...rename(args, {
      mode: 'mode',
      fusion: 'fusion',
      diversity: 'diversity',
      dedup_threshold: 'dedupThreshold',
      min_cosine: 'minCosine',
      lexical_index: 'lexicalIndex',
      touch: 'touch',
    }),
    ...(ctx.readOnly ? { touch: false } : {}),
  };
}

function expandOption(args: Args): Record<string, unknown> {
  const spec = rename(args, { expand_rels: 'rels', expand_depth: 'depth', expand_cap: 'cap', expand_score: 'score', expand_decay: 'decay' });
  if (Array.isArray(spec.rels) && spec.rels.length === 0) delete spec.rels;
  const any = ['expand_rels', 'expand_depth', 'expand_cap', 'expand_score', 'expand_decay'].some((k) => args[k] !== undefined);
  return any ? { expand: spec } : {};
}

function packOptions(args: Args): Record<string, unknown> {
  return rename(args, {
    token_budget: 'tokenBudget',
    header: 'header',
    compress: 'compress',
    compress_threshold: 'compressThreshold',
    compress_min_group: 'compressMinGroup',
    cut: 'cut',
  });
}

// ---------------------------------------------------------------------------------------------
// Result shapes (snake_case, as the reference serialises them)
// ---------------------------------------------------------------------------------------------

function hitRecord(hit: RecallHit): Record<string, unknown> {
  const m = hit.memory;
  return {
    id: m.id,
    text: m.text,
    type: m.type,
    tags: m.tags,
    importance: m.importance,
    score: round4(hit.score),
    created_at: m.createdAt,
    superseded_by: m.supersededBy || null,
    expires_at: orNull(m.expiresAt),
    trust: m.trust,
    ...(hit.confidence === undefined ? {} : { confidence: hit.confidence }),
    // Other memories that say otherwise, unresolved: the answer is contested.
    contested_by: hit.contestedBy ?? [],
    // Newer memories that replace this one (they rank above it): the fact has changed since.
    outdated_by: hit.outdatedBy ?? [],
    ...(hit.expandedFrom === undefined ? {} : { expanded_from: { id: hit.expandedFrom.id, rel: hit.expandedFrom.rel, hop: hit.expandedFrom.hop } }),
    ...(hit.explain === undefined ? {} : { explain: hit.explain.breakdown }),
  };
}

function packRecord(pack: PackResult): Record<string, unknown> {
  return {
    text: pack.text,
    used_tokens: pack.usedTokens,
    budget: pack.budget,
    truncated: pack.truncated,
    items: pack.items.map((p) => ({
      id: p.memory.id,
      text: p.memory.text,
      type: p.memory.type,
      tags: p.memory.tags,
      importance: p.memory.importance,
      score: round4(p.score),
      tokens: p.tokens,
    })),
    compressed_groups: pack.compressedGroups.map((g) => ({ ids: g.memories.map((m) => m.id), text: g.text, tokens: g.tokens, count: g.memories.length })),
  };
}

const brief = (m: Pick<Memory, 'id' | 'text' | 'type'>): Record<string, unknown> => ({ id: m.id, text: m.text.slice(0, 120), type: m.type });

function conflictRecord(c: Pick<Conflict, 'kind' | 'reason' | 'similarity'> & { otherId: string; otherText: string }): Record<string, unknown> {
  return { kind: c.kind, reason: c.reason, similarity: c.similarity, other_id: c.otherId, other_text: c.otherText.slice(0, 100) };
}

function isConflictError(error: unknown): error is MemoryError & { details: { conflicts: { kind: Conflict['kind']; reason: string; similarity: number; otherId: string; otherText: string }[] } } {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === 'CONFLICT' &&
    Array.isArray((error as { details?: { conflicts?: unknown } }).details?.conflicts)
  );
}

// ---------------------------------------------------------------------------------------------
// The tools
// ---------------------------------------------------------------------------------------------

function buildTools(ctx: Context): Record<MemoryToolName, ToolSpec> {
  const { client } = ctx;
  const readOnlyNote = ctx.readOnly ? '' : ' Recording the access can be turned off with touch=false.';
  return {
    remember: {
      name: 'remember',
      description:
        'Store a new long-term memory: a fact, a decision, a user preference, an event or a how-to. ' +
        `type: ${TYPE_LIST}. Set trust="untrusted" for anything read from content the user did not author (a web page, a document, another agent's output). ` +
        'Returns {id, stored, importance, expires_at, pinned, trust}, plus the conflicts found with existing memories.',
      destructive: false,
      inputSchema: objectSchema(
        {
          text: string('The memory itself, one self-contained statement.', { minLength: 1 }),
          type: choice(MEMORY_TYPES, `${TYPE_LIST}. Default "semantic".`),
          tags: strings('Topic labels (no commas).', { items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 50 }),
          importance: number('0..1, default 0.5.', 0, 1),
          source: string('Provenance label, e.g. "user" or "doc:handbook.md".'),
          on_conflict: choice(['ignore', 'warn', 'supersede', 'raise', 'review'], 'What to do when it duplicates or contradicts an existing memory: "warn" (report only), "supersede" (replace the old one), "raise" (store nothing), "review" (queue for the user), "ignore". Default: the store\'s policy.'),
          polarity: { type: 'integer', enum: [-1, 0, 1], description: 'Sentiment of the statement: -1 negative, 0 neutral (default), 1 positive.' },
          expires_at: number('Forget after this time (Unix seconds). Pass at most one of expires_at and ttl_seconds.', 0),
          ttl_seconds: number('Forget after this many seconds from now.', 0),
          pinned: boolean('A standing instruction: always offered to recall_pack with include_pinned. Default false.'),
          trust: choice(TRUST_LEVELS, 'How far the ORIGIN of this memory is trusted. Default "trusted".'),
          idempotent: boolean('If a live memory with the same text (ignoring case and spacing) exists, return it unchanged (stored=false) instead of storing a duplicate. Default false.'),
          valid_from: number('Start of the time the statement holds (Unix seconds).', 0),
          valid_until: number('End of the time the statement holds (Unix seconds, exclusive).', 0),
          surfaces_when: strings('File globs (src/db/**) or keywords (timeout) that should bring this memory up proactively.', {
            items: { type: 'string', minLength: 1, maxLength: 500 },
            maxItems: 50,
          }),
          created_at: number('When the content happened (Unix seconds): a chat turn\'s time, a dated note. Default: now. At most a day ahead.', 0),
        },
        ['text'],
      ),
      async run(args) {
        const text = args.text as string;
        if (args.expires_at !== undefined && args.ttl_seconds !== undefined) {
          throw invalid('Pass either expires_at or ttl_seconds, not both', { field: 'ttl_seconds' });
        }
        const input: MemoryInput = rename(args, {
          type: 'type',
          tags: 'tags',
          importance: 'importance',
          source: 'source',
          on_conflict: 'onConflict',
          polarity: 'polarity',
          expires_at: 'expiresAt',
          pinned: 'pinned',
          trust: 'trust',
          valid_from: 'validFrom',
          valid_until: 'validUntil',
          surfaces_when: 'surfacesWhen',
          created_at: 'createdAt',
        });
        if (args.ttl_seconds !== undefined) input.expiresAt = ctx.now() + (args.ttl_seconds as number);
        if (input.source === undefined && ctx.actor !== undefined) input.source = ctx.actor;
        const summary = (m: Memory) => ({ id: m.id, importance: m.importance, expires_at: orNull(m.expiresAt), pinned: m.pinned, trust: m.trust });
        if (args.idempotent === true) {
          const existing = await findLiveCopy(client, text);
          if (existing) return { ...summary(existing), stored: false, action: 'existing' };
        }
        try {
          const result = await client.remember(text, input);
          return {
            ...summary(result.memory),
            stored: result.action !== 'merged',
            action: result.action,
            ...(result.conflicts.length
              ? { conflicts: result.conflicts.map((c) => conflictRecord({ ...c, otherId: c.b.id, otherText: c.b.text })) }
              : {}),
          };
        } catch (error) {
          // The reference answers a conflict under 'raise' with a result, not an error.
          if (isConflictError(error)) return { stored: false, conflicts: error.details.conflicts.map(conflictRecord) };
          throw error;
        }
      },
    },

    recall: {
      name: 'recall',
      description:
        'Search long-term memory by meaning (or hybrid meaning + keywords + recency + importance). Use it before starting a task and whenever past decisions, preferences or facts may matter. ' +
        'Returns [{id, text, type, tags, importance, score, created_at, superseded_by, expires_at, trust, confidence, contested_by, outdated_by}], best first; contested_by lists memories that say otherwise and are not settled (tell the user both); outdated_by lists newer memories that replace this one (they rank above it: answer with the current one). ' +
        readOnlyNote,
      inputSchema: objectSchema(
        {
          query: string('What to look for, in natural language.', { minLength: 1 }),
          k: integer('How many memories to return, default 5.', 1, 1000),
          ...filterProperties(),
          ...rankingProperties(ctx.readOnly, 'hybrid'),
          overfetch: integer('Candidate pool multiplier for filtered searches, default 4.', 1, 100),
          explain: boolean('Attach a per-signal score breakdown to each hit under "explain". Default false.'),
          outdated: choice(['keep', 'hide'], '"keep" (default): memories a newer one updates are returned below it, with outdated_by; "hide": left out.'),
          ...expandProperties(),
        },
        ['query'],
      ),
      async run(args) {
        const hits = await client.recall(args.query as string, {
          ...rename(args, { k: 'k', overfetch: 'overfetch', explain: 'explain', outdated: 'outdated' }),
          ...filterOptions(args, ctx),
          ...rankingOptions(args, ctx),
          ...expandOption(args),
        });
        return hits.map(hitRecord);
      },
    },

    recall_pack: {
      name: 'recall_pack',
      description:
        'Build a ready-to-use context block of the most relevant memories within a token budget (hybrid ranking by default). ' +
        'Returns {text, used_tokens, budget, truncated, items:[{id, text, type, tags, importance, score, tokens}], compressed_groups}: put `text` into the prompt. ' +
        'Untrusted memories are marked in the block.',
      inputSchema: objectSchema(
        {
          query: string('What the context is for, in natural language.', { minLength: 1 }),
          max_items: integer('Most memories considered, default 50.', 1, 1000),
          include_pinned: boolean('Put every pinned memory (standing instruction) first, whether or not it matches. Default false.'),
          ...packProperties(),
          ...filterProperties(),
          ...rankingProperties(ctx.readOnly, 'hybrid'),
          ...expandProperties(),
        },
        ['query'],
      ),
      async run(args) {
        const pack = await client.recallPack(args.query as string, {
          ...rename(args, { max_items: 'maxItems', include_pinned: 'includePinned' }),
          ...packOptions(args),
          ...filterOptions(args, ctx),
          ...rankingOptions(args, ctx),
          ...expandOption(args),
        });
        return packRecord(pack);
      },
    },

    auto_context: {
      name: 'auto_context',
      description:
        'Build a context block for a task without choosing a query: the task is split into its key phrases, each is recalled, and the best memories are packed within the token budget. ' +
        'Returns the same shape as recall_pack plus `queries` (the searches made). Consider min_trust, since this tool pulls memories in unattended.',
      inputSchema: objectSchema(
        {
          task: string('The task about to be done, in natural language.', { minLength: 1 }),
          max_phrases: integer('Most key phrases searched besides the task itself, default 3.', 0, 20),
          mode: choice(['semantic', 'hybrid'], 'Ranking for every search, default "hybrid".'),
          min_cosine: number('Absolute relevance floor in [-1, 1] for every search.', -1, 1),
          lexical_index: choice(['pool', 'corpus'], '"pool" (default) or "corpus", as on recall.'),
          min_trust: choice(TRUST_LEVELS, 'Least trusted origin admitted, as on recall.'),
          ...(ctx.readOnly ? {} : { touch: boolean('Record the access on each memory used. Default true.') }),
          ...packProperties(),
        },
        ['task'],
      ),
      async run(args) {
        const result = await client.contextPack(args.task as string, {
          ...rename(args, { max_phrases: 'maxPhrases', mode: 'mode', min_cosine: 'minCosine', lexical_index: 'lexicalIndex', min_trust: 'minTrust', touch: 'touch' }),
          ...packOptions(args),
          ...(ctx.readOnly ? { touch: false } : {}),
        });
        return { ...packRecord(result), queries: result.queries };
      },
    },

    forget: {
      name: 'forget',
      description: 'Permanently delete a memory by id. Prefer supersede when a memory was replaced by a newer one (that keeps history). Returns {deleted}.',
      destructive: true,
      idempotent: true,
      inputSchema: objectSchema({ memory_id: id('Id of the memory to delete.') }, ['memory_id']),
      async run(args) {
        return { deleted: await client.forget(args.memory_id as string) };
      },
    },

    list_recent: {
      name: 'list_recent',
      description: 'The most recently stored memories, newest first. Returns [{id, text, type, tags, created_at, superseded_by, expires_at}].',
      inputSchema: objectSchema({
        limit: integer('How many, default 20.', 0, 1000),
        include_superseded: boolean('Also list memories replaced by newer ones. Default false.'),
        include_expired: boolean('Also list memories whose TTL has passed. Default false.'),
        before: number('Only memories created strictly before this time (Unix seconds): pass the last created_at to page on.', 0),
      }),
      async run(args) {
        const memories = await client.listRecent(rename(args, { limit: 'limit', include_superseded: 'includeSuperseded', include_expired: 'includeExpired', before: 'before' }));
        return memories.map((m) => ({
          id: m.id,
          text: m.text,
          type: m.type,
          tags: m.tags,
          created_at: m.createdAt,
          superseded_by: m.supersededBy || null,
          expires_at: orNull(m.expiresAt),
        }));
      },
    },

    stats: {
      name: 'stats',
      description: 'Store statistics. Returns {count, active, superseded, by_type, collection, embedder, index, schema_version}.',
      inputSchema: objectSchema({}),
      async run() {
        const s = await client.stats();
        return {
          count: s.count,
          active: s.active,
          superseded: s.superseded,
          by_type: s.byType,
          collection: s.name,
          embedder: { id: s.embedder.id, dim: s.embedder.dim },
          index: { kind: s.index.kind, size: s.index.size },
          schema_version: s.schemaVersion,
          ...(s.storage ? { storage: { persisted: s.storage.persisted, usage: s.storage.usage, quota: s.storage.quota } } : {}),
        };
      },
    },

    get: {
      name: 'get',
      description:
        'Fetch one memory by exact id: a plain read with no access bump and no filtering (superseded and expired memories are returned with their state). ' +
        'Returns {found: true, id, text, type, tags, importance, source, links, pinned, trust, ...} or {found: false, id}.',
      inputSchema: objectSchema({ memory_id: id('Id of the memory.') }, ['memory_id']),
      async run(args) {
        const memory = await client.get(args.memory_id as string);
        return memory ? { found: true, ...memoryRecord(memory) } : { found: false, id: args.memory_id };
      },
    },

    edit: {
      name: 'edit',
      description:
        'Change fields of an existing memory in place, keeping its id, links and history (do not forget + remember to fix a typo). Omitted fields stay as they are; a new text is re-embedded. ' +
        'Returns {ok: true, id, text, type, tags, importance, polarity, source, expires_at, pinned, trust}.',
      destructive: true,
      idempotent: true,
      inputSchema: objectSchema(
        {
          memory_id: id('Id of the memory to change.'),
          text: string('New text.', { minLength: 1 }),
          type: choice(MEMORY_TYPES, TYPE_LIST),
          tags: strings('New tags (replace the old ones).', { items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 50 }),
          importance: number('0..1.', 0, 1),
          polarity: { type: 'integer', enum: [-1, 0, 1], description: '-1, 0 or 1.' },
          source: string('New provenance label.'),
          clear_source: boolean('Remove the provenance label (do not combine with source).'),
          expires_at: number('New TTL deadline (Unix seconds); 0 clears it.', 0),
          pinned: boolean('Pin or unpin.'),
          trust: choice(TRUST_LEVELS, 'New trust level.'),
          valid_from: number('Start of validity (Unix seconds); 0 clears it.', 0),
          valid_until: number('End of validity (Unix seconds); 0 clears it.', 0),
          surfaces_when: strings('New proactive-surfacing patterns (replace the old ones).', { items: { type: 'string', minLength: 1, maxLength: 500 }, maxItems: 50 }),
        },
        ['memory_id'],
      ),
      async run(args) {
        if (args.clear_source === true && args.source !== undefined) {
          throw invalid('Pass either source or clear_source, not both', { field: 'clear_source' });
        }
        const changes: { text?: string } & MemoryInput = rename(args, {
          text: 'text',
          type: 'type',
          tags: 'tags',
          importance: 'importance',
          polarity: 'polarity',
          source: 'source',
          expires_at: 'expiresAt',
          pinned: 'pinned',
          trust: 'trust',
          valid_from: 'validFrom',
          valid_until: 'validUntil',
          surfaces_when: 'surfacesWhen',
        });
        if (args.clear_source === true) changes.source = null;
        const m = await client.edit(args.memory_id as string, changes);
        return {
          ok: true,
          id: m.id,
          text: m.text,
          type: m.type,
          tags: m.tags,
          importance: m.importance,
          polarity: m.polarity,
          source: m.source,
          expires_at: orNull(m.expiresAt),
          pinned: m.pinned,
          trust: m.trust,
        };
      },
    },

    link: {
      name: 'link',
      description:
        'Add a directed link from one memory to another. rel: related (default), refines, example_of, derived_from, contradicts, supersedes, causes, supports, or your own. ' +
        'Idempotent. Returns {ok, src_id, dst_id, rel, added}.',
      destructive: false,
      idempotent: true,
      inputSchema: objectSchema(
        {
          src_id: id('Id of the memory the link starts from.'),
          dst_id: id('Id of the memory it points to.'),
          rel: string('Relation, default "related".', { minLength: 1, maxLength: 64 }),
        },
        ['src_id', 'dst_id'],
      ),
      async run(args) {
        const rel = (args.rel as string | undefined) ?? 'related';
        const { added } = await client.link(args.src_id as string, args.dst_id as string, rel);
        return { ok: true, src_id: args.src_id, dst_id: args.dst_id, rel, added };
      },
    },

    unlink: {
      name: 'unlink',
      description: 'Remove the links from one memory to another: one relation, or all of them when rel is omitted. Returns {removed} (how many).',
      destructive: true,
      idempotent: true,
      inputSchema: objectSchema(
        {
          src_id: id('Id of the memory the links start from.'),
          dst_id: id('Id of the memory they point to.'),
          rel: string('Only this relation.', { minLength: 1, maxLength: 64 }),
        },
        ['src_id', 'dst_id'],
      ),
      async run(args) {
        return { removed: await client.unlink(args.src_id as string, args.dst_id as string, args.rel as string | undefined) };
      },
    },

    neighbors: {
      name: 'neighbors',
      description: 'Memories linked to a memory, breadth-first. Returns [{id, text, type, tags, importance, rel, hop, direction}].',
      inputSchema: objectSchema(
        {
          memory_id: id('Id of the memory to start from.'),
          rel: string('Only follow links with this relation.', { minLength: 1, maxLength: 64 }),
          direction: choice(['out', 'in', 'both'], '"out" (links it makes), "in" (links to it) or "both" (default).'),
          depth: integer('Hops, default 1.', 0, 10),
        },
        ['memory_id'],
      ),
      async run(args) {
        const result = await client.neighbors(args.memory_id as string, rename(args, { rel: 'rel', direction: 'direction', depth: 'depth' }));
        return result.results.map((h) => ({
          id: h.memory.id,
          text: h.memory.text,
          type: h.memory.type,
          tags: h.memory.tags,
          importance: h.memory.importance,
          rel: h.rel,
          hop: h.hop,
          direction: h.direction,
        }));
      },
    },

    subgraph: {
      name: 'subgraph',
      description: 'The link graph reachable from some memories along OUTGOING links within depth hops. Returns {nodes: [full records], edges: [{src, dst, rel}], dangling}.',
      inputSchema: objectSchema(
        {
          memory_ids: strings('Ids to start from.', { items: { type: 'string', minLength: 1 }, minItems: 1, maxItems: 100 }),
          depth: integer('Hops, default 1.', 0, 10),
        },
        ['memory_ids'],
      ),
      async run(args) {
        const graph = await client.subgraph(args.memory_ids as string[], rename(args, { depth: 'depth' }));
        return {
          nodes: graph.nodes.map(memoryRecord),
          edges: graph.edges.map(([src, dst, rel]) => ({ src, dst, rel })),
          dangling: graph.dangling,
        };
      },
    },

    find_path: {
      name: 'find_path',
      description: 'Shortest chain of links between two memories, in either direction ("how are these related?"). Returns {found, length, path: [{id, rel, direction, text}]}.',
      inputSchema: objectSchema(
        {
          from_id: id('Id of the first memory.'),
          to_id: id('Id of the second memory.'),
          max_depth: integer('Longest path searched, in links; default 6.', 0, 20),
        },
        ['from_id', 'to_id'],
      ),
      async run(args) {
        const result = await client.findPath(args.from_id as string, args.to_id as string, rename(args, { max_depth: 'maxDepth' }));
        const memories = await Promise.all(result.path.map((step) => client.get(step.id)));
        return {
          found: result.found,
          length: result.found ? result.length : 0,
          path: result.path.map((step, i) => ({
            id: step.id,
            rel: step.rel || null,
            direction: step.direction || null,
            text: memories[i]?.text.slice(0, 120) ?? null,
          })),
        };
      },
    },

    find_conflicts: {
      name: 'find_conflicts',
      description:
        'Find duplicate or contradicting memories, for one memory or the whole store. Returns [{kind, reason, similarity, a: {id, text, type}, b: {id, text, type}}]; resolve them with supersede, edit or forget.',
      inputSchema: objectSchema({
        memory_id: id('Check only this memory; omit to scan the whole store.'),
        threshold: number('Cosine similarity cut-off, default 0.80.', 0, 1),
      }),
      async run(args) {
        const conflicts = await client.findConflicts(rename(args, { memory_id: 'memoryId', threshold: 'threshold' }));
        return conflicts.map((c) => ({ kind: c.kind, reason: c.reason, similarity: c.similarity, a: brief(c.a), b: brief(c.b) }));
      },
    },

    supersede: {
      name: 'supersede',
      description:
        'Mark an old memory as replaced by a newer one: the old one is hidden from recall but kept (restore undoes it), and the new one gets a "supersedes" link. Returns {ok, old_id, new_id, noop}.',
      destructive: false,
      idempotent: true,
      inputSchema: objectSchema({ old_id: id('Id of the outdated memory.'), new_id: id('Id of the memory that replaces it.') }, ['old_id', 'new_id']),
      async run(args) {
        const { ok, noop } = await client.supersede(args.old_id as string, args.new_id as string);
        return { ok, old_id: args.old_id, new_id: args.new_id, noop };
      },
    },

    restore: {
      name: 'restore',
      description: 'Undo a supersede: the memory is visible again. Returns {restored, id, was_superseded_by}; restored is false when it does not exist or was not superseded.',
      destructive: false,
      idempotent: true,
      inputSchema: objectSchema({ memory_id: id('Id of the superseded memory.') }, ['memory_id']),
      async run(args) {
        const { restored, wasSupersededBy } = await client.restore(args.memory_id as string);
        return { restored, id: args.memory_id, was_superseded_by: wasSupersededBy || null };
      },
    },

    list_pending_conflicts: {
      name: 'list_pending_conflicts',
      description:
        'Conflicts waiting for a decision (stored with on_conflict="review"). Returns [{id, kind, reason, similarity, created_at, new: {id, text, type}, old: {id, text, type}}]. ' +
        'Ask the user, then call resolve_conflict.',
      inputSchema: objectSchema({ limit: integer('How many, default 100.', 0, 1000) }),
      async run(args) {
        const pending = await client.listPendingConflicts(rename(args, { limit: 'limit' }));
        return pending.map((p) => ({
          id: p.id,
          kind: p.kind,
          reason: p.reason,
          similarity: p.similarity,
          created_at: p.createdAt,
          new_id: p.newId,
          old_id: p.oldId,
          new: p.new ? brief(p.new) : null,
          old: p.old ? brief(p.old) : null,
        }));
      },
    },

    resolve_conflict: {
      name: 'resolve_conflict',
      description:
        'Apply the user\'s decision on a pending conflict: "supersede" (the new memory replaces the old one), "keep_both" (records a "contradicts" link) or "drop_new" (deletes the new memory). ' +
        'Returns {ok, id, status, resolution, new_id, old_id}.',
      destructive: true,
      inputSchema: objectSchema(
        {
          conflict_id: id('Id of the pending conflict (from list_pending_conflicts).'),
          resolution: choice(['supersede', 'keep_both', 'drop_new'], 'The decision.'),
        },
        ['conflict_id', 'resolution'],
      ),
      async run(args) {
        const record = await client.resolveConflict(args.conflict_id as string, args.resolution as 'supersede' | 'keep_both' | 'drop_new');
        return {
          ok: true,
          id: record.id,
          status: record.status,
          resolution: record.resolution ?? null,
          resolved_at: record.resolvedAt ?? null,
          new_id: record.newId,
          old_id: record.oldId,
          kind: record.kind,
        };
      },
    },

    ...lifecycleTools(ctx),
    ...importTools(ctx),
  };
}

/** The live memory with exactly this text (case and spacing folded), if one is among its nearest neighbours. */
async function findLiveCopy(client: MemoryApi, text: string): Promise<Memory | undefined> {
  if (text.trim() === '') return undefined; // remember() reports the empty text
  const hash = await contentHash(text.trim());
  const hits = await client.recall(text, { k: 5, touch: false });
  return hits.find((h) => h.memory.contentHash === hash)?.memory;
}

// ---------------------------------------------------------------------------------------------
// The toolset
// ---------------------------------------------------------------------------------------------

function clone<T>(value: T): T {
  return structuredClone(value);
}

/**
 * The memory tools over a store (in-process `createMemory`, or `connectMemory`'s worker client).
 * @throws MemoryError INVALID_ARGUMENT for an unknown name in `include` or a blank `actor`.
 */
export function memoryTools(client: MemoryApi, options: MemoryToolsOptions = {}): MemoryToolset {
  if (client === null || typeof client !== 'object' || typeof client.recall !== 'function') {
    throw invalid('memoryTools needs a memory client (createMemory() or connectMemory())', { field: 'client' });
  }
  const { include, actor, readOnly = false, now = () => Date.now() / 1000 } = options;
  if (include !== undefined) {
    if (!Array.isArray(include)) throw invalid('include must be an array of tool names', { field: 'include' });
    const unknown = include.filter((n) => !(MEMORY_TOOL_NAMES as readonly string[]).includes(n));
    if (unknown.length) {
      throw invalid(`include names unknown tool(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${MEMORY_TOOL_NAMES.join(', ')}`, { field: 'include' });
    }
  }
  if (actor !== undefined && (typeof actor !== 'string' || actor.trim() === '')) {
    throw invalid('actor must be a non-empty string', { field: 'actor' });
  }
  if (typeof readOnly !== 'boolean') throw invalid('readOnly must be a boolean', { field: 'readOnly' });

  const specs = buildTools({ client, readOnly, actor, now });
  const readSet = new Set<string>(READ_ONLY_TOOL_NAMES);
  const wanted = include === undefined ? null : new Set(include);
  const tools: ToolDef[] = MEMORY_TOOL_NAMES.filter((n) => (wanted === null || wanted.has(n)) && (!readOnly || readSet.has(n))).map((n) =>
    Object.freeze({ ...specs[n], readOnly: readSet.has(n) }),
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  const names = tools.map((t) => t.name);

  async function invoke(name: string, args: unknown): Promise<ToolOutcome> {
    if (typeof name === 'string' && !byName.has(name) && (MEMORY_TOOL_NAMES as readonly string[]).includes(name)) {
      const reason =
        readOnly && !readSet.has(name)
          ? `Tool ${JSON.stringify(name)} is not available: this toolset is read-only`
          : `Tool ${JSON.stringify(name)} is not available in this toolset`;
      return { ok: false, error: unknownTool(name, names, reason) };
    }
    return invokeTool(byName, name, args);
  }

  const toolset: MemoryToolset = {
    tools: Object.freeze(tools),
    names: Object.freeze(names),
    readOnly,
    actor,
    openai: () => tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: clone(t.inputSchema) } })),
    anthropic: () => tools.map((t) => ({ name: t.name, description: t.description, input_schema: clone(t.inputSchema) })),
    mcp: () =>
      tools.map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: clone(t.inputSchema),
        annotations: {
          readOnlyHint: t.readOnly,
          ...(t.readOnly ? {} : { destructiveHint: t.destructive ?? true, idempotentHint: t.idempotent ?? false }),
          openWorldHint: false as const,
        },
      })),
    invoke,
    dispatch: async (name, argumentsJson) => outcomeJson(await invoke(name, argumentsJson)),
    call: async (name, args) => toCallToolResult(await invoke(name, args)),
  };
  return Object.freeze(toolset);
}
