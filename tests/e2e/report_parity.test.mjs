// The app and the CLI print the same tables: a bundle opened in Chromium, every table of the
// Results screen exported in every format and every figure of a cell as SVG, each file
// compared byte for byte with what `concord report` writes for the same bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { ResultsPage } from './pages/workbench_pages.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
const FORMATS = [['CSV', 'csv'], ['Markdown', 'md'], ['LaTeX', 'tex'], ['JSON', 'json']];

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

/** `concord report` of `bundle` in `format`, one file per table or figure, by file name. */
function cliFiles(bundle, format, dir) {
  const out = join(dir, `cli-${format}`);
  execFileSync(CLI, ['report', bundle, '--format', format, '--out', out], { encoding: 'utf8' });
  return Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), 'utf8')]));
}

test('every table and figure of the Results screen is exported as the CLI prints it', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-parity-'));
  const browser = await launch();
  try {
    const bundle = parityBundle(dir);
    const cli = Object.fromEntries(['csv', 'md', 'latex', 'json', 'svg'].map((f) => [f, cliFiles(bundle, f, dir)]));
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(CONCORD_URL);
    const results = new ResultsPage(page);
    await results.open();
    await results.importBundle(bundle);
    await page.getByTestId('bundle-source').filter({ hasText: 'parity-bundle.json' }).waitFor();
    // The bundle says intervals are shown: the page computes them as the CLI does.
    await results.waitIntervals(60_000);

    // Every table on the screen, found by its id, in every format (folded panels opened).
    await page.locator('details').evaluateAll((ds) => ds.forEach((d) => { d.open = true; }));
    const ids = await page.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table));
    assert.deepEqual([...ids].sort(), ['agreement-coherence', 'concord-results', 'cost-quality', 'parse-failures'], `the tables shown: ${ids}`);
    let compared = 0;
    for (const id of ids) {
      const title = await page.locator(`table[data-table="${id}"]`).evaluate((t) => t.closest('figure')?.querySelector('figcaption')?.textContent
        ?? t.closest('section')?.querySelector('h2')?.textContent);
      for (const [label, ext] of FORMATS) {
        // Chromium refuses a download now and then when a page starts more than ten in a few
        // seconds; a person does not click that fast.
        await page.waitForTimeout(600);
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.locator(`button[aria-label$=" as ${label}"][data-table="${id}"]`).click(),
        ]);
        const name = download.suggestedFilename();
        assert.equal(name, `${id}.${ext}`);
        const app = readFileSync(await download.path(), 'utf8');
        const fromCli = cli[ext === 'tex' ? 'latex' : ext][name];
        assert.ok(fromCli !== undefined, `the CLI wrote ${name} (${title})`);
        assert.equal(app, fromCli, `${name}: the app's export is the CLI's, byte for byte`);
        compared++;
      }
    }
    assert.equal(compared, ids.length * FORMATS.length);

    // The intervals are in the exports (the CSV has low/high columns), bold where marked.
    assert.match(cli.csv['concord-results.csv'].split('\r\n')[0], /coherence r \(dataset\) low,coherence r \(dataset\) high/);
    // Pipes in a rater's name are escaped in Markdown, as the CLI escapes them.
    assert.match(cli.md['agreement-coherence.md'], /student \\\| 1/);

    // Every figure of the first cell, as SVG.
    await page.locator('[data-testid="results-table"] td button').first().click();
    await page.getByTestId('cell-panel').waitFor();
    for (const what of ['scatter', 'histogram', 'human histogram']) {
      await page.waitForTimeout(600);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Export ${what} SVG`, exact: true }).click(),
      ]);
      const name = download.suggestedFilename();
      assert.ok(cli.svg[name] !== undefined, `the CLI drew ${name}`);
      assert.equal(readFileSync(await download.path(), 'utf8'), cli.svg[name], `${name}: the same SVG`);
    }
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

const META_FIXTURES = join(ROOT, 'crates/core/tests/fixtures/meta');
const META_FILES = ['merged_eval_results_judge-a_pairwise.jsonl', 'merged_eval_results_judge-a-swapped_pairwise.jsonl', 'mx_fixture_elo.jsonl'];

/** Clicks every table export button of `scope` in every format; the downloads by file name. */
async function exportTables(page, scope) {
  const out = {};
  const ids = await scope.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table));
  for (const id of ids) {
    for (const [label] of FORMATS) {
      await page.waitForTimeout(600);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        scope.locator(`button[aria-label$=" as ${label}"][data-table="${id}"]`).first().click(),
      ]);
      out[download.suggestedFilename()] = readFileSync(await download.path(), 'utf8');
    }
  }
  return out;
}

test('a bundle written by the app carries the meta-evaluation and CoEval screens, and the CLI prints their tables as the app exports them', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-parity-'));
  const browser = await launch();
  try {
    // A bundle with a CoEval study (its raw answers and two annotators' work) to start from.
    const start = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
    start.version = 2;
    start.coeval = JSON.parse(readFileSync(join(ROOT, 'crates/cli/tests/fixtures/coeval-snapshot.json'), 'utf8'));
    const startPath = join(dir, 'start.json');
    writeFileSync(startPath, JSON.stringify(start));

    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(CONCORD_URL);
    const results = new ResultsPage(page);
    await results.open();
    await results.importBundle(startPath);
    await page.getByTestId('import-message').filter({ hasText: 'Opened bundle start.json' }).waitFor({ timeout: 60_000 });

    // The meta-evaluation screen: three released-format files loaded, Elo computed.
    await page.getByRole('tab', { name: 'Pairwise & meta-evaluation' }).click();
    await page.getByLabel('Load meta-evaluation files').setInputFiles(META_FILES.map((f) => join(META_FIXTURES, f)));
    await page.locator('[data-testid="meta-file-list"] tbody tr').nth(2).waitFor({ timeout: 60_000 });
    await page.getByTestId('elo-status').filter({ hasText: /Computed in/ }).waitFor({ timeout: 120_000 });
    // The corrected win rate from 4 of each evaluator's 7 labels: saved with the bundle.
    await page.getByLabel('Labelled pairs').fill('4');
    await page.locator('table[data-table="corrected-win-rate"] th', { hasText: 'All human labels' }).waitFor();

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
    await page.getByRole('tab', { name: 'Pairwise & meta-evaluation' }).click();
    const metaApp = await exportTables(page, page.locator('#screen-panel'));
    assert.ok(Object.keys(metaApp).length >= 4 * 3, `the meta tables exported: ${Object.keys(metaApp)}`);
    assert.ok(metaApp['corrected-win-rate.csv'].includes('All human labels'), 'the corrected win rate from 4 labels');
    for (const format of ['csv', 'md', 'latex', 'json']) {
      const out = join(dir, `meta-${format}`);
      execFileSync(CLI, ['report', bundle, '--screen', 'meta', '--data', META_FIXTURES, '--format', format, '--out', out]);
      for (const name of readdirSync(out)) {
        if (metaApp[name] === undefined) continue;
        assert.equal(metaApp[name], readFileSync(join(out, name), 'utf8'), `meta ${name}: the app's export is the CLI's`);
      }
    }
    for (const name of Object.keys(metaApp)) {
      const ext = name.split('.').pop();
      const format = ext === 'tex' ? 'latex' : ext;
      assert.ok(readdirSync(join(dir, `meta-${format}`)).includes(name), `the CLI prints ${name} too`);
    }

    // CoEval: the Results panel of the study the bundle carries.
    await page.getByRole('tab', { name: 'CoEval', exact: true }).click();
    await page.getByRole('tablist', { name: 'CoEval steps' }).getByRole('tab', { name: 'Results', exact: true }).click();
    const panel = page.locator('#screen-panel');
    await panel.locator('table[data-table]').first().waitFor();
    const coevalApp = await exportTables(page, panel);
    assert.ok(Object.keys(coevalApp).length >= 4 * 3, `the CoEval tables exported: ${Object.keys(coevalApp)}`);
    for (const format of ['csv', 'md', 'latex', 'json']) {
      const out = join(dir, `coeval-${format}`);
      execFileSync(CLI, ['report', bundle, '--screen', 'coeval', '--format', format, '--out', out]);
      const cli = readdirSync(out);
      for (const name of Object.keys(coevalApp).filter((n) => n.endsWith(`.${format === 'latex' ? 'tex' : format}`))) {
        assert.ok(cli.includes(name), `the CLI prints ${name}`);
        assert.equal(coevalApp[name], readFileSync(join(out, name), 'utf8'), `CoEval ${name}: the app's export is the CLI's`);
      }
    }
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the judge audit of the Results screen is computed on request and exported as `concord audit` prints it', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-audit-'));
  const browser = await launch();
  try {
    const bundle = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
    bundle.settings = { ...bundle.settings, resamples: 300, audit_labelled: 6 };
    const path = join(dir, 'audit-bundle.json');
    writeFileSync(path, JSON.stringify(bundle));
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(CONCORD_URL);
    const results = new ResultsPage(page);
    await results.open();
    await results.importBundle(path);
    await page.getByTestId('bundle-source').filter({ hasText: 'audit-bundle.json' }).waitFor();
    const panel = page.getByTestId('audit-panel');
    // The bundle's setting is on the control; nothing is computed before it is asked for.
    assert.equal(await panel.getByTestId('audit-labelled').inputValue(), '6');
    assert.equal(await panel.locator('table[data-table]').count(), 0);
    await panel.getByTestId('audit-compute').click();
    await panel.locator('table[data-table="audit-corrected"]').waitFor({ timeout: 60_000 });
    const ids = await panel.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table));
    assert.deepEqual(ids, ['audit-judges', 'audit-panel', 'audit-juries', 'audit-corrected', 'audit-length', 'audit-self-preference', 'audit-length-variants']);
    assert.match(await panel.locator('table[data-table="audit-judges"]').innerText(), /score-only vs rate-explain/);
    const app = await exportTables(page, panel);
    assert.equal(Object.keys(app).length, 7 * FORMATS.length);
    for (const [, ext] of FORMATS) {
      const format = ext === 'tex' ? 'latex' : ext;
      const out = join(dir, `audit-${format}`);
      execFileSync(CLI, ['audit', path, '--format', format, '--out', out]);
      for (const name of readdirSync(out)) {
        assert.equal(app[name], readFileSync(join(out, name), 'utf8'), `${name}: the app's export is the CLI's`);
      }
    }
    assert.match(app['audit-corrected.csv'], /All human labels/);

    // Self-preference: ticking a system of the judges' own family adds its rows, as `--own` does.
    await panel.getByTestId('audit-own').getByLabel('abstractive').check();
    await panel.locator('table[data-table]').first().waitFor({ state: 'detached' });
    await panel.getByTestId('audit-compute').click();
    const selfTable = panel.locator('table[data-table="audit-self-preference"]');
    await selfTable.waitFor({ timeout: 60_000 });
    await page.waitForTimeout(600);
    const [selfDownload] = await Promise.all([
      page.waitForEvent('download'),
      panel.locator('button[aria-label$=" as Markdown"][data-table="audit-self-preference"]').click(),
    ]);
    const selfCli = execFileSync(CLI, ['audit', path, '--own', 'abstractive'], { encoding: 'utf8' });
    const selfShown = readFileSync(await selfDownload.path(), 'utf8');
    assert.match(selfShown, /Own family: abstractive\./);
    assert.ok(selfCli.includes(selfShown.trim()), 'the self-preference table, as `concord audit --own abstractive` prints it');
    await panel.getByTestId('audit-own').getByLabel('abstractive').uncheck();

    // Every label kept: the audit is stale, computed again, and the CLI agrees with `--labelled all`.
    await panel.getByTestId('audit-labelled').fill('');
    await panel.getByTestId('audit-labelled').dispatchEvent('change');
    await panel.locator('table[data-table]').first().waitFor({ state: 'detached' });
    await panel.getByTestId('audit-compute').click();
    const corrected = panel.locator('table[data-table="audit-corrected"]');
    await corrected.waitFor({ timeout: 60_000 });
    await page.waitForTimeout(600);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      panel.locator('button[aria-label$=" as Markdown"][data-table="audit-corrected"]').click(),
    ]);
    const cliAll = execFileSync(CLI, ['audit', path, '--labelled', 'all'], { encoding: 'utf8' });
    const shown = readFileSync(await download.path(), 'utf8');
    assert.ok(cliAll.includes(shown.trim()), 'the corrected means with every label, as `concord audit --labelled all` prints them');
    assert.match(shown, /nothing to correct/);

    // Juries as rows of the Results table: the export is `concord report` of the bundle with
    // `juries` set.
    await page.getByTestId('juries').check();
    await page.getByTestId('results-table').getByRole('rowheader', { name: 'jury (median)' }).waitFor();
    await page.waitForTimeout(600);
    const [juryDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('button[aria-label$=" as CSV"][data-table="concord-results"]').click(),
    ]);
    const withJuries = join(dir, 'juries-bundle.json');
    writeFileSync(withJuries, JSON.stringify({ ...bundle, settings: { ...bundle.settings, audit_labelled: null, juries: true } }));
    const out = join(dir, 'juries-csv');
    execFileSync(CLI, ['report', withJuries, '--format', 'csv', '--out', out]);
    const juryCsv = readFileSync(await juryDownload.path(), 'utf8');
    assert.match(juryCsv, /jury \(mean\)/);
    assert.equal(juryCsv, readFileSync(join(out, 'concord-results.csv'), 'utf8'), 'the table with juries, as the CLI prints it');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
