// The estimate before a run counts prompt tokens with the model's own encoding (issue 20): a
// model with no known tokenizer is said to be approximate; an OpenAI model's prompts are counted
// with o200k_base in the worker (its chunk fetched on first need in a split build) and the
// estimate's input tokens then equal, to the token, what the provider bills (the mock bills
// `gpt-4o…` models by o200k_base, as OpenAI does). A tokenizer that cannot be fetched leaves the
// estimate approximate, saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { withApp, shootThemes } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

const DEV = process.env.CONCORD_SPLIT === '0';

/** The estimate's input-token figure. */
async function inputTokens(run) {
  const text = await run.estimate.innerText();
  const m = text.match(/~([\d,]+) input/);
  assert.ok(m, text);
  return Number(m[1].replaceAll(',', ''));
}

/** Opens the app (watched from its first request), loads the graded CSV, adds score-only and
 * connects the Run screen to the mock. */
async function setUp(app) {
  await app.open(CONCORD_URL, { ready: false });
  await app.data.loadFile(GRADED.name, GRADED.text);
  await app.judge.open();
  await app.judge.addMethods({ modes: ['score-only'], n: 1 });
  // 12 items (fewer than the 20 an estimate renders): every prompt is counted.
  await app.connectMock({ provider: 'custom', key: 'sk-tok', itemLimit: 12 });
  return app.run;
}

test('an OpenAI model\'s prompt tokens are counted with its encoding and equal what it bills', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  await setScenario({});
  await withApp({ url: null }, async (app) => {
    // Worker requests too (the worker fetches the tokenizer's chunk).
    const fetched = [];
    app.browser.context.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
    const run = await setUp(app);
    assert.equal(await run.estimate.getAttribute('data-tokens'), 'approximate');
    assert.deepEqual(fetched.filter((f) => f.startsWith('split_tokenizer')), [], 'no tokenizer before a model needs one');
    assert.match(await run.estimate.innerText(), /^24 calls, .*Tokens approximate \(4 characters a token: no tokenizer is known for this model\)/);

    await run.setModel('gpt-4o-mini');
    await run.estimateWith({ tokens: 'counted' }).waitFor({ timeout: 60_000 });
    const text = await run.estimate.innerText();
    assert.match(text, /^24 calls, .*Input tokens counted with o200k_base/);
    const counted = await inputTokens(run);
    await shootThemes(run.estimate, 'run-estimate-counted', { window: true });
    if (!DEV) {
      const tokenizers = fetched.filter((f) => f.startsWith('split_tokenizer'));
      assert.deepEqual(tokenizers, ['split_tokenizer_o200k.wasm'], 'only the encoding the model reads is fetched');
    }

    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    assert.match(await run.progress.innerText(), /^24 of 24 calls done/);
    const billed = Number((await run.progress.innerText()).match(/([\d,]+) tokens in/)[1].replaceAll(',', ''));
    assert.equal(counted, billed, 'the counted estimate is what the provider billed');

    // The rule of thumb would have said something else: the count is not the approximation.
    await run.setModel('mock-model');
    await run.estimateWith({ tokens: 'approximate' }).waitFor();
    assert.notEqual(await inputTokens(run), counted);
  });
});

test('a tokenizer that cannot be fetched leaves the estimate approximate and says why', { skip: (!MOCK_URL && 'no mock') || (DEV && 'a --dev build has no tokenizer chunk'), timeout: 120_000 }, async () => {
  await withApp({ url: null, problems: 'allowed' }, async (app) => {
    await app.browser.context.route(/split_tokenizer_o200k.*\.wasm/, (route) => route.abort('internetdisconnected'));
    const run = await setUp(app);
    await run.setModel('gpt-4o');
    await run.estimateWith({ text: 'the tokenizer could not be downloaded' }).waitFor({ timeout: 60_000 });
    assert.equal(await run.estimate.getAttribute('data-tokens'), 'approximate');
    assert.match(await run.estimate.innerText(), /^24 calls, ~[\d,]+ input .*Tokens approximate \(4 characters a token\): the tokenizer could not be downloaded/);
  });
});
