// The length probe end to end against a mock with a known bias: every output judged again
// padded with neutral filler and truncated to its first sentences, through the Run screen
// (priced, cached, like any run), then the judge audit on the Results screen measures the
// shift. The mock reads the rating planted at the start of each output and adds a point when
// the prompt carries the filler, so the padded shift is exactly +1 and the truncated one 0.
// The exported bundle carries the probe's runs: `concord audit` prints the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL, setScenario, mockTotal } from './browser.mjs';
import { withApp, cli as concord } from './harness.mjs';
// The first of the probe's filler sentences (crates/core/src/study/workbench/probe.rs).
const FILLER = 'This point is stated here once more for completeness.';
const ITEMS = 24;

/** Outputs that start with their planted rating (1–4, so +1 stays on the 1–5 scale). */
function probeCsv() {
  const rows = ['doc,sys,source,output,coherence'];
  for (let i = 0; i < ITEMS; i++) {
    const q = 1 + ((i * 7) % 4);
    // System s0 signs its outputs: the self-preference part of the test plants a bias on it.
    const sign = i % 3 === 0 ? ' Written by OWNFAMILY.' : ' Written by another.';
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)} text.","RATING=${q}. The summary states the main fact of the article. It adds a second detail about the place. It ends with a third remark about the date.${sign}",${q}`);
  }
  return rows.join('\n') + '\n';
}


/** Presses Run and waits until the mock has answered `calls` more calls and the run is over. */
async function runAndWait(page, run, calls) {
  const before = await mockTotal();
  await run.run();
  const deadline = Date.now() + 120_000;
  while (await mockTotal() < before + calls) {
    assert.ok(Date.now() < deadline, `the mock got ${await mockTotal() - before} of ${calls} calls`);
    await page.waitForTimeout(200);
  }
  await run.waitRunAgain();
}

test('the length probe runs against a biased mock and the audit recovers the bias with its interval', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=' }, bonus: { contains: FILLER, points: 1 }, supports_n: true, latency_ms: 2 };
  await withApp({ data: { name: 'probe.csv', text: probeCsv() }, scenario }, async (app) => {
    const { page, judge, run, results } = app;
    const dir = app.tempDir('concord-probe-');
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });

    await app.connectMock({ key: 'sk-probe' });
    await runAndWait(page, run, ITEMS);
    const afterStudy = await mockTotal();
    assert.equal(afterStudy, ITEMS, 'one call per item');

    // The padded probe: its variants are shown before anything is sent, and it is priced.
    const choice = run.probeChoice;
    await choice.selectOption('padded');
    const variants = run.probeVariants;
    await run.openProbeVariants();
    assert.match(await variants.innerText(), new RegExp(`padded[\\s\\S]*${FILLER.replace('.', '\\.')}`));
    assert.match(await variants.innerText(), /truncated\s+RATING=\d\. The summary states the main fact of the article\./);
    assert.match(await run.estimate.innerText(), new RegExp(`^${ITEMS} calls`));
    await runAndWait(page, run, ITEMS);
    assert.match(await run.progress.innerText(), new RegExp(`^${ITEMS} of ${ITEMS} calls done, 0 failed`));
    assert.equal(await mockTotal(), afterStudy + ITEMS, 'the probe sent one call per item, the study\'s answers were not asked again');
    await choice.selectOption('truncated');
    await runAndWait(page, run, ITEMS);

    // The probe's runs join the Results table beside the study's.
    await results.open();
    await results.rowHeader('score-only [truncated]').waitFor({ timeout: 30_000 });
    const rows = await results.rowHeaders();
    assert.deepEqual(rows, ['score-only', 'score-only [padded]', 'score-only [truncated]']);

    const audit = results.audit;
    await audit.compute();
    const shifts = audit.table('audit-length-variants');
    await shifts.waitFor({ timeout: 60_000 });
    const text = await shifts.innerText();
    assert.match(text, /padded variants gain \+1\.00 \[1\.00, 1\.00\] points/, text);
    assert.match(text, /no detectable length bias at this n \(24 items\)/, text);
    // The probe's runs are not judges of the dataset: no judge-against-judge row.
    assert.equal(await audit.rows('audit-judges').count(), 0);

    // The bundle carries the probe's runs and raw answers: the CLI prints the same table.
    await page.waitForTimeout(600);
    const shown = await audit.exportTable('audit-length-variants', 'Markdown');
    const written = await results.exportBundle();
    const bundle = join(dir, 'probe-bundle.json');
    await written.saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    assert.deepEqual(saved.runs.map((r) => r.origin).sort(), ['probe:padded', 'probe:truncated', 'study']);
    const padded = saved.runs.find((r) => r.origin === 'probe:padded');
    assert.ok(padded.run.records[0].prompt.includes(FILLER), 'the padded prompt is in the bundle');
    const cli = concord(['audit', bundle]);
    assert.ok(cli.includes(shown.trim()), `concord audit prints the shown table:\n${shown}\n---\n${cli}`);

    // Self-preference: a judge that adds a point to the outputs of system s0, named as its own
    // family's, is found with its interval; the other systems are not.
    await setScenario({ reply: { mode: 'echo_rating', marker: 'RATING=' }, bonus: { contains: 'OWNFAMILY', points: 1 }, supports_n: true, latency_ms: 2 });
    await run.open();
    await run.setModel('mock-model-2');
    await choice.selectOption('');
    await runAndWait(page, run, ITEMS);
    await results.open();
    await audit.own('s0').check();
    await audit.compute();
    const self = audit.table('audit-self-preference');
    await self.waitFor({ timeout: 60_000 });
    const selfText = await self.innerText();
    const selfRow = await audit.firstRowCells('audit-self-preference');
    // s0 has 8 items; the two the humans rated 4 get a 5, outside the 1–4 scale the dataset
    // shows, which the parser refuses: 6 are left.
    assert.deepEqual(selfRow.slice(0, 4), ['coherence', '6', '16', '1.000'], selfText);
    assert.match(selfRow[5], /^1\.000\s*\[1\.000, 1\.000\]$/, selfText);
    assert.equal(selfRow[6], "its own family's outputs gain 1.00 points");
  });
});
