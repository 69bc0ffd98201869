import { openMemory } from 'houkai-web/extension';

// A content script recalls through the extension's offscreen document (untrusted, namespace web).
async function run() {
  const memory = await openMemory({ embedder: 'minilm' });
  const [hit] = await memory.recall('how many reviewers does a pull request need?');
  await memory.close();
  return { first: hit?.memory.text ?? null, score: hit?.score ?? null };
}

run().then(
  (result) => (document.documentElement.dataset.houkai = JSON.stringify(result)),
  (error) => (document.documentElement.dataset.houkai = JSON.stringify({ error: `${error.code ?? 'ERROR'}: ${error.message}` })),
);
