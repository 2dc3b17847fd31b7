// Ensembles: methods ticked on the Results screen are averaged item by item into one more row,
// tested against the baseline like any method and against its members in the judge audit;
// the bundle keeps them, and `concord report` prints the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL } from './browser.mjs';
import { withApp, cli } from './harness.mjs';
const NAME = 'ensemble: score-only + rate-explain';

test('an ensemble of two methods is a row of the table, in the bundle and in concord report', { timeout: 120_000 }, async () => {
  await withApp({ url: null }, async (app) => {
    const { page, results } = app;
    const dir = app.tempDir('concord-ensemble-');
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=results`);
    await results.table.waitFor({ timeout: 60_000 });
    const ensembles = results.ensembles;
    await ensembles.unfold();
    const add = ensembles.addButton;
    // Ticked in the other order: named in the table's order.
    await ensembles.member('rate-explain').check();
    assert.equal(await add.isDisabled(), true, 'one method is no ensemble');
    await ensembles.member('score-only').check();
    await add.click();
    await ensembles.listed(NAME).waitFor();
    const rows = await results.cells();
    const row = rows.find((r) => r[0] === NAME);
    assert.ok(row, `a row named ${NAME}: ${JSON.stringify(rows.map((r) => r[0]))}`);
    assert.match(row[1], /^-?\d\.\d{3}$/, 'a correlation on coherence');
    assert.equal(await ensembles.summary.innerText(), 'Ensembles (1)');

    // The judge audit tests it against each member.
    const audit = results.audit;
    await audit.compute();
    await audit.table('audit-juries').waitFor({ timeout: 60_000 });
    const labels = await audit.rowHeadings('audit-juries');
    assert.equal(labels.filter((l) => l === NAME).length, 4, 'two members × two attributes');

    // The bundle keeps it; the CLI prints the same results table.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    assert.deepEqual(JSON.parse(readFileSync(bundle, 'utf8')).settings.ensembles, [['score-only', 'rate-explain']]);
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    await results.openParseFailures();
    const csv = await results.exportTable('concord-results');
    assert.match(csv, new RegExp(NAME.replace('+', '\\+')));
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));

    // Removed: the row goes.
    await ensembles.remove(NAME);
    await results.waitNoRow(NAME);
  });
});
