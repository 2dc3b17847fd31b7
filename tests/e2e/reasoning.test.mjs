// Reasoning models against the mock (which spends 200 tokens thinking within the request's
// limit before it answers): new methods get room to think by default, a budget too small is
// said on the Judge and Run screens before anything is sent, answers starved by the thinking
// are counted as cut off (not as "no rating"), the reasoning tokens are shown with the run's
// output tokens and beside each sample, and with room the same method rates every item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';

test('a reasoning model gets room to think, and a budget too small is said before the run and counted as cut off', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('graded.csv', gradedCsv());
    await setScenario({ reasoning_tokens: 200 });
    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'o3-mini', key: 'sk-think' });

    // The Judge screen's Max tokens follows the model: room to think for a reasoning model.
    const judge = new JudgePage(page);
    await judge.open();
    assert.equal(await page.getByLabel('Max tokens').inputValue(), '4096');
    // 128 (the default for other models) is too little, and said so.
    await page.getByLabel('Max tokens').fill('128');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    assert.match(await page.getByTestId('reasoning-budget').innerText(), /o3-mini is a reasoning model: .* score-only has less than 1024 tokens/);
    await run.open();
    assert.match(await page.getByTestId('reasoning-budget').innerText(), /score-only has less than 1024 tokens/);
    await run.run();
    await run.waitFinished();
    assert.match(await run.progress.innerText(), /· 7680 of the output tokens spent reasoning/);

    const results = new ResultsPage(page);
    await results.open();
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    const cell = (key) => page.locator(`table[data-table="parse-failures"] td[data-cell="${key}"]`).innerText();
    assert.equal(await cell('score-only/coherence/cut_off_failures'), '30');
    assert.equal(await cell('score-only/coherence/complete_failures'), '0');

    // With room: the warning goes and every item is rated.
    await judge.open();
    await page.getByRole('button', { name: 'Remove score-only', exact: true }).click();
    await page.getByLabel('Max tokens').fill('4096');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    assert.equal(await page.getByTestId('reasoning-budget').count(), 0);
    await run.open();
    assert.equal(await page.getByTestId('reasoning-budget').count(), 0);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    await results.open();
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    await page.waitForFunction(() => document.querySelector('table[data-table="parse-failures"] td[data-cell="score-only/coherence/unparseable"]')?.innerText === '0');
    assert.equal(await cell('score-only/coherence/cut_off'), '0');
    // Each sample keeps the reasoning tokens its call reported (200 here, the limit leaving
    // room): shown beside its response, and billed as output in the cost and quality table.
    await page.getByTestId('results-table').locator('tbody tr').first().locator('td button').first().click();
    await page.getByRole('button', { name: 'Show item row1', exact: true }).click();
    const detail = page.getByTestId('item-detail');
    assert.equal(await detail.getByTestId('reasoning-tokens').innerText(), '200 reasoning tokens');
    const shots = process.env.CONCORD_SCREENSHOTS;
    if (shots) {
      for (const [theme, width, suffix] of [['light', 1280, ''], ['dark', 1280, '-dark'], ['light', 375, '-375']]) {
        await page.getByTestId('theme').selectOption(theme);
        await page.setViewportSize({ width, height: 900 });
        await detail.getByTestId('reasoning-tokens').first().scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${shots}/results-item-reasoning${suffix}.png` });
      }
      await page.getByTestId('theme').selectOption('auto');
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
