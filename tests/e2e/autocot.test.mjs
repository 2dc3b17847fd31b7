// Real auto-CoT (G-Eval's procedure): on a dataset without a built-in prompt, the "+cot"
// methods do not run until the judge writes the evaluation steps from the task and criteria;
// the steps are shown, editable, cached (asking again sends nothing), in every "+cot" prompt
// (the preview and the requests sent), recorded in the bundle with the request and the
// judge's answer, and `concord report` prints the same results table — with
// "score-only +cot +weighted", G-Eval as its paper describes it (judge-written steps, then
// probability-weighted scores). On SummEval-like data G-Eval's released steps are a named choice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL } from './browser.mjs';
import { withApp, cli, shootThemes } from './harness.mjs';

const STEPS = '1. Read the question and the answer.\n2. Check whether the answer helps the asker.\n3. Assign a helpfulness score from 1 to 5.';
const EDIT = '4. Be strict about unsupported claims.';

/** A question-answering table with one attribute no paper's prompt covers. */
function qaCsv() {
  const rows = ['doc,sys,source,output,helpfulness'];
  for (let i = 0; i < 12; i++) {
    const q = 1 + ((i * 7) % 5);
    rows.push(`q${Math.floor(i / 3)},s${i % 3},"Question ${Math.floor(i / 3)}?","Answer ${i}. RATING=${q}",${q}`);
  }
  return rows.join('\n') + '\n';
}

test('the judge writes the evaluation steps that every +cot method uses, kept in the bundle', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const scenario = {
    before: [{ contains: 'Evaluation Steps:', at_end: true, reply: `  ${STEPS}\n` }],
    reply: { mode: 'echo_rating', marker: 'RATING=' },
  };
  await withApp({ data: { name: 'qa.csv', text: qaCsv() }, scenario }, async (app) => {
    const { page, judge, run, results } = app;
    const dir = app.tempDir('concord-cot-');
    const chats = [];
    page.on('request', (req) => {
      if (req.url().includes('/v1/chat/completions')) chats.push(req.postDataJSON());
    });

    await judge.open();
    await judge.withAndWithoutCot();
    // G-Eval's form: score-only with auto-CoT (and without, to compare).
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const steps = judge.steps('helpfulness');
    await steps.panel.waitFor();
    // No released steps for this attribute, and nothing made up: the +cot method waits.
    assert.deepEqual(await steps.options(), ['none yet', 'written by the judge', 'my own steps']);
    await steps.missing.waitFor();

    // Without a judge, choosing "written by the judge" (which asks it) says what is missing.
    assert.equal(await steps.status.innerText(), '');
    await steps.select.selectOption('judge');
    await steps.waitStatus(/No judge yet: set a provider, base URL and model/);

    await app.connectMock({ key: 'sk-cot-secret' });
    // The generic criterion of `helpfulness` is the template's placeholder: sent knowingly.
    await run.sendAnyway();
    // The run is refused as a whole, saying why, before the steps exist.
    await run.run();
    await run.error.waitFor();
    assert.match(await run.error.innerText(), /"score-only \+cot" uses auto-CoT but has no evaluation steps for `helpfulness`/);
    assert.equal(chats.length, 0, 'nothing sent');
    await judge.open();
    await steps.writeWithJudge();
    await steps.text.waitFor();
    assert.match(await steps.status.innerText(), /mock-model wrote the helpfulness steps\./);
    assert.equal(await steps.text.inputValue(), STEPS);
    assert.equal(await steps.select.inputValue(), 'judge');
    assert.match(await steps.origin.innerText(), /Written by mock-model at http:\/\/127\.0\.0\.1:\d+\/v1, asked from the task and criteria of “score-only \+cot”\./);
    // The request that made them: G-Eval's, from the task and criteria, ending in "Evaluation Steps:".
    assert.equal(chats.length, 1);
    const asked = chats[0].messages.at(-1).content;
    assert.match(asked, /^You will be given an output written for an input\./);
    assert.match(asked, /Helpfulness \(1-5\)/);
    assert.match(asked, /Evaluation Steps:\n$/);
    assert.doesNotMatch(asked, /Question 0/, 'no item in the steps request');
    await steps.openRequest();
    assert.match(await steps.request.innerText(), /Evaluation Steps:/);

    // Asking again costs nothing: the answer is in the cache.
    await steps.writeWithJudge();
    await steps.waitStatus(/from the cache/);
    assert.equal(chats.length, 1, 'nothing sent the second time');
    // The steps stay the judge's that wrote them; another model on the Run screen is said.
    await run.open();
    await run.setModel('mock-model-2');
    await judge.open();
    assert.match(await steps.panel.innerText(), /The Run screen now names mock-model-2; these steps stay mock-model's until you write them again\./);
    await run.open();
    await run.setModel('mock-model');
    await judge.open();
    assert.doesNotMatch(await steps.panel.innerText(), /The Run screen now names/);

    // The preview of the +cot method shows them; the method without auto-CoT has none.
    await judge.previewMethod('score-only +cot');
    assert.match(await judge.preview.innerText(), /Evaluation Steps:\n\n1\. Read the question and the answer\./);
    // Edited: every +cot prompt follows.
    await steps.setText(`${STEPS}\n${EDIT}`);
    await judge.waitPreview(EDIT);
    assert.match(await steps.origin.innerText(), /edited since/);
    await judge.previewMethod('score-only');
    assert.doesNotMatch(await judge.preview.innerText(), /Evaluation Steps/);
    // G-Eval in full: probability-weighted methods added now take the same (edited) steps.
    await judge.withAndWithoutCot();
    await judge.weighted.check();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await judge.method('score-only +cot +weighted').waitFor();
    await judge.previewMethod('score-only +cot +weighted');
    await judge.waitPreview(EDIT);

    await shootThemes(judge.stepsPanel, 'judge-steps');

    // The run: every +cot rating prompt carries the edited steps.
    await run.open();
    await run.sendAnyway();
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    const ratings = chats.slice(1).map((c) => c.messages.at(-1).content);
    const cot = ratings.filter((p) => p.includes('Evaluation Steps:'));
    assert.equal(ratings.length, 48, 'four methods × 12 items');
    assert.equal(cot.length, 24);
    assert.ok(cot.every((p) => p.includes(`Evaluation Steps:\n\n${STEPS}\n${EDIT}\n\n`)), 'the edited steps in every +cot prompt');

    // The bundle records where the steps came from; the CLI prints the same table.
    await results.open();
    await results.openParseFailures();
    assert.equal(await results.parseFailure('score-only +cot +weighted/helpfulness/weighted'), '12', 'every sample of G-Eval weighted');
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const text = readFileSync(bundle, 'utf8');
    assert.doesNotMatch(text, /sk-cot-secret/);
    const saved = JSON.parse(text).study.steps.helpfulness;
    assert.equal(saved.kind, 'judge');
    assert.equal(saved.request.messages[0].content, asked);
    assert.equal(saved.answer, `  ${STEPS}\n`);
    assert.equal(saved.steps, `${STEPS}\n${EDIT}`);
    assert.equal(saved.endpoint.model, 'mock-model');
    assert.equal(saved.method, 'score-only +cot');
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    const csv = await results.exportTable('concord-results');
    assert.match(csv, /score-only \+cot \+weighted/);
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));

    // The saved workspace keeps them across a reload.
    await page.waitForTimeout(2000);
    await app.reload();
    await judge.open();
    assert.equal(await steps.select.inputValue(), 'judge');
    assert.equal(await steps.text.inputValue(), `${STEPS}\n${EDIT}`);
  });
});

test('on SummEval-like data the +cot methods start from G-Eval\'s released steps, named as such', { timeout: 120_000 }, async () => {
  await withApp({}, async ({ judge }) => {
    await judge.open();
    await judge.withAndWithoutCot();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const steps = judge.steps('coherence');
    await steps.panel.waitFor();
    assert.equal(await steps.select.inputValue(), 'released');
    assert.equal(await steps.chosen(), "G-Eval's released steps");
    assert.match(await steps.panel.innerText(), /G-Eval's released steps \(Liu et al\., 2023\)/);
    assert.match(await steps.released.innerText(), /^Evaluation Steps:/);
    if (process.env.CONCORD_SCREENSHOTS) {
      await judge.stepsPanel.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/judge-steps-released.png` });
    }
    // Switched to the user's own steps, the prompt follows; back to released, the paper's text.
    await steps.select.selectOption('own');
    await steps.setText('1. My own step.');
    await judge.previewMethod('score-only +cot');
    await judge.waitPreview('1. My own step.');
    await steps.select.selectOption('released');
    await judge.waitPreview('1. My own step.', { absent: true });
    assert.match(await judge.preview.innerText(), /Evaluation Steps:\n\n1\. Read the news article carefully/);
  });
});
