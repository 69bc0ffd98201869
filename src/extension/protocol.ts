/**
 * What the extension's contexts say to each other. The memory and the tools travel on
 * `chrome.runtime` ports (comlink through `portEndpoint`); the few one-shot messages are below.
 */
import type { OpenRequest } from '../rpc/protocol.ts';
import type { Trust } from '../core/types.ts';

/** A port to the memory host (the offscreen document bridges it to the memory worker). */
export const MEMORY_PORT = 'houkai:memory';
/** A port to the agent tools host (dispatchTool next to the memory). */
export const TOOLS_PORT = 'houkai:tools';

/** The store every context of this extension shares, opened on the bundled model. */
export const STORE: Omit<OpenRequest, 'scope'> = { name: 'extension', embedder: 'use-lite', actor: 'extension' };

/** Tag on everything a content script keeps from a page. */
export const PAGE_TAG = 'web-page';

/** The namespace every content script is confined to (its memories carry the tag `ns:web`). */
export const PAGE_NAMESPACE = 'web';

/** To the background service worker: make sure the offscreen document runs. */
export interface EnsureHostMessage {
  type: 'houkai:ensure-host';
}
/** From the offscreen document to the background: its listeners are in place. */
export interface HostReadyMessage {
  type: 'houkai:host-ready';
}
/** To a tab's content script: keep the selection (or the page's gist). */
export interface CaptureMessage {
  type: 'houkai:capture';
}
/** To a tab's content script: recall what relates to this page. */
export interface RelatedMessage {
  type: 'houkai:related';
  k?: number;
}

export type Failure = { ok: false; code: string; message: string };
export type CaptureReply = { ok: true; id: string; text: string; trust: Trust } | Failure;
export interface RelatedHit {
  id: string;
  text: string;
  trust: Trust;
  score: number;
}
export type RelatedReply = { ok: true; query: string; hits: RelatedHit[] } | Failure;

export function isMessage<T extends { type: string }>(value: unknown, type: T['type']): value is T {
  return value !== null && typeof value === 'object' && (value as { type?: unknown }).type === type;
}

/** A failure as plain data, keeping a MemoryError's code. */
export function failure(error: unknown): Failure {
  const e = error as { code?: unknown; message?: unknown } | null;
  return {
    ok: false,
    code: e && typeof e.code === 'string' ? e.code : 'INTERNAL',
    message: e && typeof e.message === 'string' ? e.message : String(error),
  };
}
