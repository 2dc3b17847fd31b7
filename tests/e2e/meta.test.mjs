// The Pairwise & meta-evaluation screen on the released files of seed 003: the tables equal
// `concord meta` on the same files (and the printed Table 1), the heatmap and Elo render, a CSV
// export downloads, and no main-thread task of the Elo recomputation runs over 100 ms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { MetaPage } from './pages/meta_page.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DATA = process.env.CONCORD_META_DATA ?? resolve(ROOT, '../shared/data/meta-evaluation');

const list = (dir) => readdirSync(join(DATA, dir))
  .filter((n) => n.endsWith('.jsonl') || n.endsWith('.json'))
  .sort()
  .map((n) => join(DATA, dir, n));

/** `concord meta FILES --format json`: a built binary if there is one, else `cargo run`. */
function concordMeta(files) {
  const args = ['meta', ...files, '--format', 'json'];
  const built = [process.env.CONCORD_CLI, join(ROOT, 'target/release/concord'), join(ROOT, 'target/debug/concord')]
    .find((p) => p && existsSync(p));
  const out = built
    ? execFileSync(built, args, { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
    : execFileSync('cargo', ['run', '-q', '--release', '-p', 'concord-cli', '--', ...args],
      { cwd: ROOT, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out.toString('utf8'));
}

// Table 1 as printed in the paper (4 decimals), for the five released evaluators.
const PRINTED_ACCURACY = {
  'gpt-4-1106-preview': '0.7332', 'gpt-3.5-turbo': '0.6741', 'qwen1.5-7B-Chat': '0.5010',
  'qwen1.5-14B-Chat': '0.6293', 'qwen1.5-72B-Chat': '0.6965',
};
const PRINTED_PEARSON = {
  'gpt-4-1106-preview': '0.6183', 'gpt-3.5-turbo': '0.5501', 'qwen1.5-7B-Chat': '0.5902',
  'qwen1.5-14B-Chat': '0.6416', 'qwen1.5-72B-Chat': '0.6223',
};

function close(actual, expected, tolerance, what) {
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

test('meta-evaluation screen reproduces concord meta on the released files', { skip: !existsSync(DATA) && `absent: ${DATA}`, timeout: 600_000 }, async () => {
  const files = [
    ...list('evaluator_results/pairwise'),
    ...list('evaluator_results/pointwise'),
    ...list('meta-evaluator_results/pairwise/JDEval'),
    ...list('meta-evaluator_results/pointwise/JDEval-i'),
    ...list('meta-evaluator_results/pointwise/BSMEval'),
  ];
  const expected = concordMeta(files);
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const meta = new MetaPage(page);
    await meta.open(CONCORD_URL);
    // Long tasks (> 50 ms) of the main thread, as Chromium reports them.
    await page.evaluate(() => {
      window.__longtasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longtasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: false });
    });
    const longest = () => page.evaluate(() => {
      const all = window.__longtasks.splice(0);
      return { count: all.length, max: Math.max(0, ...all) };
    });

    const started = Date.now();
    await meta.loadFiles(files);
    // Loading ends with an Elo computation with the default controls; let it finish.
    await page.waitForFunction(() => /Computed in/.test(document.querySelector('[data-testid="elo-status"]')?.textContent ?? ''));
    const load = await longest();
    console.log(`# loaded ${files.length} files in ${Date.now() - started} ms; long tasks while loading: ${load.count}, longest ${load.max.toFixed(0)} ms`);

    // Table 1: every evaluator row of the CLI, and the printed values.
    for (const row of expected.evaluators) {
      const cols = row.kind === 'pairwise' ? ['accuracy', 'accuracy_no_ties'] : ['pearson'];
      for (const col of cols) {
        close(await meta.value('table1', `${row.name}/${col}`), row[col], 1e-12, `${row.name} ${col}`);
      }
    }
    for (const [name, printed] of Object.entries(PRINTED_ACCURACY)) {
      assert.equal(await meta.cell('table1', `${name}/accuracy`).textContent(), printed, `${name} accuracy`);
    }
    for (const [name, printed] of Object.entries(PRINTED_PEARSON)) {
      assert.equal(await meta.cell('table1', `${name}/pearson`).textContent(), printed, `${name} Pearson`);
    }
    // Tables 5 and 6: every cell of the CLI.
    assert.equal(expected.meta_scores.length, 42);
    for (const s of expected.meta_scores) {
      const table = s.protocol === 'JDEval-i' ? 'table5' : 'table6';
      close(await meta.value(table, `${s.meta_evaluator}/${s.evaluator}`), s.mean, 1e-12, `${table} ${s.meta_evaluator}/${s.evaluator}`);
    }

    // Elo with the paper's rules over 200 shuffles: equal to the CLI (libm's pow may differ in
    // the last bits between wasm and native), and no long task over 100 ms while computing.
    await meta.recompute({ k: 4, init: 1000, scale: 400, shuffles: 200, seed: 0, resamples: 200 });
    const elo = await longest();
    console.log(`# Elo (200 shuffles) + Bradley–Terry (200 resamples) for ${expected.elo.length} meta-evaluators: ${await meta.eloStatus.textContent()} long tasks: ${elo.count}, longest ${elo.max.toFixed(0)} ms`);
    assert.ok(elo.max <= 100, `a main-thread task ran ${elo.max} ms while recomputing Elo`);
    for (const e of expected.elo) {
      for (const [name, rating] of Object.entries(e.ratings)) {
        close(await meta.value('elo', `${e.meta_evaluator}/${name}`), rating, 1e-6, `Elo ${e.meta_evaluator}/${name}`);
      }
    }

    // The heatmap: 6 × 6 cells with values, a legend; the Elo chart has a bar per evaluator.
    const cells = await meta.heatmap.locator('rect title').count();
    assert.equal(cells, 36);
    assert.match(await meta.heatmap.textContent(), /0\.\d\d/);
    assert.equal(await meta.eloChart.locator('rect').count(), 6);

    // Exports: Table 1 as CSV, the heatmap as SVG.
    const csv = await meta.export('Export Table 1: evaluators against humans as CSV');
    assert.equal(csv.name, 'table1.csv');
    const lines = csv.text.trim().split('\n');
    assert.equal(lines[0], 'Evaluator,Accuracy,Accuracy (no ties),n pairs,Pearson,n items');
    assert.match(lines[1], /^gpt-4-1106-preview,0\.733197556008\d*,/);
    const svg = await meta.export('Export heatmap SVG');
    assert.match(svg.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

    // Inspectors: a JDEval debate and a BSMEval record with its branches.
    assert.match(await meta.debate.textContent(), /Round 1/);
    assert.match(await page.getByTestId('debate-verdict').textContent(), /Better assessor/);
    assert.ok((await meta.bsmRecord.locator('.branch-list li').count()) >= 1);

    if (process.env.CONCORD_SCREENSHOTS) {
      await page.getByTestId('win-rate-heatmap').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/meta.png`, fullPage: false });
    }
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});
