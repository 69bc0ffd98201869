/**
 * Chat exports as the services describe them, for tests and the chat-import benchmark: a ChatGPT
 * data export's `conversations.json` (conversations whose messages form a tree, `mapping`, with
 * `current_node` the last message shown; a root node without a message, a system message, an
 * edited user message that left a second branch, a hidden node and an image part among them),
 * a Claude data export's `conversations.json` (`chat_messages` lists), and the JSONL form.
 */
export interface ChatTurn {
  speaker: 'user' | 'assistant';
  text: string;
  /** Unix seconds. */
  time: number;
}

export interface ChatConversation {
  id: string;
  title: string;
  turns: ChatTurn[];
}

/** One ChatGPT conversation: root → system → turns, with an abandoned edit beside the first user turn and a hidden node. */
export function chatgptConversation(conv: ChatConversation): Record<string, unknown> {
  const mapping: Record<string, unknown> = {};
  const node = (id: string, parent: string | null, message: Record<string, unknown> | null): void => {
    mapping[id] = { id, message, parent, children: [] };
    if (parent) (mapping[parent] as { children: string[] }).children.push(id);
  };
  const start = conv.turns[0]?.time ?? 1_700_000_000;
  node(`${conv.id}-root`, null, null);
  node(`${conv.id}-sys`, `${conv.id}-root`, { id: `${conv.id}-sys`, author: { role: 'system' }, create_time: null, content: { content_type: 'text', parts: [''] }, metadata: { is_visually_hidden_from_conversation: true } });
  let parent = `${conv.id}-sys`;
  conv.turns.forEach((turn, i) => {
    const id = `${conv.id}-m${i}`;
    if (i === 0) {
      // The first question as first typed, then edited: its branch is not the one shown.
      node(`${id}-old`, parent, { id: `${id}-old`, author: { role: 'user' }, create_time: turn.time - 5, content: { content_type: 'text', parts: ['an abandoned draft of the question'] }, metadata: {} });
    }
    const parts: unknown[] = [turn.text];
    if (i === 1) parts.unshift({ content_type: 'image_asset_pointer', asset_pointer: 'file-service://x' });
    node(id, parent, {
      id,
      author: { role: turn.speaker, name: null, metadata: {} },
      create_time: turn.time,
      content: { content_type: i === 1 ? 'multimodal_text' : 'text', parts },
      metadata: {},
    });
    parent = id;
  });
  return { title: conv.title, create_time: start, update_time: start + 60, mapping, current_node: parent, conversation_id: conv.id, id: conv.id };
}

export const chatgptExport = (convs: ChatConversation[]): string => JSON.stringify(convs.map(chatgptConversation));

export function claudeExport(convs: ChatConversation[]): string {
  const iso = (t: number): string => new Date(t * 1000).toISOString();
  return JSON.stringify(
    convs.map((c) => ({
      uuid: c.id,
      name: c.title,
      created_at: iso(c.turns[0]?.time ?? 0),
      updated_at: iso(c.turns.at(-1)?.time ?? 0),
      account: { uuid: 'acct' },
      chat_messages: c.turns.map((t, i) => ({
        uuid: `${c.id}-${i}`,
        // Newer exports leave `text` empty and put the words in `content`.
        text: i % 2 === 0 ? t.text : '',
        content: [{ type: 'text', text: t.text }],
        sender: t.speaker === 'user' ? 'human' : 'assistant',
        created_at: iso(t.time),
        updated_at: iso(t.time),
        attachments: [],
        files: [],
      })),
    })),
  );
}

export function jsonlExport(convs: ChatConversation[], names = { user: 'Dana', assistant: 'Assistant' }): string {
  return convs.flatMap((c) => c.turns.map((t) => JSON.stringify({ speaker: names[t.speaker], time: t.time, text: t.text, conversation: c.title }))).join('\n') + '\n';
}

const TOPICS = ['the trip to Lisbon', 'the kitchen renovation', 'my sourdough starter', 'the quarterly budget', 'learning Rust', 'the dentist appointment', "Kwame's birthday", 'the garden beds'];

/** `n` messages in conversations of 20, alternating user and assistant, a minute apart. */
export function syntheticConversations(n: number, start = 1_700_000_000): ChatConversation[] {
  const convs: ChatConversation[] = [];
  for (let i = 0; i < n; i++) {
    const c = Math.floor(i / 20);
    if (!convs[c]) convs[c] = { id: `conv-${c}`, title: `About ${TOPICS[c % TOPICS.length]} (${c})`, turns: [] };
    const topic = TOPICS[c % TOPICS.length]!;
    const speaker = i % 2 === 0 ? 'user' : 'assistant';
    const text = speaker === 'user' ? `Question ${i} about ${topic}: what should I do next?` : `Answer ${i}: for ${topic}, start with step ${i % 7} and check it on day ${i % 30}.`;
    convs[c]!.turns.push({ speaker, text, time: start + c * 86_400 + (i % 20) * 60 });
  }
  return convs;
}

/** Two short conversations of 2024-04 (a trip, a language), the tests' and the e2e spec's sample. */
export const SAMPLE_T0 = 1_714_000_000;
export const SAMPLE_CONVERSATIONS: ChatConversation[] = [
  {
    id: 'c-trip',
    title: 'Lisbon trip',
    turns: [
      { speaker: 'user', text: 'I want to visit Lisbon in May with my sister Ama.', time: SAMPLE_T0 },
      { speaker: 'assistant', text: 'Stay in Alfama and take tram 28 early in the morning.', time: SAMPLE_T0 + 60 },
      { speaker: 'user', text: 'We booked the Hotel Mirador for the 12th to the 15th.', time: SAMPLE_T0 + 120 },
    ],
  },
  {
    id: 'c-rust',
    title: 'Learning Rust',
    turns: [
      { speaker: 'user', text: 'Explain borrowing in Rust in one line.', time: SAMPLE_T0 + 3 * 86_400 },
      { speaker: 'assistant', text: 'A borrow lends a value without giving up ownership.', time: SAMPLE_T0 + 3 * 86_400 + 30 },
    ],
  },
];
