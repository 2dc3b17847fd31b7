// The app and the CLI print the same tables: a bundle opened in Chromium, every table of the
// Results screen exported in every format and every figure of a cell as SVG, each file
// compared byte for byte with what `concord report` writes for the same bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, FORMATS, cli, cliExports, expectSameExports, setVisibility, withApp } from './harness.mjs';

/**
 * The demo bundle made to exercise every table: Chiang & Lee's layout with the baseline set
 * (Williams' marks and p-values), intervals shown, and a student's ratings (an agreement
 * table). Only the view and the raters change; the dataset's hash still holds.
 */
function parityBundle(dir) {
  const bundle = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
  bundle.settings = { ...bundle.settings, paper_layout: true, baseline: 'score-only', intervals: true, resamples: 200 };
  const items = bundle.dataset.embedded.items;
  bundle.raters = [{
    name: 'student | 1', attribute: 'coherence',
    scores: items.slice(0, 9).map((it, i) => [it.id, 1 + (i % 5)]),
  }];
  const path = join(dir, 'parity-bundle.json');
  writeFileSync(path, JSON.stringify(bundle, null, 2));
  return path;
}

test('every table and figure of the Results screen is exported as the CLI prints it', { timeout: 180_000 }, async () => {
  await withApp({}, async (app) => {
    const { page, results, screens } = app;
    const dir = app.tempDir('concord-parity-');
    const bundle = parityBundle(dir);
    const cliDir = cliExports(['report', bundle], join(dir, 'cli'));
    const svgDir = join(dir, 'cli-svg');
    cli(['report', bundle, '--format', 'svg', '--out', svgDir]);
    await results.open();
    await results.openBundle(bundle);
    // The bundle says intervals are shown: the page computes them as the CLI does.
    await results.waitIntervals(60_000);

    // Every table on the screen, found by its id, in every format (folded panels opened).
    await results.unfoldAll();
    const ids = await results.tableIds();
    assert.deepEqual([...ids].sort(), ['agreement-coherence', 'concord-results', 'cost-quality', 'parse-failures'], `the tables shown: ${ids}`);
    const exported = await expectSameExports(screens.current, cliDir);
    assert.equal(Object.keys(exported).length, ids.length * FORMATS.length);

    // The intervals are in the exports (the CSV has low/high columns), bold where marked.
    assert.match(readFileSync(join(cliDir, 'concord-results.csv'), 'utf8').split('\r\n')[0], /coherence r \(dataset\) low,coherence r \(dataset\) high/);
    // Pipes in a rater's name are escaped in Markdown, as the CLI escapes them.
    assert.match(readFileSync(join(cliDir, 'agreement-coherence.md'), 'utf8'), /student \\\| 1/);

    // Every figure of the first cell, as SVG.
    await results.openCell(0);
    const svgs = readdirSync(svgDir);
    for (const what of ['scatter', 'histogram', 'human histogram']) {
      await page.waitForTimeout(600);
      const { name, text } = await results.exportSvg(what);
      assert.ok(svgs.includes(name), `the CLI drew ${name}`);
      assert.equal(text, readFileSync(join(svgDir, name), 'utf8'), `${name}: the same SVG`);
    }
  });
});

const META_FIXTURES = join(ROOT, 'crates/core/tests/fixtures/meta');
const META_FILES = ['merged_eval_results_judge-a_pairwise.jsonl', 'merged_eval_results_judge-a-swapped_pairwise.jsonl', 'mx_fixture_elo.jsonl'];

test('a bundle written by the app carries the meta-evaluation and CoEval screens, and the CLI prints their tables as the app exports them', { timeout: 300_000 }, async () => {
  await withApp({}, async (app) => {
    const { results, meta, coeval, screens } = app;
    const dir = app.tempDir('concord-parity-');
    // A bundle with a CoEval study (its raw answers and two annotators' work) to start from.
    const start = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
    start.version = 2;
    start.coeval = JSON.parse(readFileSync(join(ROOT, 'crates/cli/tests/fixtures/coeval-snapshot.json'), 'utf8'));
    const startPath = join(dir, 'start.json');
    writeFileSync(startPath, JSON.stringify(start));

    await results.open();
    await results.importBundle(startPath);
    await results.importMessage('Opened bundle start.json').waitFor({ timeout: 60_000 });

    // The meta-evaluation screen: three released-format files loaded, Elo computed.
    await screens.open('Pairwise & meta-evaluation');
    await meta.loadFiles(META_FILES.map((f) => join(META_FIXTURES, f)), { timeout: 60_000 });
    await meta.waitElo();
    // The corrected win rate from 4 of each evaluator's 7 labels: saved with the bundle.
    await meta.labelledPairs.fill('4');
    await meta.tableHeading('corrected-win-rate', 'All human labels').waitFor();

    // The app writes the bundle of every screen.
    await results.open();
    const written = await results.exportBundle();
    const bundle = join(dir, 'app-bundle.json');
    await written.saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    assert.equal(saved.version, 2);
    assert.deepEqual(saved.meta.files.map((f) => f.name), META_FILES, 'the released files by name');
    assert.ok(saved.meta.files.every((f) => /^[0-9a-f]{64}$/.test(f.sha256)), 'and by SHA-256');
    assert.equal(saved.meta.settings.labelled, 4, 'the labelled pairs of the corrected win rate');
    assert.equal(saved.coeval.task, 'tiny', 'the CoEval study travels too');
    assert.ok(!JSON.stringify(saved).includes('judge-a, 1 pair'), 'released files are named, not embedded');

    // Meta-evaluation: every table the screen shows, as the CLI prints it from the bundle.
    await screens.open('Pairwise & meta-evaluation');
    const metaCli = cliExports(['report', bundle, '--screen', 'meta', '--data', META_FIXTURES], join(dir, 'meta'));
    const metaApp = await expectSameExports(screens.current, metaCli);
    assert.ok(Object.keys(metaApp).length >= 4 * 3, `the meta tables exported: ${Object.keys(metaApp)}`);
    assert.ok(metaApp['corrected-win-rate.csv'].includes('All human labels'), 'the corrected win rate from 4 labels');

    // CoEval: the Results panel of the study the bundle carries. The screen opens on the
    // scrutiny view, whose instance timer counts while the tab is visible: on a loaded machine
    // the way to the Results tab takes long enough to add a moment to the minutes per sample,
    // so the page says it is hidden until the Results tab (which has no timer) is open.
    await setVisibility(app.page, 'hidden');
    await screens.open('CoEval');
    await coeval.tab('Results');
    await setVisibility(app.page, 'visible');
    await coeval.waitTable();
    const coevalCli = cliExports(['report', bundle, '--screen', 'coeval'], join(dir, 'coeval'));
    const coevalApp = await expectSameExports(screens.current, coevalCli);
    assert.ok(Object.keys(coevalApp).length >= 4 * 3, `the CoEval tables exported: ${Object.keys(coevalApp)}`);
  });
});

test('the judge audit of the Results screen is computed on request and exported as `concord audit` prints it', { timeout: 180_000 }, async () => {
  await withApp({}, async (app) => {
    const { page, results } = app;
    const dir = app.tempDir('concord-audit-');
    const bundle = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
    bundle.settings = { ...bundle.settings, resamples: 300, audit_labelled: 6 };
    const path = join(dir, 'audit-bundle.json');
    writeFileSync(path, JSON.stringify(bundle));
    await results.open();
    await results.openBundle(path);
    const audit = results.audit;
    // The bundle's setting is on the control; nothing is computed before it is asked for.
    assert.equal(await audit.labelled.inputValue(), '6');
    assert.equal(await audit.tables.count(), 0);
    await audit.compute();
    await audit.table('audit-corrected').waitFor({ timeout: 60_000 });
    const ids = await audit.tableIds();
    assert.deepEqual(ids, ['audit-judges', 'audit-panel', 'audit-juries', 'audit-corrected', 'audit-length', 'audit-self-preference', 'audit-length-variants']);
    assert.match(await audit.table('audit-judges').innerText(), /score-only vs rate-explain/);
    const auditCli = cliExports(['audit', path], join(dir, 'audit'));
    const exported = await expectSameExports(audit.panel, auditCli, { all: true });
    assert.equal(Object.keys(exported).length, 7 * FORMATS.length);
    assert.match(exported['audit-corrected.csv'], /All human labels/);

    // Self-preference: ticking a system of the judges' own family adds its rows, as `--own` does.
    await audit.own('abstractive').check();
    await audit.waitStale();
    await audit.compute();
    await audit.table('audit-self-preference').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(600);
    const selfShown = await audit.exportTable('audit-self-preference', 'Markdown');
    const selfCli = cli(['audit', path, '--own', 'abstractive']);
    assert.match(selfShown, /Own family: abstractive\./);
    assert.ok(selfCli.includes(selfShown.trim()), 'the self-preference table, as `concord audit --own abstractive` prints it');
    await audit.own('abstractive').uncheck();

    // Every label kept: the audit is stale, computed again, and the CLI agrees with `--labelled all`.
    await audit.setLabelled('');
    await audit.waitStale();
    await audit.compute();
    await audit.table('audit-corrected').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(600);
    const shown = await audit.exportTable('audit-corrected', 'Markdown');
    const cliAll = cli(['audit', path, '--labelled', 'all']);
    assert.ok(cliAll.includes(shown.trim()), 'the corrected means with every label, as `concord audit --labelled all` prints them');
    assert.match(shown, /nothing to correct/);

    // Juries as rows of the Results table: the export is `concord report` of the bundle with
    // `juries` set.
    await results.setJuries(true);
    await results.rowHeader('jury (median)').waitFor();
    await page.waitForTimeout(600);
    const juryCsv = await results.exportTable('concord-results', 'CSV');
    const withJuries = join(dir, 'juries-bundle.json');
    writeFileSync(withJuries, JSON.stringify({ ...bundle, settings: { ...bundle.settings, audit_labelled: null, juries: true } }));
    const out = join(dir, 'juries-csv');
    cli(['report', withJuries, '--format', 'csv', '--out', out]);
    assert.match(juryCsv, /jury \(mean\)/);
    assert.equal(juryCsv, readFileSync(join(out, 'concord-results.csv'), 'utf8'), 'the table with juries, as the CLI prints it');
  });
});
