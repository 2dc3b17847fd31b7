// Batch runs that survive the real APIs (issue 35): a parameter the provider refuses in every
// line is read from the failed lines, kept with the batch, and the re-run is built without it;
// Anthropic's batches through a CORS proxy marked "a proxy for Anthropic" are keyed to
// Anthropic's own address, so a later interactive run (directly or through the proxy) finds
// every answer stored and pays nothing twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';
import { checkUntil } from './pages/batches_page.mjs';

const summary = async () => (await fetch(`${MOCK_URL}/__mock/summary`)).json();
const echo = { mode: 'echo_rating', marker: 'RATING=' };


async function setUp(page, { weighted }) {
  await new DataPage(page).open(CONCORD_URL);
  await new DataPage(page).loadFile('graded.csv', gradedCsv());
  const judge = new JudgePage(page);
  await judge.open();
  if (weighted) await page.getByTestId('weighted').check();
  await judge.addMethods({ modes: ['score-only'], n: 1 });
  const run = new RunPage(page);
  await run.open();
  return run;
}

test('a parameter refused in every batch line is kept with the batch and the re-run is built without it', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ reply: echo, batch: { ms: 1500 }, reject_params: ['logprobs'] });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const run = await setUp(page, { weighted: true });
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'gpt-4o-mini', key: 'sk-b' });
    await page.getByTestId('run-mode').selectOption('batch');
    await page.getByRole('button', { name: 'Submit batch' }).click();
    await run.finished.filter({ hasText: 'Submitted 1 batch (60 requests)' }).waitFor({ timeout: 60_000 });
    const first = await checkUntil(page, /· collected:/);
    assert.match(first, /collected: 0 answers stored, 60 requests without an answer/);
    const refused = await page.getByTestId('batch').first().getByTestId('batch-rejected').innerText();
    assert.match(refused, /The API refused `logprobs` — a re-run of this model is built without it/);
    assert.match(refused, /Unsupported parameter: 'logprobs' is not supported with this model/);

    await page.getByRole('button', { name: 'Re-run failed as a new batch' }).click();
    await run.finished.filter({ hasText: 'Submitted 1 batch (60 requests)' }).waitFor({ timeout: 60_000 });
    const second = await checkUntil(page, /· collected:/);
    const why = await page.getByTestId('batch').first().innerText();
    assert.match(second, /collected: 60 answers stored, 0 requests without an answer/, why);
    assert.deepEqual((await summary()).duplicate_successes, []);
  } finally {
    await browser.close();
  }
});

test('answers collected through a proxy marked for Anthropic serve interactive runs: nothing asked twice', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ reply: echo, batch: { ms: 1500 } });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const run = await setUp(page, { weighted: false });
    // Anthropic's batches need a CORS proxy: the mock serves /proxy/v1 as one would.
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/proxy/v1`, model: 'claude-3-5-haiku-latest', key: 'sk-ant' });
    await page.getByTestId('proxy-choice').locator('input').check();
    await page.getByTestId('run-mode').selectOption('batch');
    await page.getByRole('button', { name: 'Submit batch' }).click();
    await run.finished.filter({ hasText: 'Submitted 1 batch (60 requests) to Anthropic' }).waitFor({ timeout: 60_000 });
    assert.match(await checkUntil(page, /· collected:/), /collected: 60 answers stored/);
    const answered = (await summary()).answered_ok;
    assert.equal(answered, 60);

    // The same study interactively at another address of the same API (marked likewise):
    // every answer is found under Anthropic's own address, nothing is sent.
    await page.getByTestId('run-mode').selectOption('interactive');
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/v1`, model: 'claude-3-5-haiku-latest', key: 'sk-ant' });
    await page.getByTestId('proxy-choice').locator('input').check();
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    const counts = await run.counts();
    assert.deepEqual([counts.total, counts.cached], [0, 60], counts.text);
    assert.equal((await summary()).total, 60, 'no request sent again');
  } finally {
    await browser.close();
  }
});
