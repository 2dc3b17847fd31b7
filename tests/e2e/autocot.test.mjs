// Real auto-CoT (G-Eval's procedure): on a dataset without a built-in prompt, the "+cot"
// methods do not run until the judge writes the evaluation steps from the task and criteria;
// the steps are shown, editable, cached (asking again sends nothing), in every "+cot" prompt
// (the preview and the requests sent), recorded in the bundle with the request and the
// judge's answer, and `concord report` prints the same results table — with
// "score-only +cot +weighted", G-Eval as its paper describes it (judge-written steps, then
// probability-weighted scores). On SummEval-like data G-Eval's released steps are a named choice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
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

/** The Prompt panel's method select (its label wraps it, options and all). */
function promptMethod(page) {
  return page.locator('section', { has: page.locator('#prompt-heading') }).locator('select').first();
}

async function openCotSelect(page) {
  await page.locator('fieldset', { hasText: 'Auto-CoT evaluation steps' }).getByLabel('with', { exact: true }).check();
  await page.locator('fieldset', { hasText: 'Auto-CoT evaluation steps' }).getByLabel('without', { exact: true }).check();
}

test('the judge writes the evaluation steps that every +cot method uses, kept in the bundle', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-cot-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const chats = [];
    page.on('request', (req) => {
      if (req.url().includes('/v1/chat/completions')) chats.push(req.postDataJSON());
    });
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('qa.csv', qaCsv());
    await setScenario({
      before: [{ contains: 'Evaluation Steps:', at_end: true, reply: `  ${STEPS}\n` }],
      reply: { mode: 'echo_rating', marker: 'RATING=' },
    });

    const judge = new JudgePage(page);
    await judge.open();
    await openCotSelect(page);
    // G-Eval's form: score-only with auto-CoT (and without, to compare).
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const panel = page.getByTestId('steps-helpfulness');
    await panel.waitFor();
    // No released steps for this attribute, and nothing made up: the +cot method waits.
    const options = await panel.getByLabel('Steps', { exact: true }).locator('option').allInnerTexts();
    assert.deepEqual(options, ['none yet', 'written by the judge', 'my own steps']);
    await panel.getByTestId('steps-missing').waitFor();

    // Without a judge, choosing "written by the judge" (which asks it) says what is missing.
    assert.equal(await panel.getByTestId('steps-status').innerText(), '');
    await panel.getByLabel('Steps', { exact: true }).selectOption('judge');
    await page.waitForFunction(() => /No judge yet: set a provider, base URL and model/.test(document.querySelector('[data-testid="steps-helpfulness"] [data-testid="steps-status"]')?.textContent ?? ''));

    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-cot-secret' });
    // The generic criterion of `helpfulness` is the template's placeholder: sent knowingly.
    await run.sendAnyway();
    // The run is refused as a whole, saying why, before the steps exist.
    await run.run();
    await run.error.waitFor();
    assert.match(await run.error.innerText(), /"score-only \+cot" uses auto-CoT but has no evaluation steps for `helpfulness`/);
    assert.equal(chats.length, 0, 'nothing sent');
    await judge.open();
    await panel.getByRole('button', { name: 'Write the helpfulness steps with the judge' }).click();
    await panel.getByTestId('steps-text').waitFor();
    assert.match(await panel.getByTestId('steps-status').innerText(), /mock-model wrote the helpfulness steps\./);
    assert.equal(await panel.getByTestId('steps-text').inputValue(), STEPS);
    assert.equal(await panel.getByLabel('Steps', { exact: true }).inputValue(), 'judge');
    assert.match(await panel.getByTestId('steps-origin').innerText(), /Written by mock-model at http:\/\/127\.0\.0\.1:\d+\/v1, asked from the task and criteria of “score-only \+cot”\./);
    // The request that made them: G-Eval's, from the task and criteria, ending in "Evaluation Steps:".
    assert.equal(chats.length, 1);
    const asked = chats[0].messages.at(-1).content;
    assert.match(asked, /^You will be given an output written for an input\./);
    assert.match(asked, /Helpfulness \(1-5\)/);
    assert.match(asked, /Evaluation Steps:\n$/);
    assert.doesNotMatch(asked, /Question 0/, 'no item in the steps request');
    await panel.getByTestId('steps-request').locator('summary').click();
    assert.match(await panel.getByTestId('steps-request').innerText(), /Evaluation Steps:/);

    // Asking again costs nothing: the answer is in the cache.
    await panel.getByRole('button', { name: 'Write the helpfulness steps with the judge' }).click();
    await page.waitForFunction(() => /from the cache/.test(document.querySelector('[data-testid="steps-helpfulness"] [data-testid="steps-status"]')?.textContent ?? ''));
    assert.equal(chats.length, 1, 'nothing sent the second time');
    // The steps stay the judge's that wrote them; another model on the Run screen is said.
    await run.open();
    await run.setModel('mock-model-2');
    await judge.open();
    assert.match(await panel.innerText(), /The Run screen now names mock-model-2; these steps stay mock-model's until you write them again\./);
    await run.open();
    await run.setModel('mock-model');
    await judge.open();
    assert.doesNotMatch(await panel.innerText(), /The Run screen now names/);

    // The preview of the +cot method shows them; the method without auto-CoT has none.
    await promptMethod(page).selectOption({ label: 'score-only +cot' });
    assert.match(await judge.preview.innerText(), /Evaluation Steps:\n\n1\. Read the question and the answer\./);
    // Edited: every +cot prompt follows.
    await panel.getByTestId('steps-text').fill(`${STEPS}\n${EDIT}`);
    await panel.getByTestId('steps-text').dispatchEvent('change');
    await page.waitForFunction((edit) => document.querySelector('[data-testid="prompt-preview"]')?.innerText.includes(edit), EDIT);
    assert.match(await panel.getByTestId('steps-origin').innerText(), /edited since/);
    await promptMethod(page).selectOption({ label: 'score-only' });
    assert.doesNotMatch(await judge.preview.innerText(), /Evaluation Steps/);
    // G-Eval in full: probability-weighted methods added now take the same (edited) steps.
    await openCotSelect(page);
    await page.getByTestId('weighted').check();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await page.getByTestId('methods').getByText('score-only +cot +weighted').waitFor();
    await promptMethod(page).selectOption({ label: 'score-only +cot +weighted' });
    await page.waitForFunction((edit) => document.querySelector('[data-testid="prompt-preview"]')?.innerText.includes(edit), EDIT);

    const shots = process.env.CONCORD_SCREENSHOTS;
    if (shots) {
      mkdirSync(shots, { recursive: true });
      const steps = page.getByTestId('steps-panel');
      await steps.screenshot({ path: `${shots}/judge-steps.png` });
      await page.getByTestId('theme').selectOption('dark');
      await steps.screenshot({ path: `${shots}/judge-steps-dark.png` });
      await page.getByTestId('theme').selectOption('light');
      await page.setViewportSize({ width: 375, height: 800 });
      await steps.screenshot({ path: `${shots}/judge-steps-375.png` });
      await page.getByTestId('theme').selectOption('auto');
      await page.setViewportSize({ width: 1280, height: 900 });
    }

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
    const results = new ResultsPage(page);
    await results.open();
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    const weighted = page.locator('table[data-table="parse-failures"] td[data-cell="score-only +cot +weighted/helpfulness/weighted"]');
    assert.equal(await weighted.innerText(), '12', 'every sample of G-Eval weighted');
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const text = readFileSync(bundle, 'utf8');
    assert.doesNotMatch(text, /sk-cot-secret/);
    const steps = JSON.parse(text).study.steps.helpfulness;
    assert.equal(steps.kind, 'judge');
    assert.equal(steps.request.messages[0].content, asked);
    assert.equal(steps.answer, `  ${STEPS}\n`);
    assert.equal(steps.steps, `${STEPS}\n${EDIT}`);
    assert.equal(steps.endpoint.model, 'mock-model');
    assert.equal(steps.method, 'score-only +cot');
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    const csv = await results.exportTable('concord-results');
    assert.match(csv, /score-only \+cot \+weighted/);
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));

    // The saved workspace keeps them across a reload.
    await page.waitForTimeout(2000);
    await page.reload();
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await judge.open();
    assert.equal(await panel.getByLabel('Steps', { exact: true }).inputValue(), 'judge');
    assert.equal(await panel.getByTestId('steps-text').inputValue(), `${STEPS}\n${EDIT}`);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('on SummEval-like data the +cot methods start from G-Eval\'s released steps, named as such', { timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    const judge = new JudgePage(page);
    await judge.open();
    await openCotSelect(page);
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const panel = page.getByTestId('steps-coherence');
    await panel.waitFor();
    const select = panel.getByLabel('Steps', { exact: true });
    assert.equal(await select.inputValue(), 'released');
    assert.equal(await select.locator('option:checked').innerText(), "G-Eval's released steps");
    assert.match(await panel.innerText(), /G-Eval's released steps \(Liu et al\., 2023\)/);
    assert.match(await panel.getByTestId('steps-released').innerText(), /^Evaluation Steps:/);
    if (process.env.CONCORD_SCREENSHOTS) {
      await page.getByTestId('steps-panel').screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/judge-steps-released.png` });
    }
    // Switched to the user's own steps, the prompt follows; back to released, the paper's text.
    await select.selectOption('own');
    await panel.getByTestId('steps-text').fill('1. My own step.');
    await panel.getByTestId('steps-text').dispatchEvent('change');
    await promptMethod(page).selectOption({ label: 'score-only +cot' });
    await page.waitForFunction(() => document.querySelector('[data-testid="prompt-preview"]')?.innerText.includes('1. My own step.'));
    await select.selectOption('released');
    await page.waitForFunction(() => !document.querySelector('[data-testid="prompt-preview"]')?.innerText.includes('1. My own step.'));
    assert.match(await judge.preview.innerText(), /Evaluation Steps:\n\n1\. Read the news article carefully/);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
