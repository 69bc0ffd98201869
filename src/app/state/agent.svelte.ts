/**
 * The Agent page: a scripted agent loop (no language model) that uses the memory through the
 * same tool surface an LLM agent gets — `memoryTools(client)` for the definitions and
 * `dispatchTool(tools, name, argumentsJson)` for each call, JSON string in, JSON string out. It
 * runs against its own sandbox store, so the memories open in the other tabs are never touched.
 */
import { connectMemory, type MemoryClient } from '../../index.ts';
import { dispatchTool, memoryTools } from '../../agents/index.ts';
import type { MemoryToolset } from '../../agents/tools.ts';
import { describe } from '../lib/errors.ts';
import { memory } from './memory.svelte.ts';

export const SANDBOX_STORE = 'agent-demo';

/** What the script keeps between calls (ids the tools returned). */
type Scratch = Record<string, string>;

export interface ScriptStep {
  /** What the agent is doing and why, in words. */
  say: string;
  tool: string;
  /** The arguments, built from what earlier calls returned; a string is sent as it is (raw JSON). */
  args: (scratch: Scratch) => Record<string, unknown> | string;
  /** Picks what later steps need out of the result. */
  keep?: (result: unknown, scratch: Scratch) => void;
}

export interface TimelineEntry {
  n: number;
  say: string;
  tool: string;
  /** The arguments JSON exactly as dispatched. */
  argumentsJson: string;
  /** The result JSON as returned, pretty-printed. */
  resultJson: string;
  ok: boolean;
  /** The error code when the result is `{error: {code, message}}`. */
  errorCode: string | null;
  ms: number;
}

const idOf = (result: unknown): string => (result && typeof result === 'object' && typeof (result as { id?: unknown }).id === 'string' ? (result as { id: string }).id : '');

/** The script: remember, recall, pack, link, walk the graph, find and settle a conflict, and two bad calls. */
export const SCRIPT: readonly ScriptStep[] = [
  {
    say: 'The user mentions a preference. The agent stores it as feedback, with tags and a high importance.',
    tool: 'remember',
    args: () => ({ text: 'Ada prefers answers in metric units and British spelling.', type: 'feedback', tags: ['user', 'preferences'], importance: 0.8 }),
    keep: (r, s) => void (s.prefs = idOf(r)),
  },
  {
    say: 'It learns how deploys work and stores the procedure.',
    tool: 'remember',
    args: () => ({ text: 'Production deploys go out from the main branch every Tuesday.', type: 'procedural', tags: ['deploy'] }),
    keep: (r, s) => void (s.deploy = idOf(r)),
  },
  {
    say: 'A related fact about the release pipeline.',
    tool: 'remember',
    args: () => ({ text: 'The release pipeline runs the full test suite before every deploy.', type: 'procedural', tags: ['deploy', 'ci'] }),
    keep: (r, s) => void (s.pipeline = idOf(r)),
  },
  {
    say: 'Later it hears the opposite. The store keeps both and reports the conflict in the result, rather than overwriting silently.',
    tool: 'remember',
    args: () => ({ text: 'Production deploys do not go out from the main branch every Tuesday.', type: 'procedural', tags: ['deploy'], on_conflict: 'warn' }),
    keep: (r, s) => void (s.update = idOf(r)),
  },
  {
    say: 'Before answering a question about deploys, the agent recalls what it knows (hybrid ranking).',
    tool: 'recall',
    args: () => ({ query: 'when do we deploy to production?', k: 3, mode: 'hybrid' }),
  },
  {
    say: 'For its prompt, it asks for a block of the most relevant memories within a token budget.',
    tool: 'recall_pack',
    args: () => ({ query: 'how are production deploys done?', token_budget: 120 }),
  },
  {
    say: 'It records that the pipeline fact supports the deploy procedure.',
    tool: 'link',
    args: (s) => ({ src_id: s.pipeline, dst_id: s.deploy, rel: 'supports' }),
  },
  {
    say: 'It walks the graph around the deploy procedure.',
    tool: 'neighbors',
    args: (s) => ({ memory_id: s.deploy }),
  },
  {
    say: 'It scans the whole store for duplicates and contradictions.',
    tool: 'find_conflicts',
    args: () => ({}),
  },
  {
    say: 'The user confirms the schedule changed: the newer memory supersedes the old one, which is kept for audit.',
    tool: 'supersede',
    args: (s) => ({ old_id: s.deploy, new_id: s.update }),
  },
  {
    say: 'A malformed call (k must be at least 1). The error comes back as data the loop can read; nothing is thrown and nothing is written.',
    tool: 'recall',
    args: () => ({ query: 'deploys', k: 0 }),
  },
  {
    say: 'Arguments that are not JSON at all get the same treatment.',
    tool: 'remember',
    args: () => '{"text": "unterminated',
  },
  {
    say: 'A tool that does not exist: the error lists the ones that do.',
    tool: 'teleport',
    args: () => ({ to: 'mars' }),
  },
  {
    say: 'Finally it checks what the store holds.',
    tool: 'stats',
    args: () => ({}),
  },
];

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

function errorCodeOf(json: string): string | null {
  try {
    const value = JSON.parse(json) as { error?: { code?: unknown } } | null;
    return value && typeof value === 'object' && value.error && typeof value.error.code === 'string' ? value.error.code : null;
  } catch {
    return null;
  }
}

export class AgentDemoState {
  phase = $state<'idle' | 'connecting' | 'ready' | 'failed'>('idle');
  timeline = $state.raw<TimelineEntry[]>([]);
  /** Index of the next step in SCRIPT. */
  cursor = $state(0);
  busy = $state(false);
  running = $state(false);
  error = $state<string | null>(null);
  /** The tool names offered, with whether each only reads. */
  tools = $state.raw<{ name: string; readOnly: boolean }[]>([]);

  private client: MemoryClient | null = null;
  private toolset: MemoryToolset | null = null;
  private scratch: Scratch = {};
  private stopRequested = false;

  get done(): boolean {
    return this.cursor >= SCRIPT.length;
  }

  /** The definitions in one provider's format, as JSON text. */
  definitions(format: 'openai' | 'anthropic' | 'mcp'): string {
    if (!this.toolset) return '';
    return JSON.stringify(this.toolset[format](), null, 2);
  }

  /** Opens the sandbox store (once). */
  async open(): Promise<void> {
    if (this.phase === 'ready' || this.phase === 'connecting') return;
    this.phase = 'connecting';
    this.error = null;
    try {
      this.client = await connectMemory({ name: SANDBOX_STORE, actor: 'agent:demo', conflictPolicy: 'warn' });
      this.toolset = memoryTools(this.client, { actor: 'agent:demo' });
      this.tools = this.toolset.tools.map((t) => ({ name: t.name, readOnly: t.readOnly }));
      this.phase = 'ready';
    } catch (error) {
      this.error = describe(error);
      this.phase = 'failed';
    }
  }

  /** Runs the next call of the script. */
  async step(): Promise<void> {
    if (this.busy || this.done) return;
    this.busy = true;
    try {
      await this.runNext();
    } finally {
      this.busy = false;
    }
  }

  /** Runs the rest of the script, one call after another. */
  async run(): Promise<void> {
    if (this.busy || this.done) return;
    this.busy = true;
    this.running = true;
    this.stopRequested = false;
    try {
      while (!this.done && !this.stopRequested) {
        await this.runNext();
        if (this.error) break;
      }
    } finally {
      this.running = false;
      this.busy = false;
    }
  }

  /** The script is done: start it over from an empty sandbox and run it whole. */
  async runAgain(): Promise<void> {
    if (this.busy) return;
    await this.reset();
    await this.run();
  }

  /** Closes the sandbox connection (before the sandbox store is deleted or renamed). */
  async close(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.toolset = null;
    this.phase = 'idle';
    await client?.close().catch(() => undefined);
  }

  /** Stops a Run after the call in flight. */
  stop(): void {
    this.stopRequested = true;
  }

  /** Clears the timeline and empties the sandbox store. */
  async reset(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.emptySandbox();
      this.timeline = [];
      this.cursor = 0;
      this.scratch = {};
      this.error = null;
    } catch (error) {
      this.error = describe(error);
    } finally {
      this.busy = false;
    }
  }

  private async runNext(): Promise<void> {
    if (!this.toolset) await this.open();
    const toolset = this.toolset;
    if (!toolset) return;
    try {
      // The script starts from an empty sandbox, whatever an earlier visit left there.
      if (this.cursor === 0) await this.emptySandbox();
      const step = SCRIPT[this.cursor]!;
      const args = step.args(this.scratch);
      const argumentsJson = typeof args === 'string' ? args : JSON.stringify(args, null, 2);
      const started = performance.now();
      const resultJson = await dispatchTool(toolset.tools, step.tool, argumentsJson);
      const ms = performance.now() - started;
      const errorCode = errorCodeOf(resultJson);
      if (!errorCode && step.keep) step.keep(JSON.parse(resultJson) as unknown, this.scratch);
      this.timeline = [
        ...this.timeline,
        { n: this.cursor + 1, say: step.say, tool: step.tool, argumentsJson, resultJson: pretty(resultJson), ok: errorCode === null, errorCode, ms },
      ];
      this.cursor++;
    } catch (error) {
      // dispatchTool never throws; this is the sandbox itself failing (storage, worker).
      this.error = describe(error);
    }
  }

  private async emptySandbox(): Promise<void> {
    const client = this.client;
    if (!client) return;
    for (;;) {
      const rows = await client.listRecent({ limit: 500, includeSuperseded: true, includeExpired: true });
      if (rows.length === 0) break;
      for (const m of rows) await client.forget(m.id);
    }
  }
}

export const agentDemo = new AgentDemoState();

// Deleting or renaming the sandbox from the store list: this page's own connection to it lets go first.
memory.beforeManage(async (name) => {
  if (name === SANDBOX_STORE) await agentDemo.close();
});
