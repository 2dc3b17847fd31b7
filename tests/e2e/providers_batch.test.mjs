// Batch runs that survive the real APIs (issue 35): a parameter the provider refuses in every
// line is read from the failed lines, kept with the batch, and the re-run is built without it;
// Anthropic's batches through a CORS proxy marked "a proxy for Anthropic" are keyed to
// Anthropic's own address, so a later interactive run (directly or through the proxy) finds
// every answer stored and pays nothing twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOCK_URL, setScenario, mockSummary as summary } from './browser.mjs';
import { withApp } from './harness.mjs';
import { GRADED } from './fixtures.mjs';
import { BatchesPanel } from './pages/batches_page.mjs';

const echo = { mode: 'echo_rating', marker: 'RATING=' };

/** The graded study (one score-only method, weighted when asked) with the Run screen open. */
async function setUp({ judge, run }, { weighted }) {
  await judge.open();
  if (weighted) await judge.weighted.check();
  await judge.addMethods({ modes: ['score-only'], n: 1 });
  await run.open();
  return run;
}

test('a parameter refused in every batch line is kept with the batch and the re-run is built without it', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ reply: echo, batch: { ms: 1500 }, reject_params: ['logprobs'] });
  await withApp({ data: GRADED, problems: 'allowed' }, async (app) => {
    const batches = new BatchesPanel(app.page);
    const run = await setUp(app, { weighted: true });
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'gpt-4o-mini', key: 'sk-b' });
    await batches.setMode('batch');
    await batches.submit();
    await run.finishedWith('Submitted 1 batch (60 requests)').waitFor({ timeout: 60_000 });
    const first = await batches.checkUntil(/· collected:/);
    assert.match(first, /collected: 0 answers stored, 60 requests without an answer/);
    const refused = await batches.rejected.innerText();
    assert.match(refused, /The API refused `logprobs` — a re-run of this model is built without it/);
    assert.match(refused, /Unsupported parameter: 'logprobs' is not supported with this model/);

    await batches.rerunFailed();
    await run.finishedWith('Submitted 1 batch (60 requests)').waitFor({ timeout: 60_000 });
    const second = await batches.checkUntil(/· collected:/);
    const why = await batches.newest.innerText();
    assert.match(second, /collected: 60 answers stored, 0 requests without an answer/, why);
    assert.deepEqual((await summary()).duplicate_successes, []);
  });
});

test('answers collected through a proxy marked for Anthropic serve interactive runs: nothing asked twice', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  await setScenario({ reply: echo, batch: { ms: 1500 } });
  await withApp({ data: GRADED, problems: 'allowed' }, async (app) => {
    const batches = new BatchesPanel(app.page);
    const run = await setUp(app, { weighted: false });
    // Anthropic's batches need a CORS proxy: the mock serves /proxy/v1 as one would.
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/proxy/v1`, model: 'claude-3-5-haiku-latest', key: 'sk-ant' });
    await batches.markProxy();
    await batches.setMode('batch');
    await batches.submit();
    await run.finishedWith('Submitted 1 batch (60 requests) to Anthropic').waitFor({ timeout: 60_000 });
    assert.match(await batches.checkUntil(/· collected:/), /collected: 60 answers stored/);
    const answered = (await summary()).answered_ok;
    assert.equal(answered, 60);

    // The same study interactively at another address of the same API (marked likewise):
    // every answer is found under Anthropic's own address, nothing is sent.
    await batches.setMode('interactive');
    await run.connect({ provider: 'anthropic', baseUrl: `${MOCK_URL}/v1`, model: 'claude-3-5-haiku-latest', key: 'sk-ant' });
    await batches.markProxy();
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    const counts = await run.counts();
    assert.deepEqual([counts.total, counts.cached], [0, 60], counts.text);
    assert.equal((await summary()).total, 60, 'no request sent again');
  });
});

test('a batch refused because the model\'s queue is full (token_limit_exceeded) is said in OpenAI\'s words and submitted again once the queue has room', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  // Other jobs' batches of gpt-4o-mini fill its 2,000,000 enqueued tokens for 20 s after the
  // first batch arrives (xtask/src/mock_llm/batch.rs, `enqueued_limit`: OpenAI's refusal as
  // openai-python#2084 shows it).
  await setScenario({ reply: echo, batch: { ms: 1500, enqueued_limit: 2_000_000, enqueued_elsewhere: 2_000_000, elsewhere_ms: 20_000 } });
  await withApp({ data: GRADED, problems: 'allowed' }, async (app) => {
    const batches = new BatchesPanel(app.page);
    const run = await setUp(app, { weighted: false });
    await run.connect({ provider: 'openai', baseUrl: `${MOCK_URL}/v1`, model: 'gpt-4o-mini', key: 'sk-b' });
    await batches.setMode('batch');
    await batches.submit();
    await run.finishedWith('Submitted 1 batch (60 requests)').waitFor({ timeout: 60_000 });
    const cards = await batches.checkUntilAny(/collected: 60 answers stored, 0 requests without an answer/, 180_000);
    // Each refused batch says why and that its requests go again (once they did, its status
    // says so in place of OpenAI's words, which the card showed until then).
    const refused = cards.filter((t) => /The model's queue was full \(token_limit_exceeded\): its requests are submitted again when the batches ahead of it end/.test(t));
    assert.ok(refused.length >= 1, cards.join('\n---\n'));
    assert.ok(refused.every((t) => /collected: 0 answers stored, 60 requests without an answer/.test(t)), refused.join('\n---\n'));
    assert.ok(cards.length >= 2, 'the refused requests went out again as a new batch');
    assert.deepEqual((await summary()).duplicate_successes, []);
  });
});
