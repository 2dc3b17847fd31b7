// Real providers, as they really answer (issue 35): one test per mock personality
// (xtask/src/mock_llm/providers.rs: each refuses and answers in its provider's own words). A
// study of 60 items × the default method, a probability-weighted one with N = 5 and a "+json"
// one with N = 5 is checked with "Check this model" (each capability works or is refused, in
// the provider's words, and the Judge screen flags what the model cannot serve), then run: it
// completes, with what was dropped named in the run log, or stops with the provider's reason
// and what to do — and the mock's log shows no sample paid twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOCK_URL, setScenario, mockRequests as requests, mockReset, mockSummary as summary } from './browser.mjs';
import { withApp } from './harness.mjs';
import { Screens } from './pages/workbench_pages.mjs';
import { ModelCheckPage } from './pages/model_check_page.mjs';

const ITEMS = 60;
const echo = { mode: 'echo_rating', marker: 'RATING=' };

/** 60 outputs with a planted rating; the items in `long` carry a text too long for a small context. */
function providersCsv(long = []) {
  const rows = ['doc,sys,source,output,quality'];
  for (let i = 0; i < ITEMS; i++) {
    const q = 1 + ((i * 7) % 5);
    const pad = long.includes(i) ? ' ' + 'This sentence only makes the summary long. '.repeat(300) : '';
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)} text.","Summary ${i}.${pad} RATING=${q}",${q}`);
  }
  return rows.join('\n') + '\n';
}

/**
 * Loads the 60 items, connects the Run screen, and adds the study on the Judge screen (after
 * connecting, so Max tokens follows the model: 4,096 for a reasoning model): rate-explain (N = 1),
 * score-only +weighted (N = 5) and rate-explain +json (N = 5) — three different requests.
 */
async function setUp(app, { connect, csv = providersCsv(), topP }) {
  const { data, run, judge, results } = app;
  await data.loadFile('providers.csv', csv);
  await run.open();
  await run.connect(connect);
  await judge.open();
  if (topP) await judge.topP.fill(String(topP));
  await judge.addMethods({ modes: ['rate-explain'], n: 1 });
  await judge.weighted.check();
  await judge.addMethods({ modes: ['score-only'], n: 5 });
  await judge.weighted.uncheck();
  await judge.structured.check();
  await judge.addMethods({ modes: ['rate-explain'], n: 5 });
  await judge.structured.uncheck();
  await judge.method('rate-explain +json').waitFor();
  await run.open();
  // The generic template's criterion is still its placeholder: the mock's echo ignores it.
  await run.sendAnyway();
  return { run, judge, check: new ModelCheckPage(app.page), results };
}

/** The parse-failures cell of a method: how many samples were weighted, cut off… */
async function failureCell({ results }, key) {
  await results.open();
  await results.openParseFailures();
  return results.parseFailure(key);
}

/**
 * Nothing paid twice: no sample answered successfully twice (the mock names a sample by its
 * request and seed), and — for providers that take no seed, whose looped samples the mock cannot
 * tell apart — no more samples answered than the study asks for (`expected`).
 */
async function assertNothingPaidTwice(what, { expected, seedless = false } = {}) {
  const s = await summary();
  if (!seedless) assert.deepEqual(s.duplicate_successes, [], `${what}: samples paid twice`);
  if (expected !== undefined) {
    const paid = (await requests()).filter((r) => r.answered_ok).reduce((n, r) => n + r.samples.length, 0);
    assert.equal(paid, expected, `${what}: ${paid} samples paid for ${expected} asked`);
  }
  return s;
}

async function shots(page, name, locator) {
  const dir = process.env.CONCORD_SCREENSHOTS;
  if (!dir) return;
  const select = new Screens(page).theme;
  for (const [theme, width, suffix] of [['light', 1280, ''], ['dark', 1280, '-dark'], ['light', 375, '-375']]) {
    await select.selectOption(theme);
    await page.setViewportSize({ width, height: 900 });
    await locator.scrollIntoViewIfNeeded();
    await locator.screenshot({ path: `${dir}/${name}${suffix}.png` });
  }
  await select.selectOption('auto');
  await page.setViewportSize({ width: 1280, height: 900 });
}

test('gemini-2.5: logprobs refused in Gemini\'s words and never sent, thinking off within a short Max tokens, a refusal the table did not know dropped and named', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'gemini-2.5', reply: echo, models: ['gemini-2.5-flash', 'gemini-2.0-flash'] });
  // The browser logs the refusals of logprobs (400) itself.
  await withApp({ ignore: /status of 400/ }, async (app) => {
    const { page, judge } = app;
    const { run, check } = await setUp(app, { connect: { provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-2.5-flash', key: 'g-key' } });
    await check.check();
    assert.equal((await check.row('plain')).verdict, 'works');
    const logprobs = await check.row('logprobs');
    assert.equal(logprobs.verdict, 'refused');
    assert.match(logprobs.text, /Logprobs is not enabled for models\/gemini-2\.5-flash/);
    assert.match(logprobs.text, /counted as not weighted/);
    assert.equal((await check.row('samples')).verdict, 'works');
    assert.equal((await check.row('schema')).verdict, 'works');
    await shots(page, 'run-model-check', check.panel);
    // The Judge screen flags the weighted method, and only it.
    await judge.open();
    const flags = await check.judgeFlags();
    assert.deepEqual(flags.map((f) => f.method), ['score-only +weighted']);
    assert.match(flags[0].text, /no log-probabilities \(Logprobs is not enabled/);
    await shots(page, 'judge-check-flags', check.flags);
    await run.open();
    await run.sendAnyway();

    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    const counts = await run.counts();
    assert.equal(counts.failed, 0, counts.text);
    const log = await requests();
    const chats = log.filter((r) => r.path.includes(':generateContent'));
    assert.ok(chats.length >= 3 * ITEMS && chats.every((r) => r.status === 200), 'every call answered the first time');
    assert.equal(await failureCell(app, 'rate-explain/quality/cut_off'), '0', 'thinking off: nothing cut off at 128 tokens');
    assert.equal(await failureCell(app, 'score-only +weighted/quality/weighted'), '0');
    assert.equal(await failureCell(app, 'rate-explain +json/quality/unparseable'), '0');
    await assertNothingPaidTwice('gemini-2.5', { expected: ITEMS * 11 });

    // A model the table believes has log-probabilities: refused once, dropped, named in the log.
    await run.open();
    await run.connect({ provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-2.0-flash', key: 'g-key', itemLimit: 3 });
    await run.sendAnyway();
    await run.run();
    const finished = await run.waitFinished(120_000);
    assert.match(finished, /Run complete\. Parameters the API rejected and the run dropped: logprobs/);
    const lines = await run.logLines();
    assert.ok(lines.some((l) => /the API rejected `logprobs` \(Logprobs is not enabled for models\/gemini-2\.0-flash\); continuing without it/.test(l)), lines.join('\n'));
    assert.equal((await run.counts()).failed, 0);
    await assertNothingPaidTwice('gemini-2.0 via gemini-2.5');
  });
});

test('gemini-3: N > 1 looped (never candidateCount), logprobs refused, a reasoning model thinks within 4,096 tokens and its thoughts are billed', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'gemini-3', reply: echo, models: ['gemini-3-pro-preview'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const { run, check } = await setUp(app, { connect: { provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-3-pro-preview', key: 'g-key' } });
    assert.equal(await app.judge.reasoningBudget.count(), 0, 'Max tokens followed the reasoning model');
    await check.check();
    const samples = await check.row('samples');
    assert.equal(samples.verdict, 'refused');
    assert.match(samples.text, /Multiple candidates is not enabled for this model/);
    assert.match((await check.row('logprobs')).text, /Logprobs is not enabled for this model/);
    assert.equal((await check.row('reasoning')).verdict, 'works');
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    const counts = await run.counts();
    assert.equal(counts.failed, 0, counts.text);
    assert.equal(counts.total, ITEMS * 11, 'one sample a call');
    assert.match(counts.text, /of the output tokens spent reasoning/);
    const log = await requests();
    assert.ok(log.every((r) => r.status === 200), 'no call refused');
    await assertNothingPaidTwice('gemini-3', { expected: ITEMS * 11 });
  });
});

test('deepseek: +json sent as JSON mode (never the json_schema it refuses), placeholder logprobs found by the check, N looped', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'deepseek', reply: echo, models: ['deepseek-chat'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const { run, check } = await setUp(app, { connect: { provider: 'deepseek', baseUrl: `${MOCK_URL}/v1`, model: 'deepseek-chat', key: 'ds-key' } });
    await check.check();
    const logprobs = await check.row('logprobs');
    assert.equal(logprobs.verdict, 'refused');
    assert.match(logprobs.text, /placeholders/);
    assert.equal((await check.row('schema')).verdict, 'works');
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    assert.equal((await run.counts()).failed, 0);
    assert.equal(await failureCell(app, 'rate-explain +json/quality/unparseable'), '0', 'JSON mode answered JSON');
    await assertNothingPaidTwice('deepseek', { expected: ITEMS * 11, seedless: true });
  });
});

test('anthropic-4.5: temperature and top_p never sent together; out of credit stops the run with "add credit" and Run again pays nothing twice', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'anthropic-4.5', reply: echo, models: ['claude-sonnet-4-5'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const { run, check } = await setUp(app, { connect: { provider: 'anthropic', baseUrl: `${MOCK_URL}/v1`, model: 'claude-sonnet-4-5', key: 'sk-ant' }, topP: 0.9 });
    await check.check();
    assert.equal((await check.row('plain')).verdict, 'works');
    assert.match((await check.row('logprobs')).text, /no log-probabilities/);
    assert.equal((await check.row('schema')).verdict, 'works');
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    assert.equal((await run.counts()).failed, 0);
    assert.ok((await requests()).every((r) => r.status === 200), 'no call refused: top_p was never sent with temperature');
    await assertNothingPaidTwice('anthropic-4.5', { expected: ITEMS * 11, seedless: true });

    // Out of credit after 25 answers: the run stops and says to add credit.
    await setScenario({ provider: 'anthropic-4.5', reply: echo, models: ['claude-sonnet-4-5-20250929'], credit_after: 25 });
    await run.setModel('claude-sonnet-4-5-20250929');
    await run.run();
    await run.waitFinished(300_000);
    assert.match(await run.finished.innerText(), /Run stopped: quota or spend limit reached \(HTTP 400\): Your credit balance is too low/);
    assert.match(await run.error.innerText(), /Add credit/);
    const stopped = await run.counts();
    assert.ok(stopped.done >= 25 && stopped.done < ITEMS * 11, stopped.text);
    // Credit added: Run again sends only what is missing.
    await setScenario({ provider: 'anthropic-4.5', reply: echo, models: ['claude-sonnet-4-5-20250929'] });
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    const again = await run.counts();
    assert.equal(again.cached + again.total, ITEMS * 11, again.text);
    await assertNothingPaidTwice('anthropic-4.5 after credit', { expected: ITEMS * 11 - stopped.done, seedless: true });
  });
});

test('openrouter-byok: the cost adds the upstream provider\'s charge to OpenRouter\'s fee', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'openrouter-byok', reply: echo, models: ['openai/gpt-4o-mini'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const { run } = await setUp(app, { connect: { provider: 'openrouter', baseUrl: `${MOCK_URL}/v1`, model: 'openai/gpt-4o-mini', key: 'or-key' } });
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    const text = (await run.counts()).text;
    const number = (t) => Number(t.replaceAll(',', ''));
    const [input, output] = text.match(/([\d,]+) tokens in, ([\d,]+) out/).slice(1).map(number);
    const [, cost] = text.match(/\$(\d+\.\d+) \([\d,]+ calls priced by the provider\)/);
    // The mock's upstream bills $0.15 / $0.60 a million tokens; OpenRouter's fee is 5 % of it.
    const upstream = (Number(input) * 0.15 + Number(output) * 0.6) / 1e6;
    assert.ok(Math.abs(Number(cost) - 1.05 * upstream) <= 0.0001 + 1e-3 * upstream, `${cost} vs ${1.05 * upstream}: ${text}`);
    await assertNothingPaidTwice('openrouter-byok', { expected: ITEMS * 11 });
  });
});

test('together-legacy: log-probabilities in the legacy shape weigh every weighted sample', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'together-legacy', reply: echo, models: ['meta-llama/Llama-3.3-70B-Instruct-Turbo'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const { run, check } = await setUp(app, { connect: { provider: 'together', baseUrl: `${MOCK_URL}/v1`, model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo', key: 't-key' } });
    await check.check();
    assert.equal((await check.row('logprobs')).verdict, 'works');
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(300_000), /Run complete/);
    assert.equal(await failureCell(app, 'score-only +weighted/quality/weighted'), String(ITEMS * 5));
    assert.equal(await failureCell(app, 'score-only +weighted/quality/not_weighted'), '0');
    await assertNothingPaidTwice('together-legacy', { expected: ITEMS * 11 });
  });
});

test('llamacpp-small-ctx: one over-long item fails alone and the run goes on; three stop it, naming them; Run again does not stop on them', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'llamacpp-small-ctx', reply: echo, context_tokens: 2000, models: ['smollm2'] });
  await withApp({ problems: 'allowed' }, async (app) => {
    const csv = providersCsv([7, 20, 40]);
    const { run } = await setUp(app, { csv, connect: { provider: 'llamacpp', baseUrl: `${MOCK_URL}/v1`, model: 'smollm2', itemLimit: 10 } });
    await run.run();
    const first = await run.waitFinished(300_000);
    // Item 7's three prompts (one per method) fail; the run completes.
    assert.match(first, /Run complete\./);
    assert.match(first, /3 prompts too long for the model failed \(not sent again\): item row8 · /);
    assert.match((await run.logLines()).join('\n'), /exceeds the available context size.*the run goes on/);
    await assertNothingPaidTwice('llamacpp, 10 items');

    // All 60 items on another model (no answer stored): items 7, 20 and 40 overflow — the third
    // different item stops the run and names them.
    await run.setModel('smollm2-q4');
    await run.unfoldLimits();
    await run.setItemLimit('');
    await mockReset();
    await run.run();
    await run.waitFinished(300_000);
    const stopped = await run.finished.innerText();
    // The requests refused as too long (the mock names a request by its prompt and parameters).
    const prefix = (r) => r.samples[0]?.split(':')[0];
    const refusedBefore = new Set((await requests()).filter((r) => r.status === 400).map(prefix));
    await mockReset();
    assert.match(stopped, /Run stopped: the prompts of 3 different items were too long for the model \(item row8; item row21; item row41\)/);
    assert.match(await run.error.innerText(), /larger context/);
    // Run again: the prompts that overflowed are not sent again, the rest completes.
    await run.run();
    const again = await run.waitFinished(300_000);
    assert.match(again, /Run complete/);
    const again2 = (await requests()).filter((r) => r.status === 400 && refusedBefore.has(prefix(r)));
    assert.deepEqual(again2, [], 'a prompt refused as too long is not sent again');
    await assertNothingPaidTwice('llamacpp, 60 items');
  });
});
