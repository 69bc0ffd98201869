/**
 * The embedding models this project knows by name: what each is, how it pools, how long its
 * input may be, whether queries carry an instruction, and how many bytes its files take (the
 * files `npm run models` provisions; their SHA-256 pins live in scripts/models/manifest.json,
 * and test/models-real.test.ts checks that the two agree). Pure data: the app reads it for the
 * picker and the status pill, the embedders for their settings.
 */

export type TransformersModelKey = 'minilm' | 'bge-small';

export interface TransformersModelSpec {
  readonly key: TransformersModelKey;
  /** The transformers.js model id, also the folder under the models path. */
  readonly id: string;
  /** A short name for people. */
  readonly label: string;
  readonly dim: number;
  /** 'mean' over the tokens (sentence-transformers' MiniLM) or the [CLS] token (BGE). */
  readonly pooling: 'mean' | 'cls';
  /** Tokens kept per text, as the reference implementation truncates (sentence-transformers' max_seq_length). */
  readonly maxTokens: number;
  /** Prepended to queries only (asymmetric query/passage models); absent for symmetric models. */
  readonly queryInstruction?: string;
  /** Total bytes of the q8 files a browser downloads (config, tokenizer files, ONNX). */
  readonly bytes: number;
  readonly license: string;
}

export const TRANSFORMERS_MODELS: Readonly<Record<TransformersModelKey, TransformersModelSpec>> = {
  minilm: {
    key: 'minilm',
    id: 'Xenova/all-MiniLM-L6-v2',
    label: 'MiniLM-L6-v2',
    dim: 384,
    pooling: 'mean',
    maxTokens: 256,
    bytes: 650 + 366 + 711_661 + 22_972_370,
    license: 'Apache-2.0',
  },
  'bge-small': {
    key: 'bge-small',
    id: 'Xenova/bge-small-en-v1.5',
    label: 'bge-small-en-v1.5',
    dim: 384,
    pooling: 'cls',
    maxTokens: 512,
    queryInstruction: 'Represent this sentence for searching relevant passages: ',
    bytes: 683 + 366 + 711_396 + 34_014_426,
    license: 'MIT',
  },
};

const ALIASES: Record<string, TransformersModelKey> = {
  'Xenova/all-MiniLM-L6-v2': 'minilm',
  'sentence-transformers/all-MiniLM-L6-v2': 'minilm',
  'all-MiniLM-L6-v2': 'minilm',
  'Xenova/bge-small-en-v1.5': 'bge-small',
  'BAAI/bge-small-en-v1.5': 'bge-small',
  'bge-small-en-v1.5': 'bge-small',
};

/** The known model an embedder id (or an archive's model name) refers to, if any. */
export function knownModel(id: string): TransformersModelSpec | undefined {
  const key = ALIASES[id];
  return key ? TRANSFORMERS_MODELS[key] : undefined;
}
