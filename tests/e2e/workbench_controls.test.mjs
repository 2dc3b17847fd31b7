// The workbench's controls in Chromium against the mock: Pause / Resume / Cancel on the Run
// screen (checked against the mock's request log: nothing sent while paused or after a
// cancel, nothing paid twice), bootstrap intervals on the Results screen (shown in every cell,
// bracketing it, reproducible from the seed), and every export of the Results screen (CSV,
// Markdown, LaTeX, the cell panel's SVG and PNG plots) checked against what the table shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL, mockSummary as summary, setScenario as scenario } from './browser.mjs';
import { withApp, parseSvg } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

const mock = (what) => fetch(`${MOCK_URL}/__mock/${what}`, { method: 'POST' });
const chatLog = async () => (await (await fetch(`${MOCK_URL}/__mock/requests`)).json()).requests
  .filter((r) => r.path.endsWith('/chat/completions'))
  .sort((a, b) => a.seq - b.seq);


/**
 * A complete results table: the graded CSV, score-only (a noisy judge) against rate-explain
 * and analyze-rate (which read the planted grade), 2 samples each, run against the mock, with
 * score-only as the baseline so Williams' marks appear.
 */
async function gridResults(app) {
  const { data, judge, run, results } = app;
  await data.loadFile('graded.csv', GRADED.text);
  await scenario({ reply: { mode: 'echo_rating', marker: 'RATING=', noisy_when: 'scores ONLY' }, supports_n: true, latency_ms: 2 });
  await judge.open();
  await judge.addMethods({ modes: ['score-only', 'rate-explain', 'analyze-rate'], n: 2 });
  await app.connectMock({ concurrency: 8 });
  await run.run();
  assert.match(await run.waitFinished(40_000), /Run complete/);
  await results.open();
  await results.setBaseline('score-only');
  await results.table.waitFor();
  return results;
}

const NUM = /^-?\d\.\d{3}$/;
const CI = /^\[(-?\d\.\d{3}), (-?\d\.\d{3})\]$/;

test('Run screen: Pause sends nothing until Resume, Cancel stops midway, running again sends only what is missing', { skip: !MOCK_URL, timeout: 90_000 }, async () => {
  // The built-in example (15 items × 2 attributes) and four methods: 120 calls of one
  // request each, two at a time, each answered after 150 ms (about 9 s in all).
  try {
    await withApp({ scenario: { reply: { mode: 'hash_rating' }, supports_n: true, latency_ms: 150 } }, async (app) => {
      const { page, judge, run, results } = app;
      await judge.open();
      await judge.addMethods({ modes: ['score-only', 'free-text', 'rate-explain', 'analyze-rate'], n: 1 });
      await app.connectMock({ concurrency: 2 });
      assert.ok(await run.pauseButton.isDisabled(), 'nothing to pause before a run');
      assert.ok(await run.resumeButton.isDisabled());
      assert.ok(await run.cancelButton.isDisabled());

      // --- Pause and Resume ---
      await run.run();
      await run.waitCounts((c) => c.done >= 20);
      await run.pause();
      // The run takes the pause at its next step (at most a quarter of a second): Resume is then
      // offered. The calls already sent are answered and stored; then nothing is in flight.
      await run.waitResumeOffered(true, 5_000);
      const paused = await run.waitCounts((c) => c.inFlight === 0, 10_000);
      assert.equal(paused.total, 120);
      assert.ok(paused.done < 120, `paused midway (${paused.text})`);
      assert.ok(await run.pauseButton.isDisabled(), 'Pause is disabled while paused');
      assert.ok(await run.resumeButton.isEnabled(), 'Resume is offered while paused');
      assert.ok(await run.cancelButton.isEnabled(), 'a paused run can still be cancelled');
      assert.ok(await run.runButton.isDisabled(), 'the run is still going (not finished)');
      assert.equal(await run.finished.count(), 0, 'a paused run is not reported finished');
      assert.ok((await run.logLines()).includes('paused'), 'the run log says it was paused');
      const sentWhenPaused = (await chatLog()).length;
      assert.equal(sentWhenPaused, paused.done, 'every request sent before the pause was answered and counted');
      // Two seconds paused: the mock sees no new request, the progress does not move.
      await page.waitForTimeout(2000);
      assert.equal((await chatLog()).length, sentWhenPaused, 'no request was sent while paused');
      const still = await run.counts();
      assert.equal(still.done, paused.done, 'the progress stands still while paused');
      assert.equal(still.inFlight, 0);

      assert.equal((await chatLog()).length, sentWhenPaused, 'nothing was sent until Resume');
      await run.resume();
      await run.waitResumeOffered(false);
      assert.match(await run.waitFinished(40_000), /^Run complete\./);
      const done = await run.counts();
      assert.match(done.text, /^120 of 120 calls done, 0 failed, 0 in flight, 0 cached/);
      const lines = await run.logLines();
      assert.ok(lines.indexOf('resumed') > lines.indexOf('paused'), `paused, then resumed: ${lines.join(' | ')}`);
      const log = await chatLog();
      assert.equal(log.length, 120, 'one request per call');
      const gap = log[sentWhenPaused].t_ms - log[sentWhenPaused - 1].t_ms;
      let s = await summary();
      assert.equal(s.answered_ok, 120);
      assert.deepEqual(s.duplicate_successes, [], 'every call answered once');
      assert.ok(await run.pauseButton.isDisabled() && await run.cancelButton.isDisabled() && await run.resumeButton.isDisabled());

      // --- Cancel ---
      // Another model: new cache keys, so the same 120 calls are due again. The mock's log starts
      // afresh (the prompts, hence the sample names, are the same as above).
      await run.setModel('mock-model-2');
      await scenario({ reply: { mode: 'hash_rating' }, supports_n: true, latency_ms: 100 });
      await run.run();
      await run.waitCounts((c) => c.total === 120 && c.done >= 20);
      // Hold the mock's answers so calls are certainly in flight when Cancel is pressed.
      await mock('hold');
      await run.waitCounts((c) => c.inFlight >= 1, 5_000);
      await page.waitForTimeout(400);
      const held = await run.counts();
      await run.cancel();
      const finished = await run.waitFinished(10_000);
      await mock('release');
      assert.match(finished, /^Run cancelled\. Everything stored so far is kept; Run again to continue\./);
      const cancelled = await run.counts();
      assert.equal(cancelled.inFlight, 0, 'the calls in flight were aborted');
      assert.ok(cancelled.done >= held.done && cancelled.done < 120, `cancelled midway (${cancelled.text})`);
      assert.ok((await run.logLines()).includes('cancelled'), 'the run log says it was cancelled');
      assert.ok(await run.runButton.isEnabled(), 'Run is offered again');
      assert.ok(await run.cancelButton.isDisabled() && await run.pauseButton.isDisabled());
      // Wait for the mock to notice the aborted connections, then check nothing more comes.
      await page.waitForTimeout(1500);
      const afterCancel = await chatLog();
      const gone = afterCancel.filter((r) => r.outcome === 'client_gone').length;
      // The page's "in flight" is read a moment before Cancel: an answer already on its way when
      // the mock began holding may land in between (it is then stored, below). Every call the mock
      // did not deliver was aborted by the page.
      assert.ok(held.inFlight >= 1 && gone >= 1 && gone <= held.inFlight, `the held calls were aborted, never delivered (${gone} of ${held.inFlight})`);
      const undelivered = afterCancel.filter((r) => !r.answered_ok);
      assert.deepEqual(undelivered.map((r) => r.outcome), undelivered.map(() => 'client_gone'), 'every call not answered was one the page aborted');
      s = await summary();
      assert.equal(s.answered_ok, cancelled.done, 'the page stored every answer the mock delivered');
      assert.equal(afterCancel.length, cancelled.done + gone, 'nothing else was sent');
      await page.waitForTimeout(1000);
      assert.equal((await chatLog()).length, afterCancel.length, 'nothing is sent after Cancel');

      // --- Run again: only what was not answered is sent ---
      await run.run();
      assert.match(await run.waitFinished(40_000), /^Run complete\./);
      const again = await run.counts();
      assert.equal(again.cached, cancelled.done, `the ${cancelled.done} stored calls come from the cache (${again.text})`);
      assert.equal(again.done + again.cached, 120, again.text);
      assert.equal(again.failed, 0);
      const all = await chatLog();
      assert.equal(all.length - afterCancel.length, 120 - cancelled.done, 'only the unanswered calls were sent');
      s = await summary();
      assert.equal(s.answered_ok, 120, 'every call answered exactly once over both runs');
      assert.deepEqual(s.duplicate_successes, [], 'nothing paid twice');
      console.log(`# paused after ${paused.done} of 120 calls (next request ${gap} ms later); cancelled after ${cancelled.done} with ${gone} aborted in flight; the rerun sent ${all.length - afterCancel.length}`);
      // And the results hold every call: a full 4 × (2 attributes × 2 columns) table.
      await results.open();
      const table = await results.cells();
      assert.deepEqual(table.map((r) => r[0]), ['score-only', 'free-text', 'rate-explain', 'analyze-rate']);
      for (const row of table) {
        assert.equal(row.length, 5);
        for (const cell of row.slice(1)) assert.match(cell, NUM, `a correlation in every cell: ${row}`);
      }
    });
  } finally {
    await mock('release');
  }
});

test('Results: Bootstrap CIs in every cell bracket the value, and the same seed gives the same intervals', { skip: !MOCK_URL, timeout: 90_000 }, async () => {
  await withApp({}, async (app) => {
    const dir = app.tempDir('concord-ci-');
    const results = await gridResults(app);
    const before = await results.cellDetails();
    assert.equal(before.length, 3);
    for (const row of before) {
      assert.equal(row.length, 4, 'two attributes × (r, τ)');
      for (const c of row) {
        assert.match(c.value, NUM, `${c.method}: a number in every cell`);
        assert.equal(c.ci, null, 'no intervals before they are asked for');
      }
    }

    await results.computeIntervals();
    const first = await results.cellDetails();
    assert.deepEqual(first.map((r) => r.map((c) => c.value)), before.map((r) => r.map((c) => c.value)), 'the values are unchanged');
    let wide = 0;
    for (const row of first) {
      for (const c of row) {
        assert.ok(c.ci, `${c.method}: an interval in every cell`);
        const m = CI.exec(c.ci);
        assert.ok(m, `${c.method}: interval as [lo, hi]: ${c.ci}`);
        const [lo, hi, v] = [Number(m[1]), Number(m[2]), Number(c.value)];
        assert.ok(lo <= v && v <= hi, `${c.method}: ${c.ci} brackets ${c.value}`);
        assert.ok(lo >= -1 && hi <= 1, `${c.method}: a correlation's interval stays in [-1, 1]: ${c.ci}`);
        if (hi - lo >= 0.01) wide++;
      }
    }
    console.log(`# intervals: ${first.map((r) => `${r[0].method} ${r.map((c) => `${c.value} ${c.ci}`).join(' · ')}`).join(' | ')}`);
    assert.ok(wide >= 6, `intervals have a width (${wide} of 12 are at least 0.01 wide)`);

    // Intervals follow the view: another statistic gets its own (computed again), back to the
    // default layout they are the first ones again; hidden, none is shown.
    await results.setStatistic('spearman');
    await results.waitIntervals();
    const spearman = await results.cellDetails();
    assert.equal(spearman[0].length, 2, 'one column per attribute');
    for (const c of spearman.flat()) assert.ok(CI.exec(c.ci), `${c.method}: a Spearman interval ${c.ci}`);
    await results.setStatistic('paper');
    assert.deepEqual(await results.subHeadings(), ['r (dataset)', 'τ (document)', 'r (dataset)', 'τ (document)']);
    await results.waitIntervals();
    assert.deepEqual(await results.cellDetails(), first, 'the same seed gives the same intervals');
    await results.hideIntervals();
    assert.equal(await results.intervalCount(), 0, 'hidden');
    await results.computeIntervals();
    assert.deepEqual(await results.cellDetails(), first, 'shown again: the same intervals');

    // The seed is the bundle's: the same bundle reopened gives the same intervals, a bundle
    // with another seed gives other intervals around the same values.
    const download = await results.exportBundle();
    const bundlePath = join(dir, 'bundle.json');
    await download.saveAs(bundlePath);
    const bundle = JSON.parse(readFileSync(bundlePath, 'utf8'));
    assert.equal(bundle.settings.paper_layout, true);
    const otherPath = join(dir, 'other-seed.json');
    writeFileSync(otherPath, JSON.stringify({ ...bundle, settings: { ...bundle.settings, seed: bundle.settings.seed + 12345 } }));
    // Each bundle is opened in a reloaded page (the saved workspace comes back first), and
    // the table shown is the bundle's own once it says it opened.
    const reopen = async (path) => {
      await app.reload();
      await results.open();
      await results.importBundle(path);
      await results.importMessage(`Opened bundle ${path.split('/').pop()}.`).waitFor();
      await results.table.waitFor();
    };
    await reopen(otherPath);
    assert.match(await results.source.innerText(), /other-seed\.json/);
    await results.computeIntervals();
    const other = await results.cellDetails();
    assert.deepEqual(other.map((r) => r.map((c) => c.value)), first.map((r) => r.map((c) => c.value)), 'the bundle gives the same values');
    const differ = other.flat().filter((c, i) => c.ci !== first.flat()[i].ci).length;
    console.log(`# another seed changed ${differ} of 12 intervals`);
    assert.ok(differ >= 1, 'another seed gives other intervals');
    for (const c of other.flat()) {
      const [, lo, hi] = CI.exec(c.ci).map(Number);
      assert.ok(lo <= Number(c.value) && Number(c.value) <= hi, `${c.method}: ${c.ci} brackets ${c.value} with seed + 12345 too`);
    }
    await reopen(bundlePath);
    assert.match(await results.source.innerText(), /the bundle bundle\.json/);
    await results.computeIntervals();
    assert.deepEqual(await results.cellDetails(), first, 'the original seed, reopened, gives the original intervals');
  });
});

/** RFC 4180 CSV (quoted fields with doubled quotes, CRLF records) into rows of fields. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; }
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += c;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

/** The cells of a Markdown or LaTeX row, without the bold markup, and whether each was bold. */
function unbold(cell, open, close) {
  const bold = cell.startsWith(open) && cell.endsWith(close);
  return { text: bold ? cell.slice(open.length, cell.length - close.length) : cell, bold };
}

test('Results exports: CSV, Markdown and LaTeX match the table; plot SVGs and PNG are real images of the cell', { skip: !MOCK_URL, timeout: 90_000 }, async () => {
  await withApp({}, async (app) => {
    const { page } = app;
    const results = await gridResults(app);
    const attributes = await results.attributes();
    assert.deepEqual(attributes, ['coherence', 'fluency']);
    const subs = await results.subHeadings();
    assert.deepEqual(subs, ['r (dataset)', 'τ (document)', 'r (dataset)', 'τ (document)']);
    const cells = await results.cellDetails();
    const methods = cells.map((r) => r[0].method);
    assert.deepEqual(methods, ['score-only', 'rate-explain', 'analyze-rate']);
    for (const c of cells.flat()) assert.match(c.value, NUM);
    const marked = cells.flat().filter((c) => c.sig).length;
    assert.ok(marked >= 2, `some cells beat the noisy baseline (${marked})`);
    for (const c of cells.flat()) assert.equal(c.bold, c.sig, 'marked cells are bold');
    const read = async (download) => readFileSync(await download.path(), 'utf8');

    // --- CSV: one record per method, a column per attribute × statistic with its n, Williams'
    // p (on dataset-level r only: the test compares r) and the cell's note, at full precision ---
    const csvDownload = await results.exportFile('Export CSV');
    assert.equal(csvDownload.suggestedFilename(), 'concord-results.csv');
    const records = parseCsv(await read(csvDownload));
    const header = records[0];
    assert.deepEqual(header, ['Method', ...attributes.flatMap((a) => [
      `${a} r (dataset)`, `${a} r (dataset) p`, `${a} r (dataset) n`, `${a} r (dataset) note`,
      `${a} τ (document)`, `${a} τ (document) n`, `${a} τ (document) note`,
    ])]);
    assert.equal(records.length, 1 + methods.length, 'one record per method');
    let longer = 0;
    let values = 0;
    for (const [m, method] of methods.entries()) {
      const record = records[1 + m];
      assert.equal(record[0], method, `record ${m + 1} in order`);
      for (const [a, attribute] of attributes.entries()) {
        for (const [k, column] of ['r (dataset)', 'τ (document)'].entries()) {
          const cell = cells[m][a * 2 + k];
          const at = (suffix) => header.indexOf(`${attribute} ${column}${suffix}`);
          const value = record[at('')];
          assert.equal(String(Number(value)), value, `a full-precision number: ${value}`);
          values++;
          if (value.split('.')[1]?.length > 3) longer++;
          assert.ok(Math.abs(Number(value) - Number(cell.value)) <= 0.0005 + 1e-12, `${method} ${attribute} ${column}: ${value} rounds to the shown ${cell.value}`);
          // The tooltip is the note; the CSV carries it, with n (and p) in their own columns.
          assert.equal(record[at(' note')], cell.title, `${method} ${attribute} ${column}: the note is the tooltip`);
          if (k === 0) {
            const t = /^n = (\d+), parse failures = (\d+)(?:, Williams p ([=<]) (\d\.\d{4}) vs baseline)?$/.exec(cell.title);
            assert.ok(t, cell.title);
            assert.equal(record[at(' n')], t[1]);
            const p = record[at(' p')];
            if (method === 'score-only') assert.equal(p, '', 'no p-value for the baseline itself');
            else if (t[3] === '<') assert.ok(Number(p) < Number(t[4]), `${method}: p ${p} is below the tooltip's ${t[4]}`);
            else assert.ok(Math.abs(Number(p) - Number(t[4])) <= 0.00005 + 1e-12, `${method}: p ${p} is the tooltip's ${t[4]}`);
          } else {
            const t = /^n = (\d+) items, (\d+) documents, parse failures = (\d+)$/.exec(cell.title);
            assert.ok(t, `τ at document level has no Williams p: ${cell.title}`);
            assert.equal(record[at(' n')], t[2], 'n of a document-level value: its documents');
          }
        }
      }
    }
    assert.ok(longer >= values / 2, `values at full precision, not rounded to the 3 decimals shown (${longer} of ${values})`);

    // --- Markdown: the title, the table, the notes ---
    const md = (await read(await results.exportFile('Export Markdown'))).trimEnd().split('\n');
    assert.equal(md[0], '**Correlation with human ratings**');
    const mdRow = (line) => line.split(' | ').map((c) => c.replace(/^\| ?/, '').replace(/ ?\|$/, '').trim());
    assert.deepEqual(mdRow(md[2]), ['Method', ...attributes.flatMap((a) => subs.slice(0, 2).map((s) => `${a} ${s}`))]);
    assert.deepEqual(md[3], '|---|---:|---:|---:|---:|');
    for (const [m, method] of methods.entries()) {
      const row = mdRow(md[4 + m]);
      assert.equal(row[0], method);
      assert.equal(row.length, 5);
      row.slice(1).forEach((text, k) => {
        const got = unbold(text, '**', '**');
        assert.equal(got.text, cells[m][k].value, `${method}, column ${k}: Markdown has the shown value`);
        assert.equal(got.bold, cells[m][k].sig, `${method}, column ${k}: bold in Markdown iff marked in the table`);
      });
    }
    assert.ok(md.some((l) => l.startsWith("Bold: Williams' test says")), 'the notes say what bold means');

    // --- LaTeX: a booktabs table float ---
    const tex = await read(await results.exportFile('Export LaTeX'));
    assert.match(tex, /^\\begin\{table\}\[t\]\n\\centering\n\\caption\{Correlation with human ratings\}\n\\label\{tab:concord-results\}\n\\begin\{tabular\}\{lrrrr\}\n\\toprule\n/);
    assert.match(tex, /\\bottomrule\n\\end\{tabular\}\n(\\par.*\n)*\\end\{table\}\n$/);
    assert.ok(tex.includes('Method & \\multicolumn{2}{c}{coherence} & \\multicolumn{2}{c}{fluency} \\\\'), tex);
    assert.ok(tex.includes(' & $r$ (dataset) & $\\tau$ (document) & $r$ (dataset) & $\\tau$ (document) \\\\'), tex);
    const body = tex.split('\\midrule\n')[1].split('\\bottomrule')[0].trimEnd().split('\n');
    assert.equal(body.length, methods.length);
    for (const [m, method] of methods.entries()) {
      const row = body[m].replace(/ \\\\$/, '').split(' & ');
      assert.equal(row[0], method);
      assert.equal(row.length, 5);
      row.slice(1).forEach((text, k) => {
        const got = unbold(text, '\\textbf{', '}');
        assert.equal(got.text, cells[m][k].value, `${method}, column ${k}: LaTeX has the shown value`);
        assert.equal(got.bold, cells[m][k].sig, `${method}, column ${k}: \\textbf in LaTeX iff marked in the table`);
      });
    }

    // --- The cell panel's plots: rate-explain on coherence ---
    await results.openCell(4);
    await results.heading('rate-explain · coherence').waitFor();
    const n = Number(/^n = (\d+)/.exec(cells[1][0].title)[1]);
    const shown = await results.cellPlotShapes();
    assert.equal(shown.length, 3, 'scatter, judge histogram, human histogram');
    const parse = (text) => parseSvg(page, text);

    const scatterDownload = await results.exportFile('Export scatter SVG');
    assert.equal(scatterDownload.suggestedFilename(), 'rate-explain-coherence-scatter.svg');
    const scatterText = await read(scatterDownload);
    assert.ok(scatterText.startsWith('<svg'), 'starts with <svg');
    const scatter = await parse(scatterText);
    assert.equal(scatter.error, null, 'parses as XML');
    assert.deepEqual([scatter.root, scatter.ns], ['svg', 'http://www.w3.org/2000/svg']);
    assert.equal(scatter.title, 'rate-explain vs humans: coherence');
    assert.equal(scatter.viewBox, shown[0].viewBox, 'the plot shown');
    assert.equal(scatter.circles.length, shown[0].circles);
    assert.ok(scatter.circles.length >= 2);
    // Each circle is one item or a group of coincident ones: together, the cell's n items.
    const items = scatter.circles.reduce((sum, t) => sum + (/^(\d+) items at /.exec(t)?.[1] ? Number(/^(\d+) items at /.exec(t)[1]) : 1), 0);
    assert.equal(items, n, `the scatter holds the cell's ${n} items`);

    const humanText = await read(await results.exportFile('Export human histogram SVG'));
    assert.ok(humanText.startsWith('<svg'));
    const human = await parse(humanText);
    assert.equal(human.error, null);
    assert.equal(human.title, 'Humans: coherence');
    assert.equal(human.viewBox, shown[2].viewBox);
    assert.equal(human.bars.length, 5, 'a bar per point of the 1–5 scale');
    const counted = human.bars.reduce((sum, t) => sum + Number(/: (\d+) items?$/.exec(t)[1]), 0);
    assert.equal(counted, 30, 'the 30 human coherence ratings');

    const pngDownload = await results.exportFile('Export histogram PNG');
    assert.equal(pngDownload.suggestedFilename(), 'rate-explain-coherence-judge-histogram.png');
    const png = readFileSync(await pngDownload.path());
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'the PNG signature');
    assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
    const [, , w, h] = shown[1].viewBox.split(' ').map(Number);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [2 * w, 2 * h], 'the judge histogram at twice its size');
    assert.ok(png.length > 2000, `an image with content (${png.length} bytes)`);
  });
});

test('a parameter the provider rejects is dropped, said on the Run screen and written into the bundle', { skip: !MOCK_URL, timeout: 60_000 }, async () => {
  // The server answers any request carrying `seed` with OpenAI's 400 unsupported_parameter.
  // The browser itself logs each 400 answer; the page logs nothing.
  const scenarioOf = { reply: { mode: 'hash_rating' }, supports_n: true, reject_params: ['seed'] };
  await withApp({ scenario: scenarioOf, ignore: /Failed to load resource: .* 400/ }, async (app) => {
    const { page, judge, run, results } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await app.connectMock({ concurrency: 4 });
    await run.run();
    const finished = await run.waitFinished(40_000);
    assert.match(finished, /Run complete/);
    assert.match(finished, /Parameters the API rejected and the run dropped: seed/);
    await results.open();
    await results.table.waitFor();
    const download = await results.exportBundle();
    const bundle = JSON.parse(readFileSync(await download.path(), 'utf8'));
    assert.equal(bundle.notes.length, 1, JSON.stringify(bundle.notes));
    assert.match(bundle.notes[0], /rejected seed for mock-model; the runs did not send it/);
    // Reopened, the bundle says so next to where it came from.
    const path = await download.path();
    await page.reload();
    await results.open();
    await results.importBundle(path);
    await results.bundleSource('rejected seed').waitFor();
  });
});
