/**
 * Chat exports read into messages (#53 item 6), pure: a ChatGPT data export's
 * `conversations.json` (each conversation a tree of message nodes, `mapping`; the branch the
 * person last saw is the path from `current_node` up to the root), a Claude data export's
 * `conversations.json` (each conversation a list, `chat_messages`), and a JSONL of
 * `{ speaker, time, text, conversation }` (one message a line; `id` optional). Built from the
 * formats' public descriptions. Messages that carry no words a person wrote or read (system and
 * tool messages, hidden nodes, images, empty parts) are counted as skipped; anything malformed is
 * an `INVALID_CHATS` error naming the conversation and node, or the line, before anything is
 * written.
 */
import { describe } from '../domain/describe.ts';
import { MemoryError } from '../errors.ts';

export const CHAT_FORMATS = ['chatgpt', 'claude', 'jsonl'] as const;
export type ChatFormat = (typeof CHAT_FORMATS)[number];

export interface ChatMessage {
  /** The conversation's id (ChatGPT, Claude) or name (JSONL). */
  conversation: string;
  /** The conversation's title, when the export has one. */
  title: string | null;
  /** The message's own id, when the export has one (re-imports match on it). */
  messageId: string | null;
  speaker: string;
  /** When it was said, Unix seconds. */
  time: number;
  text: string;
  /** Where in the file: `conversations[3].mapping["node-id"]`, `line 12`. */
  where: string;
}

export interface ParsedChats {
  format: ChatFormat;
  messages: ChatMessage[];
  conversations: number;
  /** Messages left out because they hold nothing to remember (system, tool, hidden, empty, images only). */
  skipped: number;
}

export interface SpeakerNames {
  /** Name for the person's own messages (default 'User'). */
  user?: string;
  /** Name for the assistant's (default 'ChatGPT' or 'Claude' by format). */
  assistant?: string;
}

export const chatError = (where: string, message: string, details: Record<string, unknown> = {}): MemoryError =>
  new MemoryError('INVALID_CHATS', `${where}: ${message}`, { where, ...details });

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Seconds from a number of seconds or an ISO date string; a value that reads as milliseconds is refused. */
function secondsOf(value: unknown, where: string, field: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value > 1e11) throw chatError(where, `${field} ${value} reads as milliseconds: give Unix seconds, not milliseconds`, { field });
    if (value < 0) throw chatError(where, `${field} must not be before 1970 — got ${value}`, { field });
    return value;
  }
  if (typeof value === 'string' && value.trim() !== '') {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  throw chatError(where, `${field} must be Unix seconds or an ISO date — got ${describe(value)}`, { field });
}

/** Which export a text holds: a JSON array of ChatGPT or Claude conversations, else JSONL. */
export function detectFormat(text: string, parsed: unknown): ChatFormat {
  if (Array.isArray(parsed)) {
    const first = parsed.find(isObject);
    if (!first) throw chatError('conversations', 'an empty list: no conversation to import');
    if ('mapping' in first) return 'chatgpt';
    if ('chat_messages' in first) return 'claude';
    throw chatError('conversations[0]', 'neither a ChatGPT conversation (no "mapping") nor a Claude one (no "chat_messages")');
  }
  if (text.trimStart().startsWith('{')) return 'jsonl';
  throw chatError('file', 'not a chat export: expected a conversations.json (a JSON list) or JSONL lines of { speaker, time, text, conversation }');
}

/** The words of a ChatGPT message's content: its string parts (and `text` content), images and tool payloads left out. */
function chatgptText(content: unknown): string {
  if (!isObject(content)) return '';
  const type = content['content_type'];
  if (type !== undefined && type !== 'text' && type !== 'multimodal_text') return '';
  if (Array.isArray(content['parts'])) return content['parts'].filter((p): p is string => typeof p === 'string').join('\n').trim();
  return typeof content['text'] === 'string' ? content['text'].trim() : '';
}

export function readChatGpt(conversations: unknown[], names: SpeakerNames = {}): ParsedChats {
  const messages: ChatMessage[] = [];
  let skipped = 0;
  conversations.forEach((conv, c) => {
    const at = `conversations[${c}]`;
    if (!isObject(conv)) throw chatError(at, `a conversation must be an object — got ${describe(conv)}`);
    const mapping = conv['mapping'];
    if (!isObject(mapping)) throw chatError(at, '"mapping" (its messages) is missing or not an object');
    const id = typeof conv['conversation_id'] === 'string' ? conv['conversation_id'] : typeof conv['id'] === 'string' ? conv['id'] : `#${c}`;
    const title = typeof conv['title'] === 'string' && conv['title'].trim() ? conv['title'].trim() : null;
    const fallbackTime = conv['create_time'] ?? null;
    // The branch the person last saw: current_node up to the root. Without one, every node by time.
    let order: string[];
    const current = conv['current_node'];
    if (typeof current === 'string' && current in mapping) {
      order = [];
      const seen = new Set<string>();
      for (let node: string | null = current; node !== null; ) {
        if (seen.has(node)) throw chatError(`${at}.mapping["${node}"]`, 'its parents loop back to it');
        seen.add(node);
        order.push(node);
        const entry: unknown = mapping[node];
        if (!isObject(entry)) throw chatError(`${at}.mapping["${node}"]`, 'a node must be an object');
        const parent = entry['parent'];
        node = typeof parent === 'string' && parent in mapping ? parent : null;
      }
      order.reverse();
    } else order = Object.keys(mapping);
    const found: ChatMessage[] = [];
    for (const nodeId of order) {
      const where = `${at}.mapping["${nodeId}"]`;
      const node = mapping[nodeId];
      if (!isObject(node)) throw chatError(where, 'a node must be an object');
      const message = node['message'];
      if (message === null || message === undefined) continue; // the root
      if (!isObject(message)) throw chatError(where, `"message" must be an object — got ${describe(message)}`);
      const author = message['author'];
      const role = isObject(author) ? author['role'] : undefined;
      if (typeof role !== 'string') throw chatError(where, 'the message has no author role');
      const meta = isObject(message['metadata']) ? message['metadata'] : {};
      const text = chatgptText(message['content']);
      if ((role !== 'user' && role !== 'assistant') || meta['is_visually_hidden_from_conversation'] === true || text === '') {
        skipped += 1;
        continue;
      }
      const time = secondsOf(message['create_time'] ?? fallbackTime, where, 'create_time');
      found.push({ conversation: id, title, messageId: typeof message['id'] === 'string' ? message['id'] : nodeId, speaker: role === 'user' ? (names.user ?? 'User') : (names.assistant ?? 'ChatGPT'), time, text, where });
    }
    if (typeof current !== 'string') found.sort((a, b) => a.time - b.time);
    messages.push(...found);
  });
  return { format: 'chatgpt', messages, conversations: conversations.length, skipped };
}

export function readClaude(conversations: unknown[], names: SpeakerNames = {}): ParsedChats {
  const messages: ChatMessage[] = [];
  let skipped = 0;
  conversations.forEach((conv, c) => {
    const at = `conversations[${c}]`;
    if (!isObject(conv)) throw chatError(at, `a conversation must be an object — got ${describe(conv)}`);
    const list = conv['chat_messages'];
    if (!Array.isArray(list)) throw chatError(at, '"chat_messages" is missing or not a list');
    const id = typeof conv['uuid'] === 'string' ? conv['uuid'] : `#${c}`;
    const title = typeof conv['name'] === 'string' && conv['name'].trim() ? conv['name'].trim() : null;
    list.forEach((message, m) => {
      const where = `${at}.chat_messages[${m}]`;
      if (!isObject(message)) throw chatError(where, `a message must be an object — got ${describe(message)}`);
      const sender = message['sender'];
      if (typeof sender !== 'string') throw chatError(where, 'the message has no "sender"');
      let text = typeof message['text'] === 'string' ? message['text'].trim() : '';
      if (!text && Array.isArray(message['content'])) {
        text = message['content'].filter((p): p is Record<string, unknown> => isObject(p) && p['type'] === 'text' && typeof p['text'] === 'string').map((p) => p['text'] as string).join('\n').trim();
      }
      if ((sender !== 'human' && sender !== 'assistant') || text === '') {
        skipped += 1;
        return;
      }
      const time = secondsOf(message['created_at'] ?? conv['created_at'], where, 'created_at');
      messages.push({ conversation: id, title, messageId: typeof message['uuid'] === 'string' ? message['uuid'] : null, speaker: sender === 'human' ? (names.user ?? 'User') : (names.assistant ?? 'Claude'), time, text, where });
    });
  });
  return { format: 'claude', messages, conversations: conversations.length, skipped };
}

export function readJsonl(text: string): ParsedChats {
  const messages: ChatMessage[] = [];
  const conversations = new Set<string>();
  let skipped = 0;
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const where = `line ${i + 1}`;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw chatError(where, `not JSON (${(error as Error).message})`, { line: i + 1 });
    }
    if (!isObject(row)) throw chatError(where, `a line must be an object { speaker, time, text, conversation } — got ${describe(row)}`, { line: i + 1 });
    const { speaker, text: said, conversation } = row;
    if (typeof speaker !== 'string' || speaker.trim() === '') throw chatError(where, `"speaker" must be a non-empty string — got ${describe(speaker)}`, { line: i + 1, field: 'speaker' });
    if (typeof said !== 'string') throw chatError(where, `"text" must be a string — got ${describe(said)}`, { line: i + 1, field: 'text' });
    if (conversation !== undefined && (typeof conversation !== 'string' || conversation.trim() === '')) throw chatError(where, `"conversation" must be a non-empty string — got ${describe(conversation)}`, { line: i + 1, field: 'conversation' });
    const time = secondsOf(row['time'], where, 'time');
    if (said.trim() === '') {
      skipped += 1;
      return;
    }
    const conv = typeof conversation === 'string' ? conversation.trim() : 'chat';
    conversations.add(conv);
    const id = row['id'];
    messages.push({ conversation: conv, title: conv, messageId: typeof id === 'string' || typeof id === 'number' ? String(id) : null, speaker: speaker.trim(), time, text: said.trim(), where });
  });
  return { format: 'jsonl', messages, conversations: conversations.size, skipped };
}

/** Reads an export's text in the given or detected format. */
export function readChats(text: string, options: { format?: ChatFormat; names?: SpeakerNames } = {}): ParsedChats {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let parsed: unknown = undefined;
  const start = body.trimStart();
  if (options.format !== 'jsonl' && start.startsWith('[')) {
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      throw chatError('conversations.json', `not valid JSON (${(error as Error).message})`);
    }
  } else if (options.format !== 'jsonl' && start.startsWith('{')) {
    // One JSON value spread over lines: a single conversation, or `{ conversations: [...] }`. JSONL
    // fails this parse at its second line, and is read as JSONL below.
    try {
      const whole: unknown = JSON.parse(body);
      if (isObject(whole) && ('mapping' in whole || 'chat_messages' in whole)) parsed = [whole];
      else if (isObject(whole) && Array.isArray(whole['conversations'])) parsed = whole['conversations'];
    } catch {
      /* JSONL */
    }
  }
  const format = options.format ?? detectFormat(body, parsed);
  if (format === 'jsonl') return readJsonl(body);
  if (!Array.isArray(parsed)) throw chatError('conversations.json', `a ${format === 'chatgpt' ? 'ChatGPT' : 'Claude'} export is a JSON list of conversations`);
  return format === 'chatgpt' ? readChatGpt(parsed, options.names) : readClaude(parsed, options.names);
}
