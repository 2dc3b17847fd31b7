// The workbench end to end in Chromium: a 2-attribute × 3-method grid run against the mock,
// the results table with Williams' marks, export bundle → reload → import → the same table;
// the API key absent from the bundle, storage and console; the demo bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL, CONCORD_URL, mockTotal } from './browser.mjs';
import { withApp, cli, storageDump } from './harness.mjs';
import { GRADED, missingShared } from './fixtures.mjs';

const SECRET = 'sk-test-CONCORD-SECRET-0123456789';
const SHOTS = process.env.CONCORD_SCREENSHOTS;

test('a grid run against the mock, results with significance, bundle round trip, key never stored', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  // Rate-explain and analyze-rate read the planted grade; score-only gets noise: a bad
  // baseline that Williams' test should flag the others against.
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=', noisy_when: 'scores ONLY' }, supports_n: true, latency_ms: 5 };
  await withApp({ data: GRADED, scenario }, async (app) => {
    const { page, judge, run, results } = app;
    const dir = app.tempDir('concord-bundle-');
    const consoleText = [];
    page.on('console', (m) => consoleText.push(m.text()));

    await judge.open();
    await judge.addMethods({ modes: ['score-only', 'rate-explain', 'analyze-rate'], n: 3 });
    assert.equal(await judge.methods.count(), 3, 'three methods');
    assert.match(await judge.preview.innerText(), /Evaluation Criteria/);
    // The preview follows the prompt editor as it is typed in (before the text area is left),
    // and the caret stays in the text area.
    const part = judge.promptPart(0);
    await part.click();
    await part.press('End');
    await page.keyboard.type(' LIVE-EDIT');
    await judge.waitPreview('LIVE-EDIT');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'part-0');
    for (let k = 0; k < ' LIVE-EDIT'.length; k++) await page.keyboard.press('Backspace');
    await judge.leaveEditor();
    assert.doesNotMatch(await judge.preview.innerText(), /LIVE-EDIT/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'judge.png'), fullPage: true });

    await app.connectMock({ key: SECRET });
    assert.match(await run.estimate.innerText(), /calls/);
    await run.run();
    const finished = await run.waitFinished();
    assert.match(finished, /Run complete/);
    assert.match(await run.progress.innerText(), /^180 of 180 calls done, 0 failed/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'run.png'), fullPage: true });

    // Running the same configuration again costs nothing: every call is cached.
    const before = await mockTotal();
    await run.run();
    await run.finished.waitFor();
    await run.waitProgress('180 cached');
    const after = await mockTotal();
    assert.equal(after, before, 'the second run sent nothing');

    await results.open();
    await results.setBaseline('score-only');
    const table = await results.cells();
    assert.deepEqual(table.map((r) => r[0]), ['score-only', 'rate-explain', 'analyze-rate']);
    // Seed 002's layout by default: r at dataset level and τ at document level per attribute.
    assert.deepEqual(await results.subHeadings(), ['r (dataset)', 'τ (document)', 'r (dataset)', 'τ (document)']);
    assert.equal(table[0].length, 5, 'two attributes × (r, τ)');
    for (const row of table) for (const cell of row.slice(1)) assert.match(cell, /^-?\d\.\d{3}$/, `a correlation in every cell: ${row}`);
    const marks = await results.boldCount();
    assert.equal(marks, 4, 'rate-explain and analyze-rate beat the noisy baseline on both attributes (r marked, never τ: Williams tests r)');
    const marked = await results.markedLabels();
    assert.equal(marked.length, 4);
    for (const label of marked) assert.match(label, /Pearson r at dataset level/, `only dataset-level r is marked: ${label}`);
    // The first non-baseline cell (rate-explain, first attribute, r).
    const title = await results.cellTitle(4);
    assert.match(title, /Williams p [=<] \d/, 'non-baseline cells carry the Williams p-value');
    // Clicking a cell shows its plots and items.
    await results.openCell(0);
    await results.showFirstItem();
    await results.waitItemMarks();
    // Each response marks the number the parser read: its badge says the same rating.
    const readings = await results.itemReadings();
    assert.ok(readings.length > 0);
    for (const [mark, badge] of readings) assert.equal(`rating ${Number(mark)}`, badge, `marked ${JSON.stringify(mark)}`);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'results.png'), fullPage: true });

    const download = await results.exportBundle();
    const bundlePath = join(dir, 'bundle.json');
    await download.saveAs(bundlePath);
    const bundleText = readFileSync(bundlePath, 'utf8');
    const bundle = JSON.parse(bundleText);
    assert.equal(bundle.schema, 'concord-bundle');
    assert.equal(bundle.runs.length, 6);
    assert.ok(!bundleText.includes(SECRET), 'the key is not in the bundle');
    assert.ok(!(await storageDump(page)).includes(SECRET), 'nor in localStorage or IndexedDB');

    // Reload: the table comes back from the bundle alone.
    await page.reload();
    await results.open();
    await results.importBundle(bundlePath);
    await results.source.waitFor();
    await results.setBaseline('score-only');
    assert.deepEqual(await results.cells(), table, 'the imported bundle gives the identical table');
    assert.equal(await results.boldCount(), marks);
    assert.ok(!consoleText.join('\n').includes(SECRET), 'the key never reached the console');
  });
});

test('opting in to remember the key stores it, and Forget key removes it', { timeout: 60_000 }, async () => {
  await withApp({ problems: 'allowed' }, async ({ page, run }) => {
    await run.open();
    await run.connect({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini', key: SECRET });
    assert.ok(!(await storageDump(page)).includes(SECRET), 'memory only by default');
    await run.rememberKey.check();
    assert.ok((await storageDump(page)).includes(SECRET), 'stored after opting in');
    await page.reload();
    await run.open();
    assert.equal(await run.apiKey.inputValue(), SECRET, 'remembered across reloads');
    await run.forgetKey();
    assert.ok(!(await storageDump(page)).includes(SECRET), 'forgotten');
    assert.equal(await run.apiKey.inputValue(), '');
  });
});

test('Rate it yourself: keyboard ratings join the results as a rater and survive a reload', { timeout: 120_000 }, async () => {
  await withApp({}, async ({ page, rate, data, screens }) => {
    await rate.start('student-1');
    await rate.card.waitFor();
    // Start hands the keyboard to the card: no click needed before the first key.
    await rate.waitCardFocused();
    // The example's coherence, first five items, by keyboard only.
    for (const key of ['4', '5', '2', '3', '4']) await page.keyboard.press(key);
    await rate.waitHeading(/Item 6 of 15 · 5 rated/);
    await page.keyboard.press('ArrowLeft');
    await rate.waitHeading(/Item 5 of 15/);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'rate.png'), fullPage: true });
    // Saved as they were made: a reload resumes at the first unrated item.
    await page.reload();
    await rate.start('student-1');
    await rate.waitHeading(/Item 6 of 15 · 5 rated/);
    const names = await rate.seeAgreement();
    assert.deepEqual(names, [['r1', 'human', '15'], ['r2', 'human', '15'], ['student-1', 'student', '5']]);
    // A dataset with nothing to rate says so, and Start is off.
    await screens.tab('Data').click();
    await data.loadFile('pairs.jsonl', '{"input": "Q?", "output_1": "A", "output_2": "B", "label": 1}\n');
    await data.named('pairs.jsonl').waitFor();
    await rate.open();
    await rate.empty.filter({ hasText: 'no items to rate' }).waitFor();
    assert.ok(await rate.startButton.isDisabled());
  });
});

test('Open the demo: one click from the first screen to a full results page, no key', { timeout: 60_000 }, async () => {
  await withApp({}, async ({ page, data, results }) => {
    await data.openDemoRun();
    await results.source.waitFor();
    const table = await results.cells();
    assert.deepEqual(table.map((r) => r[0]), ['score-only', 'rate-explain'], 'the recorded methods');
    assert.match(await results.source.innerText(), /demo\/example-bundle\.json/);
    // The same bundle through ?bundle= in the address.
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json`);
    await results.source.waitFor();
    assert.deepEqual(await results.cells(), table);
  });
});

test('released Chiang & Lee outputs imported in the browser give the numbers of `concord table`', { timeout: 180_000 }, async (t) => {
  const { dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const root = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/data/A-Closer-Look-To-LLM-Evaluation');
  const absent = missingShared(root);
  if (absent) { t.skip(absent); return; }
  const dataset = join(root, 'data/topical_chat.json');
  const runs = ['geval', 'rate_explain'].map((m) => [m, join(root, `results/topical_chat/gpt3.5_nat_${m}.json`)]);
  const args = ['table', '--dataset', dataset, ...runs.flatMap(([m, f]) => ['--run', `${m}=naturalness:${f}`]), '--parse', 'closer-look', '--format', 'json'];
  // The CLI's table as JSON (the core's report table): each cell keyed `<run>/<statistic>_<level>`.
  const expected = JSON.parse(cli(args)).rows.map((row) => {
    const value = (key) => row.cells.find((c) => c.key === `${row.label}/${key}`).value;
    return {
      run: row.label,
      pearson: { dataset: value('pearson_dataset'), document: value('pearson_document') },
      kendall_b: { dataset: value('kendall_b_dataset'), document: value('kendall_b_document') },
    };
  });

  await withApp({ problems: 'allowed' }, async ({ data, results }) => {
    await data.fileInput.setInputFiles(dataset);
    await data.named('topical_chat.json').waitFor({ timeout: 60_000 });
    await results.open();
    await results.importOutputs(runs.map(([, f]) => f));
    await results.importMessage('Imported 2 judge runs.').waitFor({ timeout: 60_000 });
    // The default layout: r at dataset level and τ-b at document level side by side.
    const paper = await results.cells();
    expected.forEach((row, i) => {
      assert.equal(paper[i][1], row.pearson.dataset.toFixed(3), `${row.run} r at dataset level (seed 002 layout)`);
      assert.equal(paper[i][2], row.kendall_b.document.toFixed(3), `${row.run} τ-b at document level (seed 002 layout)`);
    });
    await results.setStatistic('pearson');
    for (const [level, field] of [['dataset', 'dataset'], ['document', 'document']]) {
      await results.setLevel(level);
      const table = await results.cells();
      assert.deepEqual(table.map((r) => r[0]), ['gpt3.5 geval', 'gpt3.5 rate_explain']);
      expected.forEach((row, i) => assert.equal(table[i][1], row.pearson[field].toFixed(3), `${row.run} r at ${level} level`));
    }
    await results.setStatistic('kendall_b');
    const tau = await results.cells();
    expected.forEach((row, i) => assert.equal(tau[i][1], row.kendall_b.document.toFixed(3), `${row.run} τ-b at document level`));
  });
});
