// The spend cap against the mock: a model with no price and a cap is not run at all; with a
// price entered on the Run screen, every call in flight holds its reservation against the cap,
// so the run stops within one call's cost of the cap and never passes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario, mockTotal } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';


/** The cost on the progress line, in dollars. */
async function spent(run) {
  const m = (await run.progress.innerText()).match(/\$([\d,]+\.\d+)/);
  assert.ok(m, await run.progress.innerText());
  return Number(m[1].replaceAll(',', ''));
}

test('a spend cap needs a price, and with one the run stops within a call of the cap, never past it', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('graded.csv', gradedCsv());
    // Slow answers and many parallel requests: without reservations the calls in flight
    // would carry the run past the cap.
    await setScenario({ latency_ms: 400, supports_n: true });
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });

    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'custom', baseUrl: `${MOCK_URL}/v1`, model: 'unpriced-mock', key: 'sk-cap', concurrency: 8 });
    await page.getByLabel('Spend cap (USD)').fill('3');
    await page.getByLabel('Spend cap (USD)').dispatchEvent('change');
    assert.match(await run.estimate.innerText(), /unknown cost/);
    await run.run();
    await run.error.filter({ hasText: 'not started: a spend cap needs a price, and unpriced-mock has none' }).waitFor();
    assert.match(await run.error.innerText(), /Enter the model's price per million tokens under Limits and price/);
    assert.equal(await run.finished.count(), 0, 'a refusal is not shown as a finished run');
    assert.equal(await mockTotal(), 0, 'nothing was sent');

    // $1,000 a million input tokens, output free: a call costs about $0.3-0.5 here.
    await page.getByTestId('price-input').fill('1000');
    await page.getByTestId('price-input').dispatchEvent('change');
    await page.getByTestId('price-output').fill('0');
    await page.getByTestId('price-output').dispatchEvent('change');
    assert.match(await run.estimate.innerText(), /about \$\d+\.\d\d/);
    await run.run();
    await page.getByTestId('run-finished').filter({ hasText: 'stopped at the spend cap' }).waitFor({ timeout: 120_000 });
    await page.waitForFunction(() => / 0 in flight/.test(document.querySelector('[data-testid="progress"]')?.innerText ?? ''));
    const cost = await spent(run);
    const calls = await mockTotal();
    const perCall = cost / calls;
    console.log(`spend cap $3: stopped after ${calls} calls at $${cost} (about $${perCall.toFixed(3)} a call, 8 in parallel)`);
    assert.ok(calls > 3 && calls < 60, `stopped midway: ${calls} calls`);
    assert.ok(cost <= 3, `never past the cap: $${cost}`);
    assert.ok(3 - cost < 2 * perCall, `within about one call of the cap: $${cost} after ${calls} calls of ~$${perCall.toFixed(3)}`);

    // The price entered is remembered on this device.
    await page.reload();
    await run.open();
    await run.connect({ provider: 'custom', baseUrl: `${MOCK_URL}/v1`, model: 'unpriced-mock' });
    await page.locator('summary', { hasText: 'Limits' }).click();
    assert.equal(await page.getByTestId('price-input').inputValue(), '1000');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('a cost the provider reports (OpenRouter usage.cost) is what the run counts', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('graded.csv', gradedCsv());
    await setScenario({ usage_cost: 0.001 });
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const run = new RunPage(page);
    await run.open();
    // A model the price list does not know: only the provider's own figures price it.
    await run.connect({ provider: 'openrouter', baseUrl: `${MOCK_URL}/v1`, model: 'mock/unlisted', key: 'sk-or' });
    assert.match(await run.estimate.innerText(), /unknown cost/);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    assert.match(await run.progress.innerText(), /\$0\.06 \(60 calls priced by the provider\)/);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
