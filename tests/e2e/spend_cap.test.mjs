// The spend cap against the mock: a model with no price and a cap is not run at all; with a
// price entered on the Run screen, every call in flight holds its reservation against the cap,
// so the run stops within one call's cost of the cap and never passes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOCK_URL, mockTotal } from './browser.mjs';
import { withApp } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

/** The cost on the progress line, in dollars. */
async function spent(run) {
  const m = (await run.progress.innerText()).match(/\$([\d,]+\.\d+)/);
  assert.ok(m, await run.progress.innerText());
  return Number(m[1].replaceAll(',', ''));
}

test('a spend cap needs a price, and with one the run stops within a call of the cap, never past it', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  // Slow answers and many parallel requests: without reservations the calls in flight
  // would carry the run past the cap.
  await withApp({ data: GRADED, scenario: { latency_ms: 400, supports_n: true } }, async (app) => {
    const { judge, run } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });

    await app.connectMock({ provider: 'custom', model: 'unpriced-mock', key: 'sk-cap', concurrency: 8 });
    await run.setSpendCap(3);
    assert.match(await run.estimate.innerText(), /unknown cost/);
    await run.run();
    await run.errorWith('not started: a spend cap needs a price, and unpriced-mock has none').waitFor();
    assert.match(await run.error.innerText(), /Enter the model's price per million tokens under Limits and price/);
    assert.equal(await run.finished.count(), 0, 'a refusal is not shown as a finished run');
    assert.equal(await mockTotal(), 0, 'nothing was sent');

    // $1,000 a million input tokens, output free: a call costs about $0.3-0.5 here.
    await run.setPrice({ input: 1000, output: 0 });
    assert.match(await run.estimate.innerText(), /about \$\d+\.\d\d/);
    await run.run();
    await run.finishedWith('stopped at the spend cap').waitFor({ timeout: 120_000 });
    await run.waitIdle();
    const cost = await spent(run);
    const calls = await mockTotal();
    const perCall = cost / calls;
    console.log(`spend cap $3: stopped after ${calls} calls at $${cost} (about $${perCall.toFixed(3)} a call, 8 in parallel)`);
    assert.ok(calls > 3 && calls < 60, `stopped midway: ${calls} calls`);
    assert.ok(cost <= 3, `never past the cap: $${cost}`);
    assert.ok(3 - cost < 2 * perCall, `within about one call of the cap: $${cost} after ${calls} calls of ~$${perCall.toFixed(3)}`);

    // The price entered is remembered on this device.
    await app.page.reload();
    await app.connectMock({ provider: 'custom', model: 'unpriced-mock' });
    await run.openLimits();
    assert.equal(await run.priceInput.inputValue(), '1000');
  });
});

test('a cost the provider reports (OpenRouter usage.cost) is what the run counts', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  await withApp({ data: GRADED, scenario: { usage_cost: 0.001 } }, async (app) => {
    const { judge, run } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    // A model the price list does not know: only the provider's own figures price it.
    await app.connectMock({ provider: 'openrouter', model: 'mock/unlisted', key: 'sk-or' });
    assert.match(await run.estimate.innerText(), /unknown cost/);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    assert.match(await run.progress.innerText(), /\$0\.06 \(60 calls priced by the provider\)/);
  });
});
