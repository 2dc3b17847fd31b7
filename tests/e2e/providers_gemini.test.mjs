// Gemini follow-ups of issue 35, against the gemini-2.5 mock personality
// (xtask/src/mock_llm/providers.rs): a "+weighted" method whose log-probabilities the model
// refuses sends the same requests as its plain twin, so one answer serves both — paid once,
// before the run (the model is known to give none) or midway (refused on the first call) — and
// the run and Results say the weighted method fell back to the plain answers. A weighted method
// with no twin is marked on Results as one the checked model cannot serve.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MOCK_URL, setScenario, mockRequests as requests, mockReset, mockSummary as summary } from './browser.mjs';
import { withApp } from './harness.mjs';
import { waitWorkspaceSaved, workspaceSaves } from './pages/workbench_pages.mjs';
import { ModelCheckPage } from './pages/model_check_page.mjs';

const ITEMS = 6;
const N = 2;

/** Six outputs with a planted rating (the mock's echo answers it). */
function csv() {
  const rows = ['doc,sys,source,output,quality'];
  for (let i = 0; i < ITEMS; i++) {
    const q = 1 + ((i * 7) % 5);
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)} text.","Summary ${i}. RATING=${q}",${q}`);
  }
  return rows.join('\n') + '\n';
}

/** Samples the mock answered successfully, and the summary's samples answered twice. */
async function paid() {
  const log = await requests();
  const samples = log.filter((r) => r.answered_ok).reduce((n, r) => n + r.samples.length, 0);
  return { samples, duplicates: (await summary()).duplicate_successes, log };
}

test('gemini: a weighted method whose log-probabilities are refused reuses its plain twin\'s answers, paid once, and says it fell back', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'gemini-2.5', reply: { mode: 'echo_rating', marker: 'RATING=' }, models: ['gemini-2.5-flash', 'gemini-2.0-flash'] });
  await withApp({ ignore: /status of 400/ }, async (app) => {
    const { data, run, judge, results } = app;
    await data.loadFile('twins.csv', csv());
    await run.open();
    await run.connect({ provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-2.5-flash', key: 'g-key' });
    await judge.open();
    // score-only +weighted (read plainly when it cannot be weighted) and its twin, score-only.
    await judge.weighted.check();
    await judge.setWeightingFallback('parsed');
    await judge.addMethods({ modes: ['score-only'], n: N });
    await judge.weighted.uncheck();
    await judge.addMethods({ modes: ['score-only'], n: N });
    // rate-explain +weighted has no twin: it is paid, and its refusal is named on Results.
    await judge.weighted.check();
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });
    await judge.weighted.uncheck();
    await judge.method('score-only +weighted').waitFor();
    await run.open();
    await run.sendAnyway();
    const check = new ModelCheckPage(app.page);
    await check.check();
    assert.equal((await check.row('logprobs')).verdict, 'refused');

    // gemini-2.5-flash gives no log-probabilities (the table, from google-genai's tests): the
    // weighted method is planned onto its twin's requests.
    await mockReset();
    await run.run();
    const finished = await run.waitFinished(120_000);
    assert.match(finished, /Run complete/);
    assert.match(finished, /score-only \+weighted fell back to the plain answers of score-only: gemini-2\.5-flash gives no log-probabilities/);
    let p = await paid();
    assert.equal(p.samples, ITEMS * N + ITEMS, `only the plain method's samples (and rate-explain +weighted's) are paid (${p.samples})`);
    assert.deepEqual(p.duplicates, []);
    assert.ok((await run.logLines()).some((l) => /fell back to the plain answers of score-only/.test(l)));
    await results.open();
    await results.rowHeader('score-only +weighted').waitFor();
    const notes = await results.runNotes();
    assert.ok(notes.some((n) => /score-only \+weighted fell back to the plain answers of score-only/.test(n)), notes.join('\n'));
    // The checked model's refusal is named with the method it leaves unweighted (and only it).
    assert.ok(notes.some((n) => /^rate-explain \+weighted: gemini-2\.5-flash cannot serve it — no log-probabilities \(Logprobs is not enabled for models\/gemini-2\.5-flash/.test(n)), notes.join('\n'));
    assert.ok(!notes.some((n) => /^score-only \+weighted: .* cannot serve it/.test(n)), notes.join('\n'));

    // gemini-2.0-flash: the table expects log-probabilities; the first weighted calls are
    // refused, logprobs is dropped, and every weighted call then reuses its twin's answer.
    await run.open();
    await run.connect({ provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-2.0-flash', key: 'g-key' });
    await run.sendAnyway();
    await mockReset();
    await run.run();
    const midway = await run.waitFinished(120_000);
    assert.match(midway, /Run complete\. Parameters the API rejected and the run dropped: logprobs/);
    assert.match(midway, /gemini-2\.0-flash refused log-probabilities, so its requests became the same as score-only's: \d+ of its calls reused/);
    assert.equal((await run.counts()).failed, 0);
    p = await paid();
    assert.ok(p.log.some((r) => r.status === 400), 'log-probabilities were refused');
    assert.equal(p.samples, ITEMS * N + ITEMS, `each request paid once (${p.samples} samples paid)`);
    assert.deepEqual(p.duplicates, []);

    // Run again: everything is stored, nothing is sent.
    await mockReset();
    await run.run();
    await run.waitFinished(60_000);
    assert.equal((await requests()).length, 0);
  });
});

test('gemini-2.5: thinking off by default; the Run screen turns it on (thinkingBudget −1), its thoughts counted, the setting kept across a reload', { skip: !MOCK_URL, timeout: 400_000 }, async () => {
  await setScenario({ provider: 'gemini-2.5', reply: { mode: 'echo_rating', marker: 'RATING=' }, models: ['gemini-2.5-flash'] });
  await withApp({}, async (app) => {
    const { page, data, run, judge } = app;
    await data.loadFile('thinking.csv', csv());
    await run.open();
    await run.connect({ provider: 'gemini', baseUrl: `${MOCK_URL}/v1beta`, model: 'gemini-2.5-flash', key: 'g-key' });
    assert.equal(await run.geminiThinking.isChecked(), false, 'off by default');
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await run.open();
    await run.sendAnyway();
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(120_000), /Run complete/);
    assert.doesNotMatch(await run.progress.innerText(), /spent reasoning/, 'thinkingBudget 0: no thoughts');

    // On: the model is planned as a reasoning model (the 128-token method is warned about) …
    const saves = await workspaceSaves(page);
    await run.geminiThinking.check();
    await run.reasoningBudget.waitFor();
    assert.match(await run.reasoningBudget.innerText(), /gemini-2\.5-flash is a reasoning model/);
    // … new methods get room to think, and the thoughts are counted (the mock thinks unless
    // told `thinkingBudget: 0`, as Gemini 2.5 Flash does).
    await judge.open();
    await judge.removeMethod('score-only');
    assert.equal(await judge.maxTokens.inputValue(), '4096');
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await run.open();
    await run.sendAnyway();
    await mockReset();
    await run.run();
    assert.match(await run.waitFinished(120_000), /Run complete/);
    const log = await requests();
    assert.equal(log.filter((r) => r.answered_ok).length, ITEMS, 'answers with thinking are asked for, not read from the cache of answers without');
    assert.match(await run.progress.innerText(), /of the output tokens spent reasoning/);

    // Kept with the other run settings.
    await waitWorkspaceSaved(page, saves);
    await app.reload();
    await run.open();
    assert.equal(await run.geminiThinking.isChecked(), true);
  });
});
