/**
 * WebMCP: offers the memory tools to the browser's agents (the browser's own assistant, an
 * extension, DevTools) through the page's model context, so an agent visiting the page can
 * remember and recall through it.
 *
 * API shape implemented (WebMCP Community Group draft, webmachinelearning/webmcp `index.bs` after
 * PR #147 "registerTool() takes an optional AbortSignal", and the imperative-API WPT tests under
 * `web-platform-tests/webmcp/imperative/`, e.g. `register_tool_signal.https.html`):
 *
 * ```webidl
 * partial interface Document { readonly attribute ModelContext modelContext; }  // was navigator.modelContext
 * interface ModelContext {
 *   Promise<undefined> registerTool(ModelContextTool tool, optional ModelContextRegisterToolOptions options = {});
 * };
 * dictionary ModelContextRegisterToolOptions { AbortSignal signal; };     // aborting it unregisters the tool
 * dictionary ModelContextTool {
 *   required DOMString name; required DOMString description; object inputSchema;
 *   required ToolExecuteCallback execute; ToolAnnotations annotations;
 * };
 * dictionary ToolAnnotations { boolean readOnlyHint = false; };
 * callback ToolExecuteCallback = Promise<any> (object input, ModelContextClient client);
 * ```
 *
 * Older implementations and polyfills differ, and all of them are handled: `navigator.modelContext`
 * instead of `document.modelContext`; `registerTool` returning nothing, a promise, or a
 * `{ unregister() }` handle; `unregisterTool(name)` instead of (or besides) the signal. On abort every
 * tool is unregistered by all the means the context offers (errors from the redundant ones, such as
 * `InvalidStateError` for a tool the signal already removed, are ignored). `execute` answers with an
 * MCP `CallToolResult`, `{ content: [{ type: 'text', text }], isError? }`, whose text is the
 * dispatcher's JSON (the form the MCP-B polyfill and MCP bridges expect; a native agent reads the text).
 */
import { MemoryError } from '../core/errors.ts';
import type { MemoryApi } from '../core/api.ts';
import type { CallToolResult, ObjectSchema } from './dispatch.ts';
import { memoryTools, type MemoryToolsOptions } from './tools.ts';

/** The tool descriptor handed to `registerTool`. */
export interface WebMcpToolDescriptor {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  annotations: { readOnlyHint: boolean };
  /** Called by the agent with the parsed arguments (a JSON string is accepted too). */
  execute(input: unknown, client?: unknown): Promise<CallToolResult>;
}

/** What this module needs of a model context: the draft's `registerTool`, optionally the older `unregisterTool`. */
export interface ModelContextLike {
  registerTool(tool: WebMcpToolDescriptor, options?: { signal?: AbortSignal }): unknown;
  unregisterTool?(name: string): unknown;
}

export interface RegisterMemoryToolsOptions extends Pick<MemoryToolsOptions, 'include' | 'actor' | 'readOnly' | 'now'> {
  /** Aborting it unregisters every tool registered here. */
  signal?: AbortSignal;
  /** The model context to register with (a polyfill, a test stub); default `document.modelContext`, then `navigator.modelContext`. */
  modelContext?: ModelContextLike;
}

export interface MemoryToolsRegistration {
  /** The tools registered, in order. */
  readonly names: readonly string[];
  readonly modelContext: ModelContextLike;
  /** True once the tools were unregistered (by `unregister()` or the signal). */
  readonly unregistered: boolean;
  /** Unregisters every tool; idempotent. Same as aborting the signal. */
  unregister(): void;
}

interface Handle {
  unregister(): unknown;
}

interface Entry {
  name: string;
  /** Its signal went to `registerTool`: aborting it unregisters the tool (the current draft). */
  controller: AbortController;
  /** A `{ unregister() }` handle, when the context returned one. */
  handle?: Handle;
}

function isModelContext(value: unknown): value is ModelContextLike {
  return value !== null && typeof value === 'object' && typeof (value as { registerTool?: unknown }).registerTool === 'function';
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

function isHandle(value: unknown): value is Handle {
  return value !== null && typeof value === 'object' && typeof (value as { unregister?: unknown }).unregister === 'function';
}

/** The page's model context: `document.modelContext` (current draft), else `navigator.modelContext` (earlier drafts, polyfills), else undefined. */
export function findModelContext(): ModelContextLike | undefined {
  const scope = globalThis as { document?: { modelContext?: unknown }; navigator?: { modelContext?: unknown } };
  const fromDocument = scope.document?.modelContext;
  if (isModelContext(fromDocument)) return fromDocument;
  const fromNavigator = scope.navigator?.modelContext;
  if (isModelContext(fromNavigator)) return fromNavigator;
  return undefined;
}

/**
 * Registers the memory tools with the page's model context. Read tools carry
 * `annotations.readOnlyHint: true`. Every call goes through the same validating dispatcher as
 * {@link memoryTools}' `dispatch`.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * await registerMemoryTools(memory, { signal: controller.signal, actor: 'webmcp', readOnly: true });
 * // later, e.g. when the user turns agent access off:
 * controller.abort();
 * ```
 * @throws MemoryError INVALID_ARGUMENT when no model context is available (pass `modelContext`
 *   with a polyfill) or the options are bad; ABORTED when the signal fired before or during
 *   registration; the model context's own error when it refuses a tool (e.g. a name already
 *   registered), after unregistering the tools registered so far.
 */
export async function registerMemoryTools(client: MemoryApi, options: RegisterMemoryToolsOptions = {}): Promise<MemoryToolsRegistration> {
  const { signal, modelContext, ...toolOptions } = options;
  const context = modelContext ?? findModelContext();
  if (!isModelContext(context)) {
    throw new MemoryError(
      'INVALID_ARGUMENT',
      modelContext === undefined
        ? 'This page has no WebMCP model context (document.modelContext or navigator.modelContext); pass { modelContext } with a polyfill'
        : 'modelContext must have a registerTool(tool, options) method',
      { field: 'modelContext' },
    );
  }
  if (signal?.aborted) throw new MemoryError('ABORTED', 'The registration was cancelled before it started');
  const toolset = memoryTools(client, toolOptions);

  // One controller per tool (the draft's way to unregister it); one shared signal would collect
  // a listener per tool, which Node reports as a possible leak past ten.
  const registered: Entry[] = [];
  let done = false;

  const release = (entry: Entry): void => {
    entry.controller.abort();
    if (entry.handle) {
      try {
        entry.handle.unregister();
      } catch {
        // already gone
      }
    }
    if (typeof context.unregisterTool === 'function') {
      try {
        const result = context.unregisterTool(entry.name);
        if (isPromiseLike(result)) result.then(undefined, () => undefined);
      } catch {
        // already removed by the signal (the current draft), or never registered
      }
    }
  };

  function unregister(): void {
    if (done) return;
    done = true;
    signal?.removeEventListener('abort', unregister);
    for (const entry of [...registered].reverse()) release(entry);
  }
  signal?.addEventListener('abort', unregister, { once: true });

  for (const tool of toolset.tools) {
    if (done) break;
    const descriptor: WebMcpToolDescriptor = {
      name: tool.name,
      description: tool.description,
      inputSchema: structuredClone(tool.inputSchema),
      annotations: { readOnlyHint: tool.readOnly },
      execute: (input: unknown) => toolset.call(tool.name, input as string | Record<string, unknown> | null | undefined),
    };
    const entry: Entry = { name: tool.name, controller: new AbortController() };
    registered.push(entry);
    try {
      let returned = context.registerTool(descriptor, { signal: entry.controller.signal });
      if (isHandle(returned)) entry.handle = returned;
      if (isPromiseLike(returned)) returned = await returned;
      if (isHandle(returned)) entry.handle = returned;
      if (done) release(entry); // a handle that arrived after an abort
    } catch (error) {
      if (done) break; // aborted mid-registration: the rejection is the abort itself
      registered.pop(); // refused: nothing to undo for this one
      unregister();
      throw error;
    }
  }
  if (done) throw new MemoryError('ABORTED', 'The registration was cancelled; every tool registered so far was unregistered');

  const names = Object.freeze(registered.map((r) => r.name));
  return {
    names,
    modelContext: context,
    get unregistered() {
      return done;
    },
    unregister,
  };
}
