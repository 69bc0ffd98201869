import { openMemory } from 'houkai-web/extension';

const out = document.querySelector('#out');

async function run() {
  // MiniLM from the extension's models/ folder (npx houkai-web models dist/models).
  const memory = await openMemory({ embedder: 'minilm' });
  // Content scripts only read what carries the tag ns:web; these two are meant for them.
  await memory.remember('Code reviews need two approvals before merging.', { tags: ['ns:web'] });
  await memory.remember('The standup moved to 10:00 on Tuesdays.', { tags: ['ns:web'] });
  const count = await memory.count();
  await memory.close();
  return { remembered: count };
}

run().then(
  (result) => {
    out.textContent = JSON.stringify(result);
    document.body.dataset.status = 'done';
  },
  (error) => {
    out.textContent = `${error.code ?? 'ERROR'}: ${error.message}`;
    document.body.dataset.status = 'failed';
  },
);
