// G-Eval's probability-weighted score end to end against the mock (which returns top
// log-probabilities peaked at its rating): a "+weighted" method asks for them, every sample is
// scored Σ p(s)·s at its rating's token, the Results say how many samples were weighted, the
// bundle carries the log-probabilities so `concord report` prints the same tables; a provider
// without log-probabilities is named before the run, and samples that come without them are
// counted as not weighted and left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');

/** The correlations (r and τ of each attribute) of the results CSV's row `method`. */
function row(csv, method) {
  const line = csv.split('\n').find((l) => l.startsWith(`${method},`));
  assert.ok(line, `no row ${method} in\n${csv}`);
  const cells = line.match(/("[^"]*"|[^,]*)(,|$)/g).map((c) => c.replace(/,$/, ''));
  // Method, then per attribute and statistic: value, n, note.
  return cells.slice(1, 13).filter((_, i) => i % 3 === 0).map(Number);
}

test('probability-weighted scores are weighted at the rating, counted, carried by the bundle, and said when impossible', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-weighted-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('graded.csv', gradedCsv());
    await setScenario({ template: 'Summary 2 of the set. Rating: {rating}' });
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await page.getByTestId('weighted').check();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await page.getByTestId('methods').getByText('score-only +weighted').waitFor();
    // The Run screen's provider (OpenAI by default) returns log-probabilities: no warning.
    assert.equal(await page.getByTestId('no-logprobs').count(), 0);

    const run = new RunPage(page);
    await run.open();
    // Anthropic returns none: said before anything is sent.
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-w' });
    assert.match(await page.getByTestId('no-logprobs').innerText(), /Anthropic returns no log-probabilities for mock-model/);
    const shots = process.env.CONCORD_SCREENSHOTS;
    if (shots) {
      await judge.open();
      const panel = page.locator('section', { has: page.getByRole('heading', { name: 'Add methods' }) });
      await panel.screenshot({ path: `${shots}/judge-weighted.png` });
      await page.getByTestId('theme').selectOption('dark');
      await panel.screenshot({ path: `${shots}/judge-weighted-dark.png` });
      await page.getByTestId('theme').selectOption('light');
      await page.setViewportSize({ width: 375, height: 800 });
      await panel.screenshot({ path: `${shots}/judge-weighted-375.png` });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.getByTestId('theme').selectOption('auto');
      await run.open();
    }
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-w' });
    assert.equal(await page.getByTestId('no-logprobs').count(), 0);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    const results = new ResultsPage(page);
    await results.open();
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    const cell = (key) => page.locator(`table[data-table="parse-failures"] td[data-cell="${key}"]`).innerText();
    for (const attribute of ['coherence', 'fluency']) {
      assert.equal(await cell(`score-only +weighted/${attribute}/weighted`), '30');
      assert.equal(await cell(`score-only +weighted/${attribute}/not_weighted`), '0');
    }
    const csv = await results.exportTable('concord-results');
    // Weighted at "Rating: n", not at the "2" earlier in the answer: the scores follow the
    // ratings (the plain ones correlate with the humans), so the correlations are close but
    // not equal (weighting moves every score off the integer).
    const plain = row(csv, 'score-only');
    const weighted = row(csv, 'score-only +weighted');
    assert.equal(plain.length, 4);
    assert.notDeepEqual(weighted, plain);
    for (let i = 0; i < plain.length; i++) {
      assert.ok(Number.isFinite(plain[i]) && Math.abs(weighted[i] - plain[i]) < 0.25, `column ${i}: ${weighted[i]} vs ${plain[i]}`);
    }
    assert.match(csv, /probability-weighted: 30 of 30 samples weighted by their log-probabilities, 0 could not be \(left out\)/);

    // The bundle carries each sample's log-probabilities: the CLI recomputes the same tables.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const w = saved.runs.find((r) => r.method === 'score-only +weighted');
    assert.equal(w.weighting, 'drop');
    assert.ok(w.run.records.every((r) => r.logprobs.length === 1 && r.logprobs[0].length >= 1));
    assert.ok(saved.runs.find((r) => r.method === 'score-only').run.records.every((r) => r.logprobs.length === 0));
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));
    assert.equal(await results.exportTable('parse-failures'), readFileSync(join(dir, 'cli', 'parse-failures.csv'), 'utf8'));

    // A server that refuses logprobs: the run drops the parameter, no sample can be weighted,
    // and the weighted method says so instead of passing plain ratings off as weighted.
    await setScenario({ template: 'Summary 2 of the set. Rating: {rating}', reject_params: ['logprobs'] });
    await run.open();
    await run.setModel('mock-no-logprobs');
    await run.run();
    assert.match(await run.waitFinished(), /Parameters the API rejected and the run dropped: logprobs/);
    await results.open();
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    // The table is read again in the background after the run.
    await page.waitForFunction(() => document.querySelector('table[data-table="parse-failures"] td[data-cell="score-only +weighted/coherence/weighted"]')?.innerText === '0');
    assert.equal(await cell('score-only +weighted/coherence/not_weighted'), '30');
    const failures = page.locator('table[data-table="parse-failures"]').locator('xpath=ancestor::figure[1]');
    assert.match(await failures.innerText(), /60 samples with a rating could not be weighted by their log-probabilities/);
    // The browser logs the mock's refusals of logprobs (400) itself.
    assert.deepEqual(seen.problems.filter((p) => !/status of 400/.test(p)), []);
  } finally {
    await browser.close();
  }
});
