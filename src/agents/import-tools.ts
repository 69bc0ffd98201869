/**
 * Bringing an agent's past conversations in: `import_chats` takes a ChatGPT or Claude export's
 * `conversations.json` text, or JSONL lines of `{ speaker, time, text, conversation }`, and stores
 * each message as an episodic memory (`importChats`). Not in AI-Houkai's server: an addition. It
 * writes, so a read-only toolset does not offer it; a connection below `trusted` imports at its
 * ceiling, and one scoped to a namespace is refused, as archive imports are.
 */
import type { ChatFormat } from '../core/chats/formats.ts';
import { CHAT_FORMATS } from '../core/chats/formats.ts';
import { boolean, choice, objectSchema, string, strings, type Context, type ToolSpec } from './tool-kit.ts';

export const IMPORT_TOOL_NAMES = ['import_chats'] as const;
export type ImportToolName = (typeof IMPORT_TOOL_NAMES)[number];

export function importTools(ctx: Context): Record<ImportToolName, ToolSpec> {
  const { client } = ctx;
  return {
    import_chats: {
      name: 'import_chats',
      description:
        'Import past conversations as memories: a ChatGPT or Claude data export\'s conversations.json (its text), or JSONL lines of {"speaker","time","text","conversation"} (time in Unix seconds or ISO). Each message becomes an episodic memory with its speaker, time and conversation; messages already imported are skipped; dry_run only counts. Returns {format, conversations, messages, imported, skipped, empty_messages, from, to, speakers, errors}.',
      destructive: false,
      idempotent: true,
      inputSchema: objectSchema(
        {
          data: string('The export: conversations.json text, or JSONL lines.', { minLength: 1 }),
          format: choice(CHAT_FORMATS, 'The export format; detected when omitted.'),
          user_name: string("Name for the person's messages (ChatGPT, Claude). Default 'User'."),
          assistant_name: string("Name for the assistant's messages. Default 'ChatGPT' or 'Claude'."),
          tags: strings('Tags added to every imported message (besides "chat" and the format).'),
          dry_run: boolean('Only read and count; store nothing. Default false.'),
        },
        ['data'],
      ),
      async run(args) {
        const r = await client.importChats(args.data as string, {
          ...(args.format === undefined ? {} : { format: args.format as ChatFormat }),
          ...(args.user_name === undefined && args.assistant_name === undefined
            ? {}
            : { speakers: { ...(args.user_name === undefined ? {} : { user: args.user_name as string }), ...(args.assistant_name === undefined ? {} : { assistant: args.assistant_name as string }) } }),
          ...(args.tags === undefined ? {} : { tags: args.tags as string[] }),
          dryRun: (args.dry_run as boolean | undefined) ?? false,
        });
        return {
          format: r.format,
          conversations: r.conversations,
          messages: r.messages,
          imported: r.imported,
          skipped: r.skipped,
          empty_messages: r.emptyMessages,
          from: r.from,
          to: r.to,
          speakers: r.speakers,
          errors: r.errors,
        };
      },
    },
  };
}
