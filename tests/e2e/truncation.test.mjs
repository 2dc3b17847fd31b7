// Truncation is visible: a provider that stops an answer at the method's Max tokens
// (finish_reason "length") leaves a sample the Results screen counts apart from answers that
// ended without a rating, marks in the item's responses, and the bundle carries (so
// `concord report` prints the same parse-failure table).
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

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
// 104 characters (26 tokens at the mock's 4 characters a token) before the rating.
const PREAMBLE = 'Let me weigh the summary sentence by sentence, and compare each claim with the article before deciding.';

test('answers cut at the token limit are counted apart, marked, and carried by the bundle', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-cut-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await setScenario({ template: `${PREAMBLE} Rating: {rating}`, cut_at_max_tokens: true });
    const judge = new JudgePage(page);
    await judge.open();
    // score-only with 16 tokens: cut before its rating; rate-explain with 256: whole.
    await page.getByLabel('Max tokens').fill('16');
    await page.getByLabel('Max tokens').dispatchEvent('change');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await page.getByLabel('Max tokens').fill('256');
    await page.getByLabel('Max tokens').dispatchEvent('change');
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });

    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-cut' });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    const results = new ResultsPage(page);
    await results.open();
    await page.getByText('Parse failures').click();
    const cell = (key) => page.locator(`table[data-table="parse-failures"] td[data-cell="${key}"]`).innerText();
    for (const attribute of ['coherence', 'fluency']) {
      assert.equal(await cell(`score-only/${attribute}/unparseable`), '15');
      assert.equal(await cell(`score-only/${attribute}/cut_off_failures`), '15');
      assert.equal(await cell(`score-only/${attribute}/complete_failures`), '0');
      assert.equal(await cell(`rate-explain/${attribute}/cut_off`), '0');
      assert.equal(await cell(`rate-explain/${attribute}/unparseable`), '0');
    }
    const failures = page.locator('table[data-table="parse-failures"]').locator('xpath=ancestor::figure[1]');
    assert.match(await failures.innerText(), /30 samples were cut off at the token limit: raise Max tokens on the Judge screen/);

    // The item's responses say which one was cut.
    await page.getByTestId('results-table').locator('tbody tr').first().locator('td button').first().click();
    await page.getByRole('button', { name: 'Show item row1', exact: true }).click();
    const detail = page.getByTestId('item-detail');
    await detail.getByText('cut off at the token limit').waitFor();
    assert.match(await detail.innerText(), /unparseable: no rating found in the response/);

    // The bundle carries the marks: `concord report` prints the same table.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const scoreOnly = saved.runs.find((r) => r.method === 'score-only');
    assert.ok(scoreOnly.run.records.every((r) => r.cut_off.length === 1 && r.cut_off[0] === 0));
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(await results.exportTable('parse-failures'), readFileSync(join(dir, 'cli', 'parse-failures.csv'), 'utf8'));
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
