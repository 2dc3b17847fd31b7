// The workbench's data-heavy parts in Chromium: the column-mapping editor (fix a guess, apply,
// the Judge screen sees the new attributes), virtualized tables (10,000 rows, few in the DOM,
// the end reachable), and a large study on Results (SummEval's 1,600 items × 4 attributes × 4
// methods of Chiang & Lee-shaped result files: each switch changes the table; its ~48 MB
// bundle is written and opened in the Web Worker while the page keeps running). How long any
// of it takes is measured by `cargo xtask bench-ui` (benches/ui.mjs), never asserted here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';
import { VirtualTable } from './pages/virtual_table.mjs';
import { missingShared } from './fixtures.mjs';
import { SUMMEVAL, METHODS, summevalItems, synthesizeResults, recordJobsAndHeartbeat, jobsOf, waitJobsAnswered } from './summeval_runs.mjs';

/** 12 summaries rated by raters a and b, plus `length`, a number the guess takes for a rating. */
function lettersCsv() {
  const rows = ['doc,model,article,summary,coherence_a,coherence_b,fluency_a,fluency_b,length'];
  for (let i = 0; i < 12; i++) {
    const c = 1 + (i % 5);
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)}.","Summary ${i}, short.",${c},${Math.min(5, c + (i % 2))},${1 + ((i * 2) % 5)},${1 + ((i * 3) % 5)},${20 + i}`);
  }
  return rows.join('\n') + '\n';
}

test('column mapping: fix the guess in the editor, apply, and the Judge screen sees it', { timeout: 90_000 }, async () => {
  await withApp({ data: { name: 'raters.csv', text: lettersCsv() } }, async ({ data, judge, screens }) => {

    // The guess: _a/_b are raters of one attribute; `length` is wrongly a rating.
    assert.deepEqual(await data.summary(), { items: 12, raters: 2, attributes: 'coherence (1–5), fluency (1–5), length (20–31)' });
    const roles = await data.mappingRoles();
    assert.deepEqual(roles.map((r) => r.column), ['doc', 'model', 'article', 'summary', 'coherence_a', 'coherence_b', 'fluency_a', 'fluency_b', 'length']);
    assert.deepEqual(roles.map((r) => r.role), ['document', 'system', 'input field', 'output', 'rating', 'rating', 'rating', 'rating', 'rating']);
    assert.match(await data.mappingRowText(3), /Summary 0, short\./, 'example values are shown');

    // Without an output column the mapping cannot be applied, and the editor says why.
    await data.setRole('summary', 'ignore');
    await data.mappingProblems.filter({ hasText: 'no output column' }).waitFor();
    assert.equal(await data.applyButton.isDisabled(), true);
    await data.setRole('summary', 'output');
    // Two columns for the same attribute and rater.
    await data.setRating('coherence_b', { rater: 'a' });
    await data.mappingProblems.filter({ hasText: 'both rate coherence by rater a' }).waitFor();
    assert.equal(await data.applyButton.isDisabled(), true);
    await data.setRating('coherence_b', { rater: 'b' });
    assert.equal(await data.mappingProblems.count(), 0);

    // The fix: `length` is an input field; coherence is declared on 1–5.
    await data.setRole('length', 'input field');
    await data.setRating('coherence_a', { min: 1, max: 5 });
    const message = await data.applyMapping();
    assert.match(message, /12 items, 2 raters, attributes: coherence, fluency\./);
    assert.deepEqual(await data.summary(), { items: 12, raters: 2, attributes: 'coherence (1–5), fluency (1–5)' });
    assert.equal((await data.mappingRoles())[8].role, 'input field', 'the editor shows the applied mapping');

    // The Judge screen offers the new attributes only.
    await judge.open();
    const boxes = await judge.attributeLabels();
    assert.deepEqual(boxes.map((t) => t.trim()), ['coherence (1–5)', 'fluency (1–5)']);

    // Reset to the guess reads the file again without the mapping.
    await screens.tab('Data').click();
    await data.resetButton.click();
    await data.mappingMessage.filter({ hasText: 'guessed mapping' }).waitFor();
    assert.match(await data.attributes.innerText(), /length/);
  });
});

/** A 10,000-row CSV. */
function bigCsv(n = 10_000) {
  const rows = ['doc,system,source,output,quality'];
  for (let i = 0; i < n; i++) rows.push(`doc${String(i).padStart(5, '0')},s${i % 10},Source ${i},Output number ${i},${1 + (i % 5)}`);
  return rows.join('\n') + '\n';
}

test('a 10,000-row preview is virtualized: the end is reachable, few rows in the DOM', { timeout: 120_000 }, async () => {
  await withApp({ data: { name: 'big.csv', text: bigCsv() } }, async ({ page, data }) => {
    assert.equal(await data.itemCount.innerText(), '10,000');
    const table = new VirtualTable(page, 'preview');
    assert.equal(await table.rowCount(), 10_000);
    assert.match(await table.count.innerText(), /^10,000 rows/);
    assert.equal(await table.scroll.getAttribute('aria-label'), 'Dataset preview');

    const steps = await table.wheelToEnd(3000);
    await table.waitRendered(9999);
    const rendered = await table.rendered();
    const last = rendered[rendered.length - 1];
    assert.equal(last.index, 9999);
    assert.deepEqual(last.cells, ['doc09999', 's9', 'Output number 9999', '5']);
    assert.ok((await table.visibleIndices()).includes(9999), 'the last row is inside the visible box');
    const domRows = await table.domRows();
    assert.ok(domRows < 100, `${domRows} rows in the DOM`);
    const rowHeight = await table.rows.first().evaluate((r) => r.getBoundingClientRect().height);
    assert.ok(Math.abs(rowHeight - 32) < 0.5, `rows are 32 px high (${rowHeight})`);

    // Keyboard: Home and End on the focused region.
    await table.press('Home');
    await table.waitRendered(0, { first: true });
    assert.ok((await table.visibleIndices()).includes(0));
    await table.press('End');
    await table.waitRendered(9999);
    console.log(`virtualized preview: 10,000 rows, ${domRows} <tr> in the DOM at the end, ${steps} wheel steps`);
  });
});

function pearson(x, y) {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ** 2; syy += (y[i] - my) ** 2; }
  return sxy / Math.sqrt(sxx * syy);
}

test('1,600 SummEval items × 4 attributes × 4 methods: each switch changes the table; the 48 MB bundle is written and opened in the worker', { timeout: 300_000 }, async (t) => {
  const dataset = SUMMEVAL;
  const absent = missingShared(dataset);
  if (absent) { t.skip(absent); return; }
  const items = summevalItems(dataset);
  assert.equal(items.length, 1600);
  await withApp({ url: null }, async (app) => {
    const { page, data, results } = app;
    const dir = app.tempDir('concord-study-');
    const files = synthesizeResults(items, dir);
    await recordJobsAndHeartbeat(page);
    await app.open(CONCORD_URL, { ready: false });
    await data.fileInput.setInputFiles(dataset);
    await data.named('summeval.jsonl').waitFor({ timeout: 60_000 });
    assert.equal(await data.itemCount.innerText(), '1,600');

    await results.open();
    await results.importOutputs(files.map((f) => f.path));
    await results.importMessage('Imported 16 judge runs.').waitFor({ timeout: 180_000 });
    const table = await results.cells();
    assert.deepEqual(table.map((r) => r[0]), METHODS.map((m) => `gpt3.5 ${m}`));
    assert.equal(table[0].length, 9, 'four attributes × (r at dataset level, τ at document level), seed 002\'s layout by default');
    // One cell against Pearson computed here from the synthesized means.
    const human = items.map((it) => it.coherence);
    const geval = files.find((f) => f.attribute === 'coherence' && f.method === 'geval');
    assert.equal(table[0][1], pearson(human, geval.means).toFixed(3));

    const switches = [
      ['Spearman ρ', () => results.setStatistic('spearman')],
      ['Kendall τ-b', () => results.setStatistic('kendall_b')],
      ['document level', () => results.setLevel('document')],
      ['baseline gpt3.5 score_only', () => results.setBaseline('gpt3.5 score_only')],
    ];
    const figureOf = () => results.figureHtml();
    for (const [label, change] of switches) {
      // Each switch gives another table, or (a new baseline may mark no cell) other notes,
      // which name the baseline.
      const before = await figureOf();
      await change();
      await results.waitFigureChanged(before);
      assert.notEqual(await figureOf(), before, `switch to ${label}`);
    }
    assert.equal(await results.boldCount(), 0, 'Kendall τ-b at document level: nothing bold (Williams\' test compares dataset-level r)');
    await results.setStatistic('pearson');
    await results.setLevel('dataset');
    await results.waitMarked();
    assert.ok(await results.boldCount() > 0, 'Pearson r at dataset level: less noisy methods beat the noisiest score_only');

    // The bundle of this study (16 runs, 512,000 responses: about 48 MB) is written and read
    // in the Web Worker — the page hands the work over and keeps running tasks (a heartbeat
    // on its main thread counts on) until the worker answers — and gives the same table back.
    const shown = await results.cells();
    await page.evaluate(() => window.__heartbeatStart());
    const download = await results.exportBundle();
    const bundlePath = join(dir, 'bundle.json');
    await download.saveAs(bundlePath);
    const bytes = statSync(bundlePath).size;
    await results.importBundle(bundlePath);
    await results.source.waitFor({ timeout: 120_000 });
    await results.waitRead();
    const jobs = await waitJobsAnswered(page);
    console.log(`bundle of 1,600 × 4 × 4 × 20: ${(bytes / 1e6).toFixed(1)} MB`);
    assert.ok(bytes > 20e6, `a big bundle (${bytes} bytes)`);
    // The export, and the workspace's own saves of the study, each a job of the worker.
    const saves = jobsOf(jobs, 'bundle-save');
    assert.ok(saves.length >= 1, `the page handed the study to the worker to write: ${JSON.stringify(jobs)}`);
    for (const { post, answer } of saves) {
      assert.ok(post.bytes > 1e6, `the study's frames went to the worker (${post.bytes} bytes)`);
      assert.equal(answer?.what, 'done', 'and the worker wrote the bundle');
      assert.ok(answer.beat > post.beat, `the page ran tasks while the worker wrote (beats ${post.beat} → ${answer.beat})`);
    }
    const [open] = jobsOf(jobs, 'bundle-open');
    assert.equal(open?.post.bytes, bytes, `the page handed the whole file to the worker to read: ${JSON.stringify(jobs)}`);
    assert.equal(open.answer?.what, 'done', 'and the worker read it');
    assert.ok(open.answer.beat > open.post.beat, `the page ran tasks while the worker read (beats ${open.post.beat} → ${open.answer.beat})`);
    assert.deepEqual(await results.cells(), shown, 'the bundle gives the same table back');
  });
});
