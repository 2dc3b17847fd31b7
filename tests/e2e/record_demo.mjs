// Records the demo bundle (demo/example-bundle.json) and the real-model check of issue 6:
// SmolLM2-135M-Instruct served by llama-cpp-python (an OpenAI-compatible server with CORS)
// rates the built-in example, and optionally N Topical-Chat items, through the app itself.
// Not part of the test suite (it needs the model server):
//   LLM_URL=http://127.0.0.1:8099/v1 CONCORD_URL=http://127.0.0.1:18080/ node tests/e2e/record_demo.mjs [demo|topical N]
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, CONCORD_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const LLM_URL = process.env.LLM_URL ?? 'http://127.0.0.1:8099/v1';
const [mode = 'demo', count = '50'] = process.argv.slice(2);
const browser = await launch();
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  const data = new DataPage(page);
  await data.open(CONCORD_URL);
  if (mode === 'topical') {
    await data.fileInput.setInputFiles(join(here, '../../../shared/data/A-Closer-Look-To-LLM-Evaluation/data/topical_chat.json'));
    await page.getByTestId('dataset-name').filter({ hasText: 'topical_chat.json' }).waitFor({ timeout: 60_000 });
  }
  const judge = new JudgePage(page);
  await judge.open();
  await page.getByLabel('Max tokens').fill('48');
  await judge.addMethods({ modes: mode === 'demo' ? ['score-only', 'rate-explain'] : ['rate-explain'], n: mode === 'demo' ? 2 : 1, temperatures: '0.7', parser: 'concord' });
  const run = new RunPage(page);
  await run.open();
  await run.connect({ provider: 'llamacpp', baseUrl: LLM_URL, model: 'smollm2', concurrency: 1, itemLimit: mode === 'topical' ? Number(count) : undefined });
  const started = Date.now();
  await run.run();
  const finished = await run.waitFinished(3_600_000);
  const seconds = (Date.now() - started) / 1000;
  console.log(finished);
  console.log(await run.progress.innerText());
  console.log(`wall time ${seconds.toFixed(0)} s`);
  const results = new ResultsPage(page);
  await results.open();
  await results.setBaseline(mode === 'demo' ? 'score-only' : 'rate-explain');
  console.log(JSON.stringify(await results.cells()));
  await page.getByText('Parse failures').click();
  console.log(await page.getByTestId('parse-failures').innerText());
  const download = await results.exportBundle();
  const out = mode === 'demo' ? join(here, '../../demo/example-bundle.json') : join(mkdtempSync(join(tmpdir(), 'concord-smollm-')), 'bundle.json');
  await download.saveAs(out);
  console.log(`bundle: ${out}`);
} finally {
  await browser.close();
}
