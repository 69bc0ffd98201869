/**
 * The few extension APIs this extension uses, typed structurally (the project does not depend
 * on @types/chrome). Each context only has part of them: an offscreen document has `runtime`
 * alone, a content script `runtime` without `getContexts`.
 */
import type { RuntimePort } from '../transport/port-endpoint.ts';

export interface MessageSender {
  id?: string;
  url?: string;
  origin?: string;
  tab?: { id?: number };
}

export interface ExtensionPort extends RuntimePort {
  readonly sender?: MessageSender;
}

interface ChromeEvent<F> {
  addListener(listener: F): void;
  removeListener(listener: F): void;
}

export type MessageListener = (message: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => boolean | undefined;

export interface Tab {
  id?: number;
  title?: string;
}

export interface ChromeApi {
  runtime: {
    readonly id: string;
    getURL(path: string): string;
    connect(info: { name: string }): ExtensionPort;
    sendMessage(message: unknown): Promise<unknown>;
    getContexts(filter: { contextTypes: string[]; documentUrls?: string[] }): Promise<unknown[]>;
    readonly onConnect: ChromeEvent<(port: ExtensionPort) => void>;
    readonly onMessage: ChromeEvent<MessageListener>;
  };
  offscreen: {
    createDocument(parameters: { url: string; reasons: string[]; justification: string }): Promise<void>;
  };
  /** Host access asked for at run time (`optional_host_permissions`); `request` needs a user gesture. */
  permissions: {
    request(permissions: { origins: string[] }): Promise<boolean>;
    contains(permissions: { origins: string[] }): Promise<boolean>;
  };
  tabs: {
    query(query: { active?: boolean; currentWindow?: boolean }): Promise<Tab[]>;
    sendMessage(tabId: number, message: unknown): Promise<unknown>;
  };
}

export const chrome = (globalThis as unknown as { chrome: ChromeApi }).chrome;
