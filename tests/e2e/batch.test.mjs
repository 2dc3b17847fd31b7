// Batch mode against the mock's batch APIs (accelerated time): a batch of 240 requests is
// submitted to OpenAI's Batch API, survives a reload while in progress, is collected into the
// response cache and gives exactly the Results an interactive run gives for the same answers;
// an Anthropic batch that expires and a batch with failing lines are listed with their causes
// and re-run (as a new batch, then interactively) without any answer being paid twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';
import { BatchesPanel, checkUntil } from './pages/batches_page.mjs';
import { shootThemes } from './harness.mjs';

async function summary() {
  return (await fetch(`${MOCK_URL}/__mock/summary`)).json();
}

async function mockBatches() {
  return (await (await fetch(`${MOCK_URL}/__mock/batches`)).json()).batches;
}

/** Waits for the workspace to be restored after a (re)load. */
async function ready(page) {
  await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
}


/** A workbench on graded.csv with the given modes, on the Run screen. */
async function setUp(page, modes) {
  const data = new DataPage(page);
  await data.open(CONCORD_URL);
  await data.loadFile('graded.csv', gradedCsv());
  const judge = new JudgePage(page);
  await judge.open();
  await judge.addMethods({ modes, n: 1 });
  const run = new RunPage(page);
  await run.open();
  return run;
}

async function setPrice(page, input, output) {
  await page.locator('summary', { hasText: 'Limits' }).click();
  await page.getByTestId('price-input').fill(String(input));
  await page.getByTestId('price-input').dispatchEvent('change');
  await page.getByTestId('price-output').fill(String(output));
  await page.getByTestId('price-output').dispatchEvent('change');
}

const ALL_MODES = ['score-only', 'free-text', 'rate-explain', 'analyze-rate'];

test('a batch of 240 requests survives a reload, is collected, and gives the Results an interactive run gives', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ batch: { ms: 5000 } });
  let batchCsv;
  {
    const browser = await launch();
    try {
      const page = await browser.context.newPage();
      const seen = watch(page);
      const run = await setUp(page, ALL_MODES);
      const batches = new BatchesPanel(page);
      await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-batch' });
      await setPrice(page, 100, 100);
      const interactive = await run.estimate.innerText();
      await page.getByTestId('run-mode').selectOption('batch');
      assert.match(await page.getByTestId('batch-note-provider').innerText(), /OpenAI charges half the interactive price/);
      const estimate = await run.estimate.innerText();
      assert.match(estimate, /^240 calls, .* at the batch price \(\$[\d,]+\.\d+ interactively\)/);
      assert.equal(estimate.match(/\((\$[\d,]+\.\d+) interactively\)/)[1], interactive.match(/about (\$[\d,]+\.\d+)/)[1], 'the interactive figure is the Run estimate');
      await page.getByRole('button', { name: 'Submit batch' }).click();
      await run.finished.filter({ hasText: 'Submitted 1 batch (240 requests) to OpenAI at half price' }).waitFor({ timeout: 60_000 });
      const [submitted] = await mockBatches();
      assert.equal(submitted.lines, 240);
      assert.equal((await summary()).total, 0, 'nothing answered yet');
      const status = page.getByTestId('batch').first().getByTestId('batch-status');
      assert.match(await status.innerText(), /in progress/);
      // An interactive run meanwhile does not ask for what the batch will answer.
      await batches.setMode('interactive');
      await run.run();
      assert.match(await run.waitFinished(), /Run complete/);
      assert.deepEqual(await run.counts().then((c) => [c.total, c.cached]), [0, 0]);
      assert.equal((await summary()).total, 0, 'nothing sent while the batch is pending');

      // Reload while the batch runs: the page forgets the key, never the batch.
      await page.reload();
      await ready(page);
      await run.open();
      await page.getByTestId('batch').first().waitFor();
      assert.match(await page.getByTestId('batch').first().innerText(), new RegExp(submitted.id));
      await page.getByTestId('batch-note').filter({ hasText: 'Enter the OpenAI API key above' }).waitFor();
      await page.getByLabel('API key').fill('sk-batch');
      await page.getByLabel('API key').dispatchEvent('change');
      const done = await checkUntil(page, /· collected:/);
      assert.match(done, /ended · collected: 240 answers stored, 0 requests without an answer/);
      const cost = await page.getByTestId('batch-cost').first().innerText();
      const [, spent, full, saved] = cost.match(/Spent \$(\d+\.\d+) at the batch price \(the tokens the provider reported\); the same answers interactively: \$(\d+\.\d+) \(saved \$(\d+\.\d+)\)/);
      // Each figure is rounded as it is shown (cents from a dollar up, three significant digits below).
      const close = (a, b) => Math.abs(a - b) <= 0.006 * Math.max(a, b) + 2e-4;
      assert.ok(Number(spent) > 0 && close(Number(full), 2 * Number(spent)) && close(Number(saved), Number(spent)), cost);
      assert.match(await page.getByTestId('batch-totals').innerText(), new RegExp(`saved \\$${saved}`));
      const answered = await summary();
      assert.equal(answered.answered_ok, 240);
      assert.deepEqual(answered.duplicate_successes, []);

      // The answers are the study's: Results shows them, and running again sends nothing.
      const results = new ResultsPage(page);
      await results.open();
      batchCsv = await results.exportTable('concord-results');
      await run.open();
      await batches.setMode('interactive');
      await run.run();
      assert.match(await run.waitFinished(), /Run complete/);
      assert.equal((await run.counts()).cached, 240);
      assert.equal((await summary()).total, 240, 'no request sent again');
      assert.deepEqual(seen.problems, []);
    } finally {
      await browser.close();
    }
  }
  // The same study run interactively on a fresh browser: the same table, to the byte.
  await setScenario({});
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const run = await setUp(page, ALL_MODES);
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-batch' });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    assert.equal((await summary()).answered_ok, 240);
    const results = new ResultsPage(page);
    await results.open();
    assert.equal(await results.exportTable('concord-results'), batchCsv);
  } finally {
    await browser.close();
  }
});

test('an expired batch and failed lines are listed by cause and re-run without paying twice for an answer', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ batch: { ms: 1500, expire: true } });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const run = await setUp(page, ['score-only']);
    // A provider without a batch API says so before anything is sent.
    const before = (await mockBatches()).length;
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model' });
    await page.getByTestId('run-mode').selectOption('batch');
    assert.match(await page.getByTestId('batch-note-provider').innerText(), /vLLM has no batch API Concord can use/);
    await page.getByRole('button', { name: 'Submit batch' }).click();
    await run.error.filter({ hasText: 'has no batch API' }).waitFor();
    assert.equal((await mockBatches()).length, before);
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-ant' });
    assert.match(await page.getByTestId('batch-note-provider').innerText(), /does not answer browser preflights/);
    await page.getByRole('button', { name: 'Submit batch' }).click();
    await run.finished.filter({ hasText: 'Submitted 1 batch (60 requests) to Anthropic' }).waitFor({ timeout: 60_000 });
    const expired = await checkUntil(page, /· collected:/);
    assert.match(expired, /expired \(its 24 hours ran out\) · collected: 30 answers stored, 30 requests without an answer/);
    assert.match(await page.getByTestId('batch-failures').innerText(), /expired: the batch's 24 hours ran out before it was answered — 30/);

    // The expired half as a new batch, in which some lines fail.
    await setScenario({ batch: { ms: 1500, line_error_rate: 0.3 } });
    await page.getByRole('button', { name: 'Re-run failed as a new batch' }).click();
    await run.finished.filter({ hasText: 'Submitted 1 batch (30 requests) to Anthropic at half price. Not sent again: 30 already answered, 0 waiting in a pending batch.' }).waitFor({ timeout: 60_000 });
    assert.equal((await mockBatches()).at(-1).lines, 30);
    const second = await checkUntil(page, /· collected:/);
    const m = second.match(/ended · collected: (\d+) answers stored, (\d+) requests? without an answer/);
    assert.ok(m, second);
    const failed = Number(m[2]);
    assert.ok(failed > 0 && failed < 30 && Number(m[1]) + failed === 30, second);
    assert.match(await page.getByTestId('batch').first().getByTestId('batch-failures').innerText(), new RegExp(`api_error: Internal server error \\(injected\\) — ${failed}`));

    const shots = process.env.CONCORD_SCREENSHOTS;
    if (shots) {
      await page.screenshot({ path: `${shots}/run-batches.png`, fullPage: true });
      await page.getByTestId('theme').selectOption('dark');
      await page.screenshot({ path: `${shots}/run-batches-dark.png`, fullPage: true });
      await page.getByTestId('batches').screenshot({ path: `${shots}/run-batches-dark-panel.png` });
      await page.getByTestId('theme').selectOption('light');
      await page.setViewportSize({ width: 375, height: 800 });
      await page.screenshot({ path: `${shots}/run-batches-375.png`, fullPage: true });
      await page.getByTestId('batches').screenshot({ path: `${shots}/run-batches-375-panel.png` });
      await page.getByTestId('theme').selectOption('auto');
      await page.setViewportSize({ width: 1280, height: 900 });
    }

    // The failed lines interactively: only they are sent.
    await page.getByTestId('batch').first().getByRole('button', { name: 'Re-run failed interactively' }).click();
    assert.match(await run.waitFinished(), /Run complete/);
    const counts = await run.counts();
    assert.equal(counts.total, failed);
    assert.equal(counts.cached, 60 - failed);
    const s = await summary();
    assert.equal(s.answered_ok, 30, 'each of the 30 expired requests answered once, by the batch or interactively');
    assert.deepEqual(s.duplicate_successes, []);
    // Every request of the study is answered now: running it again sends nothing.
    await run.run();
    await run.finished.filter({ hasText: 'Run complete' }).waitFor();
    assert.deepEqual(await run.counts().then((c) => [c.total, c.cached]), [0, 60]);
    assert.equal((await summary()).total, s.total, 'nothing sent');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('a batch is held to the spend cap at the batch price, and cancelled from the page', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  await setScenario({ batch: { ms: 60_000 } });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const run = await setUp(page, ['score-only']);
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'capped-mock', key: 'sk-cap' });
    await page.getByTestId('run-mode').selectOption('batch');
    // No price: a cap cannot be held, nothing is submitted.
    await page.locator('summary', { hasText: 'Limits' }).click();
    await page.getByLabel('Spend cap (USD)').fill('1');
    await page.getByLabel('Spend cap (USD)').dispatchEvent('change');
    const before = (await mockBatches()).length;
    await page.getByRole('button', { name: 'Submit batch' }).click();
    await run.error.filter({ hasText: 'a spend cap needs a price' }).waitFor();
    assert.equal((await mockBatches()).length, before);
    // $1,000 a million tokens: a request's largest cost is about $0.35 interactively, half of it
    // in a batch; a $1 cap holds 5 or 6 of the 60 requests.
    await page.getByTestId('price-input').fill('1000');
    await page.getByTestId('price-input').dispatchEvent('change');
    await page.getByTestId('price-output').fill('1000');
    await page.getByTestId('price-output').dispatchEvent('change');
    await page.getByRole('button', { name: 'Submit batch' }).click();
    const said = await run.finished.filter({ hasText: 'Submitted 1 batch' }).innerText();
    const m = said.match(/Only (\d+) of 60 requests were submitted: the rest would pass the spend cap of \$1\.00 at the batch price/);
    assert.ok(m, said);
    const lines = (await mockBatches()).at(-1).lines;
    assert.equal(lines, Number(m[1]));
    assert.ok(lines > 1 && lines < 60, `${lines} requests under the cap`);
    const reserved = await page.getByTestId('batch-cost').first().innerText();
    const most = Number(reserved.match(/At most \$(\d+\.\d+) at the batch price/)[1]);
    assert.ok(most <= 1 && most > 0.5, reserved);
    // Cancelled from the page: nothing was answered, every request is listed as cancelled.
    await page.getByTestId('batch').first().getByRole('button', { name: 'Cancel batch' }).click();
    const cancelled = await checkUntil(page, /· collected:/);
    assert.match(cancelled, new RegExp(`^cancelled · collected: 0 answers stored, ${lines} requests without an answer`));
    assert.match(await page.getByTestId('batch-failures').first().innerText(), new RegExp(`cancelled before it was answered — ${lines}`));
    assert.equal((await mockBatches()).at(-1).status, 'cancelled');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

// Issue 36.6: Results' Cost and quality prices a batch's answers as the batch card does — the
// tokens the provider reported in its result lines (`response.body.usage`), at the batch
// discount — not at 4 characters a token and the interactive list price; an interactive run's
// as the Run screen counted it.
test('Results\' Cost and quality costs a batch\'s runs what the batch card says was spent, an interactive run\'s what the Run screen counted', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  await setScenario({ batch: { ms: 1500 } });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const run = await setUp(page, ['score-only']);
    // A model with a shipped price: the card and Results price it the same way.
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'gpt-4o-mini', key: 'sk-cost' });
    const batches = new BatchesPanel(page);
    await batches.setMode('batch');
    await batches.submit();
    await run.finished.filter({ hasText: 'Submitted 1 batch (60 requests) to OpenAI' }).waitFor({ timeout: 60_000 });
    await batches.checkUntil(/· collected: 60 answers stored/);
    const card = await batches.cost.innerText();
    const [, spent, interactive] = card.match(/Spent (\$\d+\.\d+) at the batch price \(the tokens the provider reported\); the same answers interactively: (\$\d+\.\d+)/);

    const results = new ResultsPage(page);
    await results.open();
    // Quality, tokens in, tokens out, est. cost, quality per $.
    const cost = results.costCells('score-only').nth(3);
    // The card shows its three figures to one precision (so spent + saved = interactively);
    // the table shows two significant digits. The same amount to the card's digits:
    const digits = spent.split('.')[1].length;
    const value = Number(await cost.getAttribute('data-value'));
    assert.equal(`$${value.toFixed(digits)}`, spent, `Results' cost ${await cost.innerText()} is the card's: ${card}`);
    assert.equal(`$${Number((await cost.innerText()).slice(1)).toFixed(digits)}`, spent, 'as shown');
    assert.notEqual(`$${value.toFixed(digits)}`, interactive);
    assert.equal(await cost.getAttribute('title'), 'the providers\' reported usage of 60 calls, at the batch price');
    const note = await results.costNote();
    assert.match(note, /Tokens are the usage the providers reported for all 60 calls\. Cost uses the shipped list price of gpt-4o-mini on OpenAI \(the model the runs were made with\); 60 calls answered through a provider's batch API at 50% of it \(the batch discount\)\./);

    // A second method run interactively: its row has the tokens and the cost the Run screen
    // counted from the usage the calls reported, at the list price.
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['free-text'], n: 1 });
    await run.open();
    await batches.setMode('interactive');
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    const progress = await run.progress.innerText();
    const [, tokensIn, tokensOut, paid] = progress.match(/ · ([\d,]+) tokens in, ([\d,]+) out · (\$\d+\.\d+) · /);
    assert.deepEqual(await run.counts().then((c) => [c.total, c.cached]), [60, 60], progress);
    await results.open();
    const second = results.costCells('free-text');
    const cells = await second.allInnerTexts();
    assert.deepEqual([cells[1], cells[2], cells[3]], [tokensIn, tokensOut, paid], `free-text's row is the run's: ${progress}`);
    assert.equal(await second.nth(3).getAttribute('title'), 'the providers\' reported usage of 60 calls');
    assert.match(await results.costNote(),
      /reported for all 120 calls\. .*; 60 calls answered through a provider's batch API at 50% of it/);
    await shootThemes(results.costPanel, 'results-cost-batch');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
