import { connectMemory } from 'houkai-web';

const out = document.querySelector('#out');

async function run() {
  // MiniLM from a folder of this site's choosing (npx houkai-web models site/assets/models; the
  // default is /models/), and the worker that `npx houkai-web worker site/houkai` copied, which
  // this bundler does not bundle.
  const memory = await connectMemory({ name: 'example', embedder: 'minilm', models: './assets/models/', workerUrl: '/houkai/memory.worker.js' });
  await memory.remember('The standup moved to 10:00 on Tuesdays.');
  await memory.remember('Code reviews need two approvals before merging.');
  const [hit] = await memory.recall('how many reviewers does a pull request need?');
  const { embedder } = await memory.stats();
  await memory.close();
  return { first: hit.memory.text, score: hit.score, confidence: hit.confidence, embedder: embedder.id };
}

run().then(
  (result) => {
    out.textContent = JSON.stringify(result, null, 2);
    document.body.dataset.status = 'done';
  },
  (error) => {
    out.textContent = `${error.code ?? 'ERROR'}: ${error.message}`;
    document.body.dataset.status = 'failed';
  },
);
