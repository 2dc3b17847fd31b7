// Reasoning models against the mock (which spends 200 tokens thinking within the request's
// limit before it answers): new methods get room to think by default, a budget too small is
// said on the Judge and Run screens before anything is sent, answers starved by the thinking
// are counted as cut off (not as "no rating"), the reasoning tokens are shown with the run's
// output tokens and beside each sample, and with room the same method rates every item.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOCK_URL } from './browser.mjs';
import { withApp, shootThemes } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

test('a reasoning model gets room to think, and a budget too small is said before the run and counted as cut off', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  await withApp({ data: GRADED, scenario: { reasoning_tokens: 200 } }, async (app) => {
    const { judge, run, results } = app;
    await app.connectMock({ provider: 'openai', model: 'o3-mini', key: 'sk-think' });

    // The Judge screen's Max tokens follows the model: room to think for a reasoning model.
    await judge.open();
    assert.equal(await judge.maxTokens.inputValue(), '4096');
    // 128 (the default for other models) is too little, and said so.
    await judge.maxTokens.fill('128');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    assert.match(await judge.reasoningBudget.innerText(), /o3-mini is a reasoning model: .* score-only has less than 1024 tokens/);
    await run.open();
    assert.match(await run.reasoningBudget.innerText(), /score-only has less than 1024 tokens/);
    await run.run();
    await run.waitFinished();
    assert.match(await run.progress.innerText(), /· 7680 of the output tokens spent reasoning/);

    await results.open();
    await results.openParseFailures();
    assert.equal(await results.parseFailure('score-only/coherence/cut_off_failures'), '30');
    assert.equal(await results.parseFailure('score-only/coherence/complete_failures'), '0');

    // With room: the warning goes and every item is rated.
    await judge.open();
    await judge.removeMethod('score-only');
    await judge.maxTokens.fill('4096');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    assert.equal(await judge.reasoningBudget.count(), 0);
    await run.open();
    assert.equal(await run.reasoningBudget.count(), 0);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    await results.open();
    await results.openParseFailures();
    await results.waitParseFailure('score-only/coherence/unparseable', '0');
    assert.equal(await results.parseFailure('score-only/coherence/cut_off'), '0');
    // Each sample keeps the reasoning tokens its call reported (200 here, the limit leaving
    // room): shown beside its response, and billed as output in the cost and quality table.
    await results.openFirstCell();
    await results.showItem('row1');
    assert.equal(await results.reasoningTokens.innerText(), '200 reasoning tokens');
    await shootThemes(results.reasoningTokens, 'results-item-reasoning', { window: true });
  });
});
