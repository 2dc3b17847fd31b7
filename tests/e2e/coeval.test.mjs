// CoEval (seed 004) in the browser: a full scrutiny session driven by the keyboard with a
// reload midway (nothing lost, undo after the reload), export → import into a second browser
// profile → merged results with conflicts, and the released files recomputed exactly as
// `concord coeval --format json` prints them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL, MOCK_URL, mockRequests, setScenario as scenario } from './browser.mjs';
import { withApp, expectTimerStopsWhileHidden } from './harness.mjs';
import { COEVAL_TINY, missingShared } from './fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SHARED = resolve(ROOT, '../shared/data/CoEval');

// combine_data.json's shape: one task, two instances (turbo, human), two criteria, and the
// LLM's evaluation of each (conclusion, score, evidence quotes).
const FIXTURE = COEVAL_TINY;

test('a keyboard scrutiny session survives a reload, exports, and merges in a second profile', async () => {
  let exported;
  let table6;
  await withApp({ url: null }, async ({ page, coeval }) => {
    await coeval.open(CONCORD_URL);
    await coeval.setAnnotator('Ann');
    await coeval.startFromFile('combine_data.json', FIXTURE);
    assert.match(await coeval.study.textContent(), /Task: tiny · 2 instances · 2 criteria/);

    // Stage 1: approve one criterion, revise the other; the majority (of one) keeps both.
    await coeval.decideCriterion(1, 'Approve', { reason: 'clear' });
    await coeval.decideCriterion(2, 'Revise', { reason: 'sharper', revised: '2. Stays on topic.' });
    assert.deepEqual(await coeval.finalCriteria(), [
      '1. Fluent. — kept by 1 of 1',
      '2. Stays on topic. (revised from “2. On topic.”) — kept by 1 of 1',
    ]);
    assert.deepEqual((await coeval.table('table5'))[0], ['criteria', '50.00', '50.00', '0.00', '0.00', '2']);
    // Criteria that carry their own numbers ("1. Fluent.") are not numbered a second time.
    for (const list of ['criteria-list', 'final-criteria']) {
      assert.equal(await coeval.listStyle(list), 'none', list);
    }

    // Stage 2, instance 1, "1. Fluent.": parts are conclusion, score, one quote.
    await coeval.startScrutiny();
    assert.equal(await coeval.keyCount(), 10, 'the keys are documented on screen');
    assert.equal(await coeval.position.textContent(), 'Instance 1 of 2 · criterion 1 of 2');
    assert.deepEqual(await coeval.labels(), ['Conclusion', 'Score', 'Evidence 1']);
    await coeval.keys('a', 'j', 'r');
    await coeval.edit({ text: 'Score: 3', reason: 'too generous' });
    await coeval.keys('3', 'j', 'x');
    await coeval.edit({ reason: 'not evidence' });
    await coeval.keys('e');
    await coeval.edit({ text: 'slept', reason: 'the key word' });
    assert.deepEqual(await coeval.decisions(), [
      'approve',
      'revise: “Score: 3” (reason: too generous)',
      'delete (reason: not evidence)',
      'add: “slept” (reason: the key word)',
    ]);
    assert.equal(await coeval.ownScore.textContent(), '3');
    // Next criterion (revised wording, the LLM's evaluation of the original): approve all, 4.
    await coeval.keys('n');
    assert.equal(await coeval.criterionName.textContent(), '2. Stays on topic.');
    await coeval.keys('Shift+A', '4');
    assert.deepEqual(await coeval.decisions(), ['approve', 'approve', 'approve']);
    await coeval.saved();

    // Reload midway: everything is back, at the same place, and undo still works.
    await coeval.reload();
    await coeval.startScrutiny();
    assert.equal(await coeval.position.textContent(), 'Instance 1 of 2 · criterion 2 of 2');
    assert.deepEqual(await coeval.decisions(), ['approve', 'approve', 'approve']);
    assert.equal(await coeval.ownScore.textContent(), '4');
    await coeval.keys('u');
    assert.equal(await coeval.ownScore.textContent(), 'not set', 'undo after a reload undoes the score');
    // Undo goes back one action at a time, and "approve the rest" (Shift+A) was one action.
    await coeval.keys('Control+z');
    assert.deepEqual(await coeval.decisions(), ['undecided', 'undecided', 'undecided']);
    await coeval.keys('a', 'j', 'a');
    assert.deepEqual(await coeval.decisions(), ['approve', 'approve', 'undecided']);
    await coeval.keys('5');
    // Instance 2: approve the conclusion, delete the score with a reason, own score 2.
    await coeval.keys('n');
    assert.equal(await coeval.position.textContent(), 'Instance 2 of 2 · criterion 1 of 2');
    await coeval.keys('a', 'j', 'x');
    await coeval.edit({ reason: 'wrong' });
    await coeval.keys('2');
    await coeval.saved();
    if (process.env.CONCORD_SCREENSHOTS) {
      mkdirSync(process.env.CONCORD_SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/coeval.png`, fullPage: true });
    }
    // A second reload keeps the undo and what followed it.
    await coeval.reload();
    await coeval.startScrutiny();
    assert.equal(await coeval.position.textContent(), 'Instance 2 of 2 · criterion 1 of 2');
    assert.equal(await coeval.ownScore.textContent(), '2');

    await coeval.tab('Results');
    table6 = await coeval.table('results-table6');
    exported = await coeval.exportMine();
    assert.equal(exported.name, 'coeval-tiny-Ann.json');
    const file = JSON.parse(exported.text);
    assert.equal(file.format, 'concord-coeval-annotations');
    assert.equal(file.annotator, 'Ann');
    assert.ok(file.events.some((e) => e.kind === 'undo'), 'the export is the whole log, undos included');
  });

  // A coordinator in a fresh profile: same task, Ann's file and a second copy of it whose last
  // score differs (a re-export after a change): one conflict, nothing dropped.
  await withApp({ url: null }, async ({ coeval }) => {
    await coeval.open(CONCORD_URL);
    await coeval.startFromFile('combine_data.json', FIXTURE);
    const changed = JSON.parse(exported.text);
    const lastScore = changed.events.findLastIndex((e) => e.kind === 'score');
    changed.events[lastScore].score = 1;
    await coeval.importFiles([exported, { name: 'ann-again.json', text: JSON.stringify(changed) }]);
    const merged = await coeval.table('merged-annotators');
    assert.equal(merged.length, 1);
    assert.equal(merged[0][0], 'Ann');
    assert.equal(merged[0][1], 'coeval-tiny-Ann.json, ann-again.json');
    const conflicts = await coeval.table('conflicts');
    assert.equal(conflicts.length, 1);
    assert.match(conflicts[0][1], /score$/);
    assert.deepEqual([conflicts[0][2], conflicts[0][3], conflicts[0][4], conflicts[0][5]],
      ['1.0', 'ann-again.json', '2.0', 'coeval-tiny-Ann.json']);

    // The coordinator's imports are kept in this browser: a reload brings them back.
    await coeval.saved();
    await coeval.reload();
    await coeval.tab('Annotators & merge');
    await coeval.importedCount('2 annotator files imported').waitFor();
    assert.equal((await coeval.table('conflicts')).length, 1);

    // Without the changed copy the merged results equal the annotator's own.
    await coeval.forgetImported();
    await coeval.importFiles([exported]);
    await coeval.tab('Results');
    assert.deepEqual(await coeval.table('results-table6'), table6);
    const alpha = await coeval.table('results-alpha');
    assert.deepEqual(alpha.map((r) => r[0]), ['LLM', 'Ann']);

    // Forgotten means forgotten, after a reload too.
    await coeval.forgetImported();
    await coeval.saved();
    await coeval.reload();
    await coeval.tab('Annotators & merge');
    await coeval.importedCount('0 annotator files imported').waitFor();
    await coeval.importFiles([exported, { name: 'ann-again.json', text: JSON.stringify(changed) }]);
    const out = await coeval.exportMerged();
    const classroom = JSON.parse(out.text);
    assert.equal(classroom.format, 'concord-coeval-classroom');
    assert.deepEqual(classroom.annotators.map((a) => a.annotator), ['Ann']);
    assert.equal(classroom.conflicts.length, 1);
  });
});

test('LLM ideation and instance evaluation through the run engine (mock LLM)', { skip: !MOCK_URL }, async () => {
  await withApp({ url: null }, async (app) => {
    const { coeval } = app;
    await coeval.open(CONCORD_URL);
    await app.connectMock({ key: 'sk-coeval-test' });
    await coeval.open();
    await coeval.setAnnotator('Ann');
    await coeval.startTyped({
      task: 'stories', description: 'to write a story', input: 'story requirement', output: 'story',
      instances: [{ input: 'A cat.', output: 'The cat slept.', system: 'turbo' }],
    });

    await scenario({ reply: { mode: 'canned', text: 'Capabilities:\n1. Fluency.\n2. Coherence.' } });
    await coeval.ideate();
    await coeval.llmStatus('Criteria ideated').waitFor();
    assert.deepEqual(await coeval.criterionTexts(), ['Fluency.', 'Coherence.']);

    await scenario({ reply: { mode: 'canned', text: '1. It reads well.\n\n2. Score: 4\n\n3. Evidence: "The cat slept."' } });
    await coeval.evaluateWithLlm();
    await coeval.llmStatus('2 evaluations received.').waitFor();
    const chats = (await mockRequests()).filter((r) => r.path === '/v1/chat/completions');
    assert.equal(chats.length, 2, 'one evaluation call per criterion');
    // Asking again sends nothing: every instance has its evaluation.
    await coeval.evaluateWithLlm();
    await coeval.llmStatus('Every instance already has').waitFor();

    await coeval.startScrutiny();
    assert.deepEqual(await coeval.labels(), ['Conclusion', 'Score', 'Evidence 1']);
    const texts = await coeval.partTexts();
    assert.deepEqual(texts, ['It reads well.', '4', 'The cat slept.']);
  });
});

/** An OpenAI chat-completions body with one choice per text (a scripted answer with n > 1). */
function choices(texts) {
  return {
    id: 'chatcmpl-scripted', object: 'chat.completion', created: 0, model: 'mock-model',
    choices: texts.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop' })),
    usage: { prompt_tokens: 50, completion_tokens: 20 * texts.length, total_tokens: 50 + 20 * texts.length },
  };
}

test('repeated ideation shows recurring criteria; CoEval LLM runs pause, resume and cancel (mock LLM)', { skip: !MOCK_URL }, async () => {
  await withApp({ url: null }, async (app) => {
    const { page, coeval } = app;
    await coeval.open(CONCORD_URL);
    await app.connectMock({ key: 'sk-coeval-test', concurrency: 1 });
    await coeval.open();
    await coeval.setAnnotator('Bea');
    const instances = ['A cat.', 'A dog.', 'A bird.'].map((input, i) => ({ input, output: `Story ${i}.`, system: 'turbo' }));
    await coeval.startTyped({ task: 'repeat', description: 'to write a story', input: 'story requirement', output: 'story', instances });

    // Three ideation answers in one call (n = 3), worded differently.
    await scenario({ script: [{ status: 200, body: choices([
      '1. Fluency: reads well\n2. Coherence: holds together',
      '1. **Coherence** - logical order\n2. Creativity\n3. fluency: grammatical',
      '- Fluency\n- Relevance: on topic',
    ]) }] });
    await coeval.setIdeationAnswers(3);
    await coeval.ideate();
    await coeval.llmStatus('3 of 3 ideation answers received').waitFor();
    const chats = (await mockRequests()).filter((r) => r.path === '/v1/chat/completions');
    assert.equal(chats.length, 1, 'one call with n = 3');
    const rows = await coeval.table('ideation-recurrence');
    assert.deepEqual(rows.map((r) => [r[0], r[1], r[2]]), [
      ['Fluency: reads well', '3', '100 %'],
      ['Coherence: holds together', '2', '67 %'],
      ['Creativity', '1', '33 %'],
      ['Relevance: on topic', '1', '33 %'],
    ]);
    // Majority (2 of 3) is the default threshold.
    await coeval.useRecurring();
    assert.deepEqual(await coeval.criterionTexts(),
      ['Fluency: reads well', 'Coherence: holds together']);

    // 3 instances × 2 criteria = 6 calls, one at a time, 400 ms each: pause after the first.
    await scenario({ latency_ms: 400, reply: { mode: 'canned', text: '1. Fine.\n\n2. Score: 3\n\n3. Evidence: "Story"' } });
    const answered = async () => (await mockRequests())
      .filter((r) => r.path === '/v1/chat/completions' && r.status === 200).length;
    await coeval.evaluateWithLlm();
    await coeval.waitLlmStatus(/^[1-9]\d* of 6 calls done/);
    await coeval.pauseLlm();
    await page.waitForTimeout(600); // the call in flight lands
    const atPause = await answered();
    await page.waitForTimeout(1500);
    assert.equal(await answered(), atPause, 'nothing is sent while paused');
    assert.ok(atPause < 6, `paused before the end (${atPause} answered)`);
    // Slower answers from now on (the log kept), so Cancel below lands midway.
    const slow = { latency_ms: 3000, reply: { mode: 'canned', text: '1. Fine.\n\n2. Score: 3\n\n3. Evidence: "Story"' } };
    await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(slow) });
    await coeval.resumeLlm();
    for (let i = 0; i < 100 && await answered() <= atPause; i += 1) await page.waitForTimeout(100);
    assert.ok(await answered() > atPause, 'sending again after Resume');
    // Cancel midway: what arrived is kept, and running again sends only the rest. The mock
    // holds its answers first, so the run is midway however slow the machine.
    await fetch(`${MOCK_URL}/__mock/hold`, { method: 'POST' });
    await coeval.cancelLlm();
    await coeval.text(/Run cancelled\. Everything stored so far is kept/).waitFor();
    await fetch(`${MOCK_URL}/__mock/release`, { method: 'POST' });
    const received = Number((await coeval.llmStatusText()).match(/^(\d+) evaluations? received/)?.[1]);
    assert.ok(received >= 1 && received < 6, `kept ${received} evaluations`);
    await scenario({ reply: { mode: 'canned', text: '1. Fine.\n\n2. Score: 3\n\n3. Evidence: "Story"' } });
    await coeval.evaluateWithLlm();
    await coeval.llmStatus(`${6 - received} evaluation${6 - received === 1 ? '' : 's'} received.`).waitFor();
    // The problem banner of the cancel is expected; nothing else (withApp asserts no page error).
  });
});

test('the instance timer stops while the tab is hidden', async () => {
  await withApp({ url: null }, async ({ page, coeval }) => {
    // The page's clock is Playwright's: the test moves it, so a loaded machine cannot stretch
    // a wait and no assertion depends on how fast anything runs.
    await page.clock.install();
    await coeval.open(CONCORD_URL);
    await coeval.setAnnotator('Cy');
    await coeval.startFromFile('combine_data.json', FIXTURE);
    await coeval.startScrutiny();
    await coeval.waitTimer(/Time on this instance: [2-9]/);
    await expectTimerStopsWhileHidden(page, () => coeval.timerSeconds());
  });
});

/** Released files the browser can tell apart by name (ROCStories' unprefixed near-duplicate
 * `annotator_scores.json` needs its folder; the CLI gets the same list). */
function releasedFiles() {
  const out = [];
  const folders = { ELI5: 'eli5', ROCStories: 'roc', 'Self-Instruct': 'self_instruct' };
  for (const [folder, prefix] of Object.entries(folders)) {
    const dir = join(SHARED, 'webapp/evaluation_data', folder);
    for (const name of [`${prefix}_action.json`, `${prefix}_annotator_scores.json`]) {
      if (existsSync(join(dir, name))) out.push(join(dir, name));
    }
  }
  for (let i = 1; i <= 15; i += 1) {
    const folder = i <= 5 ? 'ELI5' : i <= 10 ? 'ROCStories' : 'Self-Instruct';
    const p = join(SHARED, 'webapp/evaluation_data', folder, `A${String(i).padStart(2, '0')}.json`);
    if (existsSync(p)) out.push(p);
  }
  return out;
}

function runCli(files, format) {
  const bin = process.env.CONCORD_CLI;
  const args = ['coeval', ...files, '--format', format];
  return bin
    ? execFileSync(bin, args, { encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] })
    : execFileSync('cargo', ['run', '-q', '-p', 'concord-cli', '--', ...args], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'ignore'] });
}

function cliReport(files) {
  return JSON.parse(runCli(files, 'json'));
}

test('released CoEval files give the numbers of `concord coeval`', { skip: missingShared(SHARED) }, async () => {
  const files = releasedFiles();
  const cli = cliReport(files);
  await withApp({ url: null }, async ({ page, coeval }) => {
    await coeval.open(CONCORD_URL);
    // Long tasks (> 50 ms) of the main thread while the 21 files (15 session logs of 2–4 MB)
    // are read: the big ones are parsed in the loader's Web Worker.
    await page.evaluate(() => {
      window.__longtasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longtasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: false });
    });
    const started = Date.now();
    await coeval.importReleased(files);
    const tasks = await page.evaluate(() => window.__longtasks.splice(0));
    const longest = Math.max(0, ...tasks);
    console.log(`# ${files.length} released CoEval files imported in ${Date.now() - started} ms; long tasks: ${tasks.length}, longest ${longest.toFixed(0)} ms`);
    const report = JSON.parse((await coeval.releasedReport()).text);
    assert.deepEqual(report.tasks, cli.tasks, 'Table 6 rows and minutes per sample');
    assert.deepEqual(report.alpha, cli.alpha, 'every pairwise α');
    assert.deepEqual(report.key_checks, cli.key_checks, 'the swapped Self-Instruct keys');
    // What the screen shows: Table 6 in the paper's layout (ELI5's overall and score rows)
    // and Figure 3's block.
    const table6 = await coeval.table('released-table6');
    assert.deepEqual(table6.map((r) => r[0]), ['ELI5', '-conc.', '-scr.', '-evd.', 'ROCStories', '-conc.', '-scr.', '-evd.', 'Self-Instruct', '-conc.', '-scr.', '-evd.']);
    assert.deepEqual(table6[0], ['ELI5', '81.16', '14.61', '3.60', '0.63']);
    assert.deepEqual(table6[2], ['-scr.', '70.66', '29.34', '0.00', '0.00']);
    // Its CSV export is byte for byte the first table `concord coeval --format csv` prints.
    const exported = await coeval.download(coeval.exportButton(/^Export Table 6: .* as CSV$/));
    assert.equal(exported.name, 'coeval-released-table6.csv');
    assert.equal(exported.text, `${runCli(files, 'csv').split('\r\n\r\n')[0]}\r\n`);
    const fig3 = await coeval.table('released-figure3');
    assert.deepEqual(fig3.map((r) => r.slice(1)), [
      ['1.000', '0.756', '0.756', '0.749'],
      ['0.756', '1.000', '0.967', '0.959'],
      ['0.756', '0.967', '1.000', '0.968'],
      ['0.749', '0.959', '0.968', '1.000'],
    ]);
    assert.match(await coeval.releasedGroup1.textContent(), /0\.753[5-7]/);
  });
});
