// Ensembles: methods ticked on the Results screen are averaged item by item into one more row,
// tested against the baseline like any method and against its members in the judge audit;
// the bundle keeps them, and `concord report` prints the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { ResultsPage } from './pages/workbench_pages.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
const NAME = 'ensemble: score-only + rate-explain';

test('an ensemble of two methods is a row of the table, in the bundle and in concord report', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-ensemble-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=results`);
    const results = new ResultsPage(page);
    await results.table.waitFor({ timeout: 60_000 });
    const panel = page.getByTestId('ensembles');
    await panel.locator('summary').click();
    const add = panel.getByRole('button', { name: 'Add ensemble' });
    // Ticked in the other order: named in the table's order.
    await panel.getByLabel('rate-explain', { exact: true }).check();
    assert.equal(await add.isDisabled(), true, 'one method is no ensemble');
    await panel.getByLabel('score-only', { exact: true }).check();
    await add.click();
    await panel.getByTestId('ensemble-list').getByText(NAME).waitFor();
    const rows = await results.cells();
    const row = rows.find((r) => r[0] === NAME);
    assert.ok(row, `a row named ${NAME}: ${JSON.stringify(rows.map((r) => r[0]))}`);
    assert.match(row[1], /^-?\d\.\d{3}$/, 'a correlation on coherence');
    assert.equal(await panel.locator('summary').innerText(), 'Ensembles (1)');

    // The judge audit tests it against each member.
    await page.getByTestId('audit-compute').click();
    const juries = page.locator('table[data-table="audit-juries"]');
    await juries.waitFor({ timeout: 60_000 });
    const labels = await juries.locator('tbody th').allInnerTexts();
    assert.equal(labels.filter((l) => l === NAME).length, 4, 'two members × two attributes');

    // The bundle keeps it; the CLI prints the same results table.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    assert.deepEqual(JSON.parse(readFileSync(bundle, 'utf8')).settings.ensembles, [['score-only', 'rate-explain']]);
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
    const csv = await results.exportTable('concord-results');
    assert.match(csv, new RegExp(NAME.replace('+', '\\+')));
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));

    // Removed: the row goes.
    await panel.getByRole('button', { name: `Remove ${NAME}` }).click();
    await page.waitForFunction((n) => ![...document.querySelectorAll('[data-testid="results-table"] tbody th')].some((th) => th.innerText.trim() === n), NAME);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
