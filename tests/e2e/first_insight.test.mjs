// The first insight is one screen away (issue 36, items 11–16): Results opens at its table,
// a generic CSV reads its text as the output and says when it has no documents, a dataset
// opens on Judge with a study that can run and the Run screen asks before sending a
// placeholder, an offline download says the page is offline, the audit names controls that
// exist, plots stand their bars on their ticks and keep their text readable on a phone, and
// numbers and words read right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL, mockTotal } from './browser.mjs';
import { withApp } from './harness.mjs';
import { Screens } from './pages/workbench_pages.mjs';
import { missingShared } from './fixtures.mjs';

const SHOTS = process.env.CONCORD_SCREENSHOTS;
const META = process.env.CONCORD_META_DATA ?? join(import.meta.dirname, '../../../shared/data/meta-evaluation');
const ECHO = { reply: { mode: 'echo_rating', marker: 'RATING=' }, models: ['mock-model'], supports_n: true, latency_ms: 5 };

/**
 * With CONCORD_SCREENSHOTS set, `target` (the page or an element) in light, dark and at
 * 375 px: `<name>.png`, `<name>-dark.png`, `<name>-375.png`.
 */
async function shoot(page, name, target = page) {
  if (!SHOTS) return;
  const size = page.viewportSize();
  const full = target === page ? { fullPage: true } : {};
  const select = new Screens(page).theme;
  for (const [theme, width, suffix] of [['light', size.width, ''], ['dark', size.width, '-dark'], ['light', 375, '-375']]) {
    await select.selectOption(theme);
    await page.setViewportSize({ width, height: size.height });
    await page.waitForTimeout(300);
    await target.screenshot({ path: join(SHOTS, `${name}${suffix}.png`), ...full });
  }
  await select.selectOption('auto');
  await page.setViewportSize(size);
}

/** `id,text,system,human score`: 10 texts each from 3 systems, the grade planted for the mock. */
function genericCsv() {
  const rows = ['id,text,system,human score'];
  for (let i = 0; i < 30; i++) rows.push(`${i + 1},"Answer ${i} to its question. RATING=${1 + (i % 5)}",sys${i % 3},${1 + ((i * 7) % 5)}`);
  return rows.join('\n') + '\n';
}

/**
 * 12 documents × 3 systems rated for coherence by three raters (means on thirds of a point);
 * the judge's planted grade is 1 to 4, never 5, on the 1–5 scale.
 */
function thirdsCsv() {
  const rows = ['doc,sys,source,output,coherence_r1,coherence_r2,coherence_r3'];
  for (let i = 0; i < 36; i++) {
    const r = [1 + (i % 5), 1 + ((i * 3) % 5), 1 + ((i * 2 + 1) % 5)];
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)}.","Summary ${i}. RATING=${1 + (i % 4)}",${r.join(',')}`);
  }
  return rows.join('\n') + '\n';
}

/** Runs the study the Judge screen of `app` holds (after adding `addModes`) against the mock,
 * waits for the end. */
async function runStudy(app, { addModes, sendAnyway = false } = {}) {
  const { judge, run } = app;
  await judge.open();
  if (addModes) await judge.addMethods({ modes: addModes });
  await app.connectMock({ key: 'k' });
  if (sendAnyway) await run.sendAnyway();
  await run.run();
  await run.waitFinished();
}

const THIRDS = { name: 'thirds.csv', text: thirdsCsv() };

test('11: Results opens at its table with the focus on its heading, and says nothing the user did not try', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  await withApp({ data: THIRDS, scenario: ECHO }, async (app) => {
    const { page, results, review, screens } = app;
    await runStudy(app, { addModes: ['rate-explain'] });
    await results.open();
    await results.table.waitFor();
    await review.walk.waitFor();
    // The screen's heading has the focus (ARCHITECTURE.md: a change of screen), the page is at
    // its top and the table in view.
    await screens.waitHeadingFocus();
    const at = await results.position();
    assert.ok(at.scroll < 100, `the page opens at its top, not ${at.scroll} px down`);
    assert.ok(at.table >= 0 && at.table < at.height, `the results table is in view (its top at ${at.table} px)`);
    // The review timer's first save comes after 5 s: with no reviewer named, it is no error.
    await page.waitForTimeout(6_500);
    assert.equal(await review.error.count(), 0, 'no error for what the user has not tried');
    // The arrow keys scroll the page; they do not walk the review's items.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.match(await review.position.innerText(), /^Item 1 of /);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'screen-heading');
    // Asked for, the walk takes the keys: an action with no name is refused, said then.
    await review.press('a');
    await review.errorWith('Enter your name (reviewer) first.').waitFor();
  });
});

test('12: a generic CSV reads its lone text as the output, says it has no documents, and opens on a study the Run screen asks about', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  await withApp({ data: { name: 'ratings.csv', text: genericCsv() }, scenario: ECHO }, async (app) => {
    const { page, data, judge, run, results } = app;
    const roles = Object.fromEntries((await data.mappingRoles()).map((r) => [r.column, r.role]));
    assert.deepEqual(roles, { id: 'item id', text: 'output', system: 'system', 'human score': 'rating' });
    assert.equal(await data.documentCount.innerText(), '30');
    assert.match(await data.documentsNote.innerText(), /^No document column: every row is its own document\. Each of the 30 documents holds one item, so document-level correlations/);
    assert.equal(await data.diagnostics.filter({ hasText: 'no output column' }).count(), 0);
    await shoot(page, 'first-insight-data');

    // The Judge screen opens with a study that can run, and says what is not ready.
    await judge.open();
    assert.deepEqual(await judge.methodNames(), ['rate-explain']);
    await judge.suggested.waitFor();
    assert.match((await judge.promptWarnings.allInnerTexts()).join('\n'), /^rate-explain \/ human score: the evaluation criteria are still the placeholder \(“Edit this definition to match your annotation guidelines\.”\)/);
    await shoot(page, 'first-insight-judge');

    // The Run screen asks before sending it, naming the method and the attribute.
    await app.connectMock({ key: 'k' });
    assert.equal(await run.promptWarnings.count(), 1);
    await run.run();
    assert.match(await run.error.innerText(), /^Nothing sent: rate-explain \/ human score: the evaluation criteria are still the placeholder/);
    assert.equal(await mockTotal(), 0, 'nothing was sent');
    await shoot(page, 'first-insight-run');
    await run.sendAnyway();
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    // Results: the document-level cells say why they are blank, with Data's count.
    await results.open();
    const cells = (await results.cellDetails())[0];
    assert.equal(cells.length, 2, 'r (dataset) and τ (document)');
    assert.notEqual(cells[0].value, '–');
    assert.equal(cells[1].value, '–');
    assert.match(cells[1].title, /^n = 30 items in 30 documents, Kendall τ-b defined on 0 of them, parse failures = 0; undefined: every document holds one rated item/);
    assert.ok((await results.notes()).some((n) => n.startsWith('Document level is undefined: each of the 30 documents holds one rated item')));
  });
});

test('12: adding methods replaces the untouched suggestion; a prompt without the item text is asked about', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  await withApp({}, async ({ judge }) => {
    await judge.open();
    assert.deepEqual(await judge.methodNames(), ['rate-explain'], 'the built-in example has a study');
    await judge.addMethods({ modes: ['score-only'] });
    assert.match(await judge.addMessage.innerText(), /^Added 1 method, in place of the suggested rate-explain\./);
    assert.deepEqual(await judge.methodNames(), ['score-only']);
    await judge.addMethods({ modes: ['rate-explain'] });
    assert.deepEqual(await judge.methodNames(), ['score-only', 'rate-explain'], 'then methods add up');
    // The Sample part without its placeholders: the judge would never see the summary.
    const area = await judge.promptPartLabelled('Sample');
    await area.fill('Example:\n\nA summary.');
    await area.dispatchEvent('change');
    const warned = (await judge.promptWarnings.allInnerTexts()).join('\n');
    assert.match(warned, /^score-only \/ coherence: the prompt does not contain the item's text \(no \{\{output\}\} placeholder\)/m);
  });
});

test('13: offline downloads say the page is offline, and an unreachable host is said as such', { timeout: 120_000 }, async () => {
  await withApp({ problems: 'allowed' }, async ({ page, browser, data }) => {
    await browser.context.setOffline(true);
    let previous = '';
    for (const how of [{ table4: true }, { preset: "SummEval (G-Eval's summeval.json)" }, { url: 'https://example.org/ratings.csv' }]) {
      const said = await data.download(how, previous);
      previous = said;
      assert.match(said, /: this page is offline, so [a-z.]+ cannot be reached\. Connect to the internet and try again, or download the file another way and load it from disk\./, JSON.stringify(how));
      assert.doesNotMatch(said, /ollama|Start the server/);
    }
    await shoot(page, 'first-insight-offline');
    await browser.context.setOffline(false);
    await page.route('https://unreachable.example/**', (route) => route.abort('addressunreachable'));
    const said = await data.download({ url: 'https://unreachable.example/ratings.csv' }, previous);
    assert.match(said, /unreachable\.example cannot be reached from this page: nothing answered/);
    assert.doesNotMatch(said, /ollama|Start the server/);
  });
});

test('14: the judge audit names the Intervals controls, which exist and set every interval', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  await withApp({ data: THIRDS, scenario: ECHO }, async (app) => {
    const { page, results } = app;
    await runStudy(app, { addModes: ['score-only', 'rate-explain'] });
    await results.open();
    const audit = results.audit.panel;
    const words = await audit.innerText();
    assert.doesNotMatch(words, /settings above|the seed above/);
    assert.match(words, /the table's Intervals settings \(Resamples, Confidence, Seed/);
    // The controls it names: refused where typed when wrong, used by the intervals when right.
    await results.setIntervalSettings({ resamples: 'lots' });
    assert.match(await results.intervalError.innerText(), /^Resamples: `lots` is not a whole number from 100 to 100,000/);
    await results.setIntervalSettings({ resamples: '200', confidence: '90', seed: '7' });
    assert.equal(await results.intervalError.count(), 0);
    await results.computeIntervals(120_000);
    assert.ok((await results.notes()).includes('Intervals: 90 % percentile bootstrap, 200 resamples, seed 7 (items resampled at dataset level, documents at document level).'));
    await shoot(page, 'first-insight-intervals');
  });
});

/** Every bar's centre and every x-axis tick label of a histogram: labels stand on bar middles. */
function checkHistogram(plot) {
  const ticks = plot.texts.filter((t) => t.anchor === 'middle' && t.size === 10 && !t.rotated && /^[\d.,]+$/.test(t.text));
  assert.ok(ticks.length >= 2, `${plot.title}: ticks`);
  for (const t of ticks) {
    assert.ok(plot.bars.some((b) => Math.abs((b.x0 + b.x1) / 2 - t.x) < 0.01), `${plot.title}: the tick ${t.text} stands on a bar's middle`);
  }
  return ticks.map((t) => t.text);
}

test('15: histograms stand their bars on their ticks over the whole scale, dots keep off the labels, a phone keeps the text readable', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  await withApp({ data: THIRDS, scenario: ECHO }, async (app) => {
    const { page, results } = app;
    await runStudy(app, { addModes: ['rate-explain'] });
    await results.open();
    await results.openCell(0);
    const [scatter, judgeHist, humanHist] = await results.plots();
    // The judge said 1 to 4: its histogram still reaches 5, an empty bar.
    assert.deepEqual(checkHistogram(judgeHist), ['1', '2', '3', '4', '5']);
    assert.equal(judgeHist.bars.at(-1).title, '5: 0 items');
    // The humans' means of three lie on thirds: a bar per third, each as wide.
    assert.deepEqual(checkHistogram(humanHist), ['1', '2', '3', '4', '5']);
    const widths = new Set(humanHist.bars.map((b) => (b.x1 - b.x0).toFixed(3)));
    assert.equal(widths.size, 1, 'equal bars');
    assert.equal(humanHist.bars.length, 13, 'one per third of a point from 1 to 5');
    // No dot covers a label of the scatter; its judge axis reaches 5 too.
    for (const d of scatter.dots) {
      for (const t of scatter.texts.filter((t) => !t.rotated)) {
        const [x0, y0, x1, y1] = t.box;
        const apart = d.cx + d.r <= x0 || x1 <= d.cx - d.r || d.cy + d.r <= y0 || y1 <= d.cy - d.r;
        assert.ok(apart, `the dot at (${d.cx}, ${d.cy}) covers "${t.text}"`);
      }
    }
    assert.ok(scatter.texts.filter((t) => t.text === '5').length >= 2, 'both scatter axes reach 5');
    await shoot(page, 'first-insight-plots', results.cellPanel);

    // At 375 px the plots fit the screen with text at its size.
    await page.setViewportSize({ width: 375, height: 800 });
    await results.waitPlotsFit();
    for (const plot of await results.plots()) {
      const scale = plot.shownWidth / plot.viewWidth;
      assert.ok(scale > 0.95, `${plot.title}: drawn at ${scale.toFixed(2)} of its size`);
      assert.ok(plot.shownWidth <= 375, `${plot.title}: ${plot.shownWidth} px wide on a 375 px screen`);
      const tick = plot.texts.find((t) => t.size === 10);
      assert.ok(tick.renderedHeight >= 9, `${plot.title}: tick text ${tick.renderedHeight} px tall`);
    }
  });
});

test('16: counts, money and p-values read right, and the words name what is there', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  // A model list of one: "1 model", not "1 models".
  await withApp({ scenario: { ...ECHO, latency_ms: 400 } }, async (app) => {
    const { page, data, run, review, results, screens } = app;
    const big = ['doc,sys,output,quality'];
    for (let i = 0; i < 1200; i++) big.push(`d${Math.floor(i / 2)},s${i % 2},"Out ${i}. RATING=${1 + (i % 5)}",${1 + (i % 5)}`);
    await data.loadFile('big.csv', big.join('\n') + '\n');
    assert.equal(await data.itemCount.innerText(), '1,200', 'thousands separated');

    await app.connectMock({ key: 'k', concurrency: 2, itemLimit: 40 });
    assert.match(await run.testConnection(), /^Connected to vLLM: 1 model available\./);
    // A price too small for four decimals is still said, not "$0.0000".
    await run.setPrice({ input: '0.01', output: '0.01' });
    await run.sendAnyway();
    await run.run();
    await run.waitCounts((c) => c.done >= 4);
    // Paused, the run has no ETA that grows.
    await run.pause();
    await run.said('paused: Resume continues').waitFor();
    const eta = () => run.progress.innerText().then((t) => /ETA ([^·]+)·/.exec(t)?.[1].trim());
    assert.equal(await eta(), '–');
    await page.waitForTimeout(1_500);
    assert.equal(await eta(), '–');
    assert.match(await run.progress.innerText(), / · \$0\.0*[1-9]\d* · /, 'the cost has a digit that is not 0');
    await run.resume();
    await run.waitFinished();
    const log = run.logSummary;
    const lines = await run.logCount();
    assert.equal(await log.innerText(), `Run log (${lines.toLocaleString('en-US')} ${lines === 1 ? 'line' : 'lines'})`);

    // Results: a named reviewer who has decided nothing has "No decisions yet", however long
    // the timer ran; a human rating of the user's own CSV is "the file's value".
    await review.open();
    await review.setReviewer('Ada');
    await page.waitForTimeout(6_500);
    assert.equal(await review.saved.innerText(), 'No decisions yet.');
    const costs = await results.costTable.innerText();
    assert.doesNotMatch(costs, /\$0\.0000(?!\d)/, 'the cost table says no "$0.0000"');
    await results.openCell(0);
    await results.showFirstListed();
    assert.match(await results.itemDetail.innerText(), /Human ratings: \d \(the file's value\)/);

    // The built-in example does not replace a workspace with runs without asking.
    await screens.tab('Data').click();
    await data.useExample();
    await data.exampleConfirm.waitFor();
    assert.match(await data.exampleConfirm.innerText(), /The open workspace “[^”]+” has 1 judge run on big\.csv\. The example opens as a new workspace/);
    assert.equal(await data.datasetName.innerText(), 'big.csv', 'nothing replaced yet');
    await shoot(page, 'first-insight-example');
    await data.openExampleApart();
    await data.named('concord-example.csv').waitFor();
  });
});

test('16: a student with an exercise open sees the exercise, the teacher\'s panels folded away', { timeout: 120_000 }, async () => {
  await withApp({}, async (app) => {
    const { page, class: cls } = app;
    const dir = app.tempDir('concord-exercise-');
    await cls.open();
    assert.equal(await cls.teacherTools.getAttribute('open'), '', 'a teacher sees the tools');
    const download = await cls.makeExercise({ title: 'Coherence', attributes: ['coherence'], sample: 4, seed: 1 });
    const path = join(dir, 'exercise.json');
    await download.saveAs(path);
    await cls.openExercise(path);
    assert.equal(await cls.teacherTools.getAttribute('open'), null, 'folded for the student');
    assert.equal(await cls.makePanel.isVisible(), false);
    await shoot(page, 'first-insight-student');
  });
});

test('16: the meta-evaluation screen names one model one way: its evaluator file\'s', { skip: missingShared(META), timeout: 240_000 }, async () => {
  await withApp({ url: null }, async ({ page, meta }) => {
    await page.goto(CONCORD_URL);
    await meta.openTab();
    await meta.fileInput.setInputFiles([
      join(META, 'evaluator_results/pairwise/merged_eval_results_gpt-4-1106-preview_pairwise.jsonl'),
      join(META, 'evaluator_results/pairwise/merged_eval_results_qwen1.5-7B-Chat_pairwise.jsonl'),
      join(META, 'meta-evaluator_results/pairwise/JDEval/g4_llmbar_elo.jsonl'),
    ]);
    await meta.heatmap.waitFor({ timeout: 120_000 });
    // The meta-evaluator g4 of the JDEval file and the evaluators gpt4 and qwen7b inside it are
    // the models of the evaluator files: named as those are.
    assert.match(await meta.firstMetaOption(), /^gpt-4-1106-preview — g4_llmbar_elo\.jsonl$/);
    const labels = await meta.heatmapLabels();
    for (const want of ['gpt-4-1106-preview', 'qwen1.5-7B-Chat']) assert.ok(labels.includes(want), `${want} in ${labels}`);
    for (const other of ['gpt4', 'qwen7b', 'g4']) assert.ok(!labels.includes(other), `no ${other} in ${labels}`);
    assert.match(await meta.heatmapTitle(), /^Win rate of row over column \(gpt-4-1106-preview; /);
  });
});

test('16: the README cites no file of ../shared a clone does not have', () => {
  const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
  const cited = [...readme.matchAll(/(?:\.\.\/|\b)shared\/([^\s`)]*)/g)].map((m) => m[1]);
  assert.deepEqual(cited.filter((c) => c !== 'data/'), [], 'only the data folder the tests read, explained');
});
