// The Pairwise & meta-evaluation screen on the released files of seed 003: the tables equal
// `concord meta` on the same files (and the printed Table 1), the heatmap and Elo render, a CSV
// export downloads (how long the Elo recomputation's main-thread tasks run is measured by
// `cargo xtask bench-ui`, not asserted). A second
// test checks what `concord meta` does not print (win rates under each tie convention,
// Bradley–Terry with its intervals, ranking agreement, post accuracy) against an independent
// computation in this file from the released JDEval files (checked itself on STATS_SPEC's
// worked examples by a third, browserless test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';
import { missingShared } from './fixtures.mjs';

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

/** `concord meta ARGS` as text (a built binary if there is one, else `cargo run`). */
function concordMetaText(args) {
  const built = [process.env.CONCORD_CLI, join(ROOT, 'target/release/concord'), join(ROOT, 'target/debug/concord')]
    .find((p) => p && existsSync(p));
  const out = built
    ? execFileSync(built, ['meta', ...args], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
    : execFileSync('cargo', ['run', '-q', '--release', '-p', 'concord-cli', '--', 'meta', ...args],
      { cwd: ROOT, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
  return out.toString('utf8');
}

function close(actual, expected, tolerance, what) {
  assert.ok(actual !== null && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected}`);
}

test('meta-evaluation screen reproduces concord meta on the released files', { skip: missingShared(DATA), timeout: 600_000 }, async () => {
  const files = [
    ...list('evaluator_results/pairwise'),
    ...list('evaluator_results/pointwise'),
    ...list('meta-evaluator_results/pairwise/JDEval'),
    ...list('meta-evaluator_results/pointwise/JDEval-i'),
    ...list('meta-evaluator_results/pointwise/BSMEval'),
  ];
  const expected = concordMeta(files);
  await withApp({ url: null }, async ({ page, meta }) => {
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
    await meta.waitElo(30_000);
    const load = await longest();
    console.log(`# loaded ${files.length} files in ${Date.now() - started} ms; long tasks while loading: ${load.count}, longest ${load.max.toFixed(0)} ms`);

    // Table 1: every evaluator row of the CLI, and the printed values.
    for (const row of expected.evaluators) {
      const cols = row.kind === 'pairwise' ? ['accuracy', 'accuracy_no_ties'] : ['pearson'];
      for (const col of cols) {
        close(await meta.value('table1', `${row.name}/${col}`), row[col], 1e-12, `${row.name} ${col}`);
      }
    }
    // The shown value, without the 95 % Wilson interval beside an accuracy.
    const t1 = await meta.cells('table1');
    for (const [name, printed] of Object.entries(PRINTED_ACCURACY)) {
      const cell = t1[`${name}/accuracy`];
      assert.equal(cell.text, printed, `${name} accuracy`);
      assert.ok(cell.low < cell.value && cell.value < cell.high, `${name} accuracy interval`);
    }
    for (const [name, printed] of Object.entries(PRINTED_PEARSON)) {
      assert.equal(t1[`${name}/pearson`].text, printed, `${name} Pearson`);
    }
    // The corrected win rate of output 1 (PPI / PPI++): with every label kept (the default)
    // PPI is the human-only rate, ½ on the released pairs (203 wins, 203 losses, 85 ties).
    const WIN = 'corrected-win-rate';
    const everyLabel = await meta.cells(WIN);
    for (const name of Object.keys(PRINTED_ACCURACY)) {
      assert.equal(everyLabel[`${name}/humans_only`].value, 0.5, `${name}: humans only`);
      assert.equal(everyLabel[`${name}/ppi`].value, 0.5, `${name}: PPI = humans only`);
      assert.equal(everyLabel[`${name}/lambda`].text, '0.000', `${name}: λ`);
    }
    close(everyLabel['gpt-3.5-turbo/judge_only'].value, 277.5 / 491, 1e-15, 'gpt-3.5 judge only');
    assert.match(await meta.caption(WIN).textContent(), /Corrected win rate of output 1/);
    // The control: 50 labelled pairs, the rest corrected — the table changes at once, and its
    // CSV is the one `concord meta --labelled 50` prints after the paper's tables.
    await meta.labelledPairs.fill('50');
    await meta.waitCellValue(WIN, 'gpt-3.5-turbo/ppi', 0.5, { not: true });
    const fifty = await meta.cells(WIN);
    assert.ok(fifty['gpt-3.5-turbo/all_humans'].value === 0.5, 'every label, beside');
    assert.ok(fifty['gpt-3.5-turbo/ppi'].low < fifty['gpt-3.5-turbo/ppi'].value, 'PPI has its interval');
    const rows = await meta.rowStarts(WIN, 3);
    assert.deepEqual(rows.map((r) => r.slice(1)), Array(5).fill(['50', '441']), 'labelled, unlabelled');
    const { name: downloaded, text: appCsv } = await meta.exportTable(WIN, 'CSV');
    assert.equal(downloaded, `${WIN}.csv`);
    const cliCsv = concordMetaText([...list('evaluator_results/pairwise'), '--labelled', '50', '--shuffles', '0', '--format', 'csv']);
    assert.ok(cliCsv.endsWith(`\r\n${appCsv}`), `the app's CSV is the CLI's last table:\n${appCsv}\n---\n${cliCsv}`);
    assert.match(appCsv, /^Evaluator,Labelled,Unlabelled,Judge only,/);
    if (process.env.CONCORD_SCREENSHOTS) {
      await meta.table(WIN).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/meta-win-rate.png`, fullPage: false });
    }
    // Text that is not a count is said, and the table keeps its last count.
    await meta.labelledPairs.fill('some');
    await meta.alert('Labelled pairs must be `all` or a whole number').waitFor();
    assert.equal((await meta.cells(WIN))['gpt-3.5-turbo/ppi'].value, fifty['gpt-3.5-turbo/ppi'].value);
    await meta.labelledPairs.fill('all');
    await meta.waitCellValue(WIN, 'gpt-3.5-turbo/ppi', 0.5);

    // Tables 5 and 6: every cell of the CLI.
    assert.equal(expected.meta_scores.length, 42);
    for (const s of expected.meta_scores) {
      const table = s.protocol === 'JDEval-i' ? 'table5' : 'table6';
      close(await meta.value(table, `${s.meta_evaluator}/${s.evaluator}`), s.mean, 1e-12, `${table} ${s.meta_evaluator}/${s.evaluator}`);
    }

    // Elo with the paper's rules over 200 shuffles: equal to the CLI (libm's pow may differ in
    // the last bits between wasm and native). Its long tasks are printed, not asserted
    // (`cargo xtask bench-ui` measures them).
    await meta.recompute({ k: 4, init: 1000, scale: 400, shuffles: 200, seed: 0, resamples: 200 });
    const elo = await longest();
    console.log(`# Elo (200 shuffles) + Bradley–Terry (200 resamples) for ${expected.elo.length} meta-evaluators: ${await meta.eloStatus.textContent()} long tasks: ${elo.count}, longest ${elo.max.toFixed(0)} ms`);
    for (const e of expected.elo) {
      for (const [name, rating] of Object.entries(e.ratings)) {
        close(await meta.value('elo', `${e.meta_evaluator}/${name}`), rating, 1e-6, `Elo ${e.meta_evaluator}/${name}`);
      }
    }

    // The heatmap: 6 × 6 cells with values, a legend; the Elo chart has a dot per evaluator.
    const cells = await meta.heatmapCellCount();
    assert.equal(cells, 36);
    assert.match(await meta.heatmap.textContent(), /0\.\d\d/);
    // Elo as dots with whiskers (a bar from an arbitrary baseline would exaggerate the gaps).
    assert.equal(await meta.eloDots(), 6);
    assert.equal(await meta.eloBars(), 0, 'no bars');

    // Exports: Table 1 as CSV, the heatmap as SVG.
    const csv = await meta.export('Export Table 1: evaluators against humans as CSV');
    assert.equal(csv.name, 'table1.csv');
    // Table 1 in the paper's layout (one column per evaluator, the accuracies' 95 % Wilson
    // bounds in companion columns), RFC 4180 records.
    const lines = csv.text.trim().split('\r\n');
    const withBounds = (e) => `${e},${e} low,${e} high`;
    assert.equal(lines[0], ['Evaluator', withBounds('gpt-4-1106-preview'), withBounds('gpt-3.5-turbo'),
      'Mixtral-8x7B-Instruct-v0.1', withBounds('qwen1.5-7B-Chat'), withBounds('qwen1.5-14B-Chat'),
      withBounds('qwen1.5-72B-Chat')].join(','));
    assert.match(lines[1], /^Accuracy,0\.733197556008\d*,0\.69237610732\d*,0\.77039837512\d*,/);
    assert.match(lines[2], /^Pearson corr\.,0\.6183/);
    const svg = await meta.export('Export heatmap SVG');
    assert.match(svg.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);

    // Inspectors: a JDEval debate and a BSMEval record with its branches.
    assert.match(await meta.debate.textContent(), /Round 1/);
    assert.match(await meta.debateVerdict.textContent(), /Better assessor/);
    assert.ok((await meta.bsmBranches()) >= 1);

    if (process.env.CONCORD_SCREENSHOTS) {
      await meta.heatmapPanel.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/meta.png`, fullPage: false });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// An independent computation (STATS_SPEC §3, §12.2, §12.4) of what the screen shows beyond
// `concord meta`'s JSON, read straight from the released JDEval files with node's fs.

const JDEVAL = 'meta-evaluator_results/pairwise/JDEval';

const squash = (s) => String(s ?? '').toLowerCase().replace(/[\s()"'.*]/g, '');

const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));

/** A JDEval verdict: 'a' (Assistant 1), 'b' (Assistant 2), anything else a draw (the paper's
 * `elo_rating_system_new.py`; PROVENANCE.md, STATS_SPEC §12.2). */
function outcome(winner) {
  const w = squash(winner);
  return w === 'assistant1' ? 'a' : w === 'assistant2' ? 'b' : 'tie';
}

/** Per couple of evaluators (sorted by name, as the heatmap): wins of row over column, ties,
 * and matches. */
function tally(records) {
  const names = [...new Set(records.flatMap((r) => [r.evaluator_1, r.evaluator_2]))].sort();
  const zeros = () => names.map(() => names.map(() => 0));
  const [wins, ties, games] = [zeros(), zeros(), zeros()];
  for (const r of records) {
    const [i, j] = [names.indexOf(r.evaluator_1), names.indexOf(r.evaluator_2)];
    games[i][j]++;
    games[j][i]++;
    const o = outcome(r.winner);
    if (o === 'a') wins[i][j]++;
    else if (o === 'b') wins[j][i]++;
    else { ties[i][j]++; ties[j][i]++; }
  }
  return { names, wins, ties, games };
}

/** Row-over-column win rates under the three conventions (null on the diagonal / unplayed). */
function winRates({ names, wins, ties, games }) {
  const matrix = (f) => names.map((_, i) => names.map((_, j) => (i === j || games[i][j] === 0 ? null : f(i, j))));
  return {
    zero: matrix((i, j) => wins[i][j] / games[i][j]),
    half: matrix((i, j) => (wins[i][j] + 0.5 * ties[i][j]) / games[i][j]),
    dropped: matrix((i, j) => {
      const decided = wins[i][j] + wins[j][i];
      return decided === 0 ? null : wins[i][j] / decided;
    }),
  };
}

/** Bradley–Terry MLE, a tie being half a win, by Hunter's (2004) MM algorithm (the app uses
 * Newton's method), on the Elo scale: R = 1000 + 400·θ/ln 10 with Σθ = 0. */
function bradleyTerry({ names, wins, ties, games }) {
  const m = names.length;
  const total = names.map((_, i) => names.reduce((acc, _n, j) => acc + wins[i][j] + 0.5 * ties[i][j], 0));
  let gamma = names.map(() => 1);
  for (let it = 0; it < 1_000_000; it++) {
    const logs = gamma.map((g, i) => {
      let denom = 0;
      for (let j = 0; j < m; j++) if (j !== i && games[i][j]) denom += games[i][j] / (g + gamma[j]);
      return Math.log(total[i] / denom);
    });
    const mean = logs.reduce((a, b) => a + b, 0) / m;
    const next = logs.map((l) => Math.exp(l - mean));
    const change = Math.max(...next.map((g, i) => Math.abs(Math.log(g / gamma[i]))));
    gamma = next;
    if (change < 1e-15) break;
  }
  const theta = gamma.map(Math.log);
  const mean = theta.reduce((a, b) => a + b, 0) / m;
  return { names, theta: theta.map((t) => t - mean), ratings: theta.map((t) => 1000 + (400 * (t - mean)) / Math.LN10) };
}

function invert(a) {
  const n = a.length;
  const aug = a.map((row, i) => [...row, ...row.map((_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(aug[r][c]) > Math.abs(aug[p][c])) p = r;
    [aug[c], aug[p]] = [aug[p], aug[c]];
    const d = aug[c][c];
    for (let k = 0; k < 2 * n; k++) aug[c][k] /= d;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = aug[r][c];
      for (let k = 0; k < 2 * n; k++) aug[r][k] -= f * aug[c][k];
    }
  }
  return aug.map((row) => row.slice(n));
}

/** Robust (sandwich) standard errors of the Bradley–Terry ratings, in rating points: what a
 * bootstrap over the matches estimates (ties make the score vary less than p(1 − p)). */
function sandwichSe(records, { names, theta }) {
  const m = names.length;
  const zeros = () => names.map(() => names.map(() => 0));
  const [H, J] = [zeros(), zeros()];
  const add = (M, a, b, w) => { M[a][a] += w; M[b][b] += w; M[a][b] -= w; M[b][a] -= w; };
  for (const r of records) {
    const [a, b] = [names.indexOf(r.evaluator_1), names.indexOf(r.evaluator_2)];
    const o = outcome(r.winner);
    const s = o === 'a' ? 1 : o === 'b' ? 0 : 0.5;
    const p = 1 / (1 + Math.exp(theta[b] - theta[a]));
    add(H, a, b, p * (1 - p));
    add(J, a, b, (s - p) ** 2);
  }
  // The pseudo-inverse of H (null space 1): (H + 11ᵀ/m)⁻¹ − 11ᵀ/m.
  const P = invert(H.map((row) => row.map((x) => x + 1 / m))).map((row) => row.map((x) => x - 1 / m));
  const mul = (X, Y) => X.map((row) => Y[0].map((_, j) => row.reduce((acc, x, k) => acc + x * Y[k][j], 0)));
  const cov = mul(mul(P, J), P);
  return cov.map((row, i) => (400 * Math.sqrt(row[i])) / Math.LN10);
}

/** Kendall τ-b by counting pairs, with scipy's exact two-sided p-value (no ties, n ≤ 33). */
function kendall(x, y) {
  const n = x.length;
  let [C, D, tx, ty] = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
      if (x[i] === x[j]) tx++;
      if (y[i] === y[j]) ty++;
      if (s > 0) C++;
      else if (s < 0) D++;
    }
  }
  const n0 = (n * (n - 1)) / 2;
  const tau = (C - D) / Math.sqrt((n0 - tx) * (n0 - ty));
  if (tx || ty || n > 33) return { tau, p: undefined };
  // Mahonian numbers: permutations of n elements by their number of inversions.
  let counts = [1];
  for (let k = 2; k <= n; k++) {
    const next = Array(counts.length + k - 1).fill(0);
    counts.forEach((v, i) => { for (let j = 0; j < k; j++) next[i + j] += v; });
    counts = next;
  }
  const all = counts.reduce((a, b) => a + b, 0);
  const c = Math.min(C, n0 - C);
  const p = n === 2 || 4 * c === n * (n - 1) ? 1 : Math.min(1, (2 * counts.slice(0, c + 1).reduce((a, b) => a + b, 0)) / all);
  return { tau, p };
}

/** One short name per model family (the release spells each several ways). */
function canonical(name) {
  const s = name.toLowerCase();
  if (s === 'g4' || /gpt-?4/.test(s)) return 'gpt4';
  if (/gpt-?3\.?5/.test(s)) return 'gpt35';
  if (/mistral|mixtral/.test(s)) return 'mistral';
  const q = /qwen(?:[\d.]+-)?(\d+)b/.exec(s);
  return q ? `qwen${q[1]}b` : s;
}

/** The meta-evaluator's own answer choice (`better_response`) against the gold `label`
 * (1 = answer 1, 2 = answer 2); a choice that names neither (`equally good`) is wrong. */
function postAccuracy(records) {
  let [n, correct, unreadable] = [0, 0, 0];
  for (const r of records) {
    if (r.label !== 1 && r.label !== 2) continue;
    n++;
    const b = squash(r.better_response);
    const choice = /^(answer)?(a|1)$/.test(b) ? 1 : /^(answer)?(b|2)$/.test(b) ? 2 : null;
    if (choice === r.label) correct++;
    if (choice === null && !b.includes('equal')) unreadable++;
  }
  return { n, correct, unreadable };
}

test('the independent oracle of the meta-evaluation test reproduces STATS_SPEC\'s worked examples', () => {
  const match = (evaluator_1, evaluator_2, winner) => ({ evaluator_1, evaluator_2, winner });
  // E15: A>B, A>C, B=C, C>A, B>C, A>B.
  const e15 = [match('A', 'B', 'Assistant1'), match('A', 'C', 'Assistant1'), match('B', 'C', 'equally good'),
    match('C', 'A', 'Assistant1'), match('B', 'C', 'Assistant1'), match('A', 'B', 'Assistant1')];
  const t15 = tally(e15);
  const bt15 = bradleyTerry(t15).ratings;
  [1127.2323345919099, 936.383832704045, 936.3838327040451].forEach((want, i) => close(bt15[i], want, 1e-6, `E15 BT ${i}`));
  assert.deepEqual(winRates(t15).zero, [[null, 1, 0.5], [0, null, 0.5], [0.5, 0, null]]);
  // E15c: an unreadable verdict is a draw.
  const e15c = [match('A', 'B', 'Assistant1'), match('B', 'C', '??'), match('C', 'A', 'Assistant1'),
    match('A', 'C', 'Assistant1'), match('B', 'A', 'equally good'), match('B', 'C', 'Assistant 1')];
  const bt15c = bradleyTerry(tally(e15c)).ratings;
  [1059.5863156724013, 1000.0, 940.4136843275986].forEach((want, i) => close(bt15c[i], want, 1e-6, `E15c BT ${i}`));
  // E1 (C 8, D 2) and E8 (x = 1..10, y = 2,1,4,3,…,10,9).
  const e1 = kendall([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]);
  close(e1.tau, 0.6, 1e-12, 'E1 τ-b');
  close(e1.p, 0.23333333333333334, 1e-12, 'E1 p');
  const e8 = kendall([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]);
  close(e8.tau, 0.7777777777777777, 1e-12, 'E8 τ-b');
  close(e8.p, 0.0009463183421516755, 1e-15, 'E8 p');
  assert.deepEqual(['g4', 'gpt-4-1106-preview', 'gpt-3.5-turbo-0125', 'Mixtral-8x7B-Instruct-v0.1', 'qwen1.5-14B-Chat', 'qwen14b', 'qwen7b'].map(canonical),
    ['gpt4', 'gpt4', 'gpt35', 'mistral', 'qwen14b', 'qwen14b', 'qwen7b']);
});

test('meta-evaluation screen: win rates per tie convention, Bradley–Terry, ranking agreement and post accuracy equal an independent computation', { skip: missingShared(DATA), timeout: 600_000 }, async () => {
  const files = [
    ...list('evaluator_results/pairwise'),
    ...list('evaluator_results/pointwise'),
    ...list(JDEVAL),
    ...list('meta-evaluator_results/pointwise/JDEval-i'),
    ...list('meta-evaluator_results/pointwise/BSMEval'),
  ];
  const cli = concordMeta(files);
  // `--seeds` is 10 by default: every Elo row carries the spread over seeds of each evaluator.
  assert.ok(cli.elo.length > 0);
  for (const e of cli.elo) {
    assert.deepEqual(Object.keys(e.seed_spread).sort(), Object.keys(e.ratings).sort(), `${e.meta_evaluator}: a spread over seeds per evaluator`);
    for (const sd of Object.values(e.seed_spread)) assert.ok(Number.isFinite(sd) && sd > 0, `${e.meta_evaluator}: seed SD ${sd}`);
  }
  // What the screen should show, per meta-evaluator (the JDEval file name's first part).
  const jdeval = list(JDEVAL).map((path) => {
    const records = readJsonl(path);
    const counts = tally(records);
    const bt = bradleyTerry(counts);
    return {
      meta: path.split('/').pop().split('_')[0],
      records, counts, rates: winRates(counts), bt, se: sandwichSe(records, bt), post: postAccuracy(records),
    };
  });
  assert.deepEqual(jdeval.map((j) => j.meta), ['g4', 'qwen14b', 'qwen72b', 'qwen7b']);
  // Sanity of the oracle on the release: every file has draws, and the documented post accuracy.
  for (const j of jdeval) assert.ok(j.counts.ties.flat().some((t) => t > 0), `${j.meta} has draws`);
  assert.deepEqual(jdeval.find((j) => j.meta === 'qwen7b').post, { n: 300, correct: 245, unreadable: 0 });
  assert.deepEqual(jdeval.find((j) => j.meta === 'g4').post, { n: 300, correct: 268, unreadable: 0 });

  await withApp({ url: null }, async ({ meta }) => {
    await meta.open(CONCORD_URL);
    await meta.loadFiles(files);
    // Loading ends with Elo and Bradley–Terry under the default controls (200 shuffles and 200
    // bootstrap resamples, seed 0), those of `concord meta`.
    await meta.waitElo(30_000);

    // 1. The win-rate heatmap. The paper's convention is the default; every convention offered
    // is checked on every cell of every meta-evaluator (values shown with 2 decimals), and each
    // must differ from the other conventions somewhere, so a mix-up cannot pass.
    const conventions = await meta.tieConventions();
    assert.deepEqual(conventions.map((c) => c.id), ['zero', 'half', 'dropped'], 'the conventions offered');
    assert.deepEqual(conventions.filter((c) => c.selected).map((c) => c.id), ['zero'], 'the default convention');
    assert.match(conventions[0].label, /paper/);
    // The screen names every model as its evaluator results file does (pairwise first).
    const spelled = new Map();
    for (const f of [...list('evaluator_results/pairwise'), ...list('evaluator_results/pointwise')]) {
      const n = f.split('/').pop().replace(/^merged_(eval_results|scores)_/, '').replace(/_(pairwise|pointwise)\.jsonl$/, '');
      if (!spelled.has(canonical(n))) spelled.set(canonical(n), n);
    }
    const spell = (n) => spelled.get(canonical(n)) ?? n;
    const first = await meta.heatmapCells();
    assert.equal(first.title, `Win rate of row over column (${spell('g4')}; ${conventions[0].label})`);
    const shownMeta = [];
    for (const j of jdeval) {
      await meta.selectMeta(j.meta);
      shownMeta.push(j.meta);
      const { names, games } = j.counts;
      // The match distribution: matches per couple, exactly.
      const distribution = await meta.heatmapCells(meta.matchDistribution);
      names.forEach((r, i) => names.forEach((c, k) => {
        assert.equal(distribution.cells[`${spell(r)} vs ${spell(c)}`], i === k ? null : games[i][k], `${j.meta}: matches ${r} vs ${c}`);
      }));
      // The default (zero) first when the page opened, then each other one, then back.
      const order = j === jdeval[0] ? ['zero', 'half', 'dropped'] : ['half', 'dropped', 'zero'];
      for (const id of order) {
        if (j !== jdeval[0] || id !== 'zero') await meta.setTieConvention(id, spell(j.meta));
        const label = conventions.find((c) => c.id === id).label;
        const { title, cells } = await meta.heatmapCells();
        assert.equal(title, `Win rate of row over column (${spell(j.meta)}; ${label})`);
        assert.equal(Object.keys(cells).length, names.length ** 2, `${j.meta} ${id}: cells`);
        const distinct = Object.fromEntries(conventions.map((c) => [c.id, 0]));
        names.forEach((r, i) => names.forEach((c, k) => {
          const key = `${spell(r)} vs ${spell(c)}`;
          const shown = cells[key];
          const want = j.rates[id][i][k];
          if (want === null) {
            assert.equal(shown, null, `${j.meta} ${id} ${key}: a dash`);
            return;
          }
          assert.ok(shown !== null && Math.abs(shown - want) <= 0.005 + 1e-9,
            `${j.meta}, ties ${id}: ${key} shows ${shown}, want ${want.toFixed(6)} (wins ${j.counts.wins[i][k]}, losses ${j.counts.wins[k][i]}, ties ${j.counts.ties[i][k]})`);
          for (const other of conventions) {
            const o = j.rates[other.id][i][k];
            if (o === null || Math.abs(shown - o) > 0.0051) distinct[other.id]++;
          }
        }));
        for (const other of conventions.filter((c) => c.id !== id)) {
          assert.ok(distinct[other.id] > 0, `${j.meta}: the ${id} heatmap cannot be told from ${other.id}`);
        }
      }
    }
    assert.deepEqual(shownMeta, ['g4', 'qwen14b', 'qwen72b', 'qwen7b']);

    // 2. Bradley–Terry with 95 % bootstrap intervals, per meta-evaluator: the estimate equals
    // the independent MLE within 1e-6 rating points; each interval brackets its estimate and is
    // about as wide as the robust (sandwich) normal interval, 2 · 1.96 · SE.
    for (const j of jdeval) {
      await meta.selectMeta(j.meta);
      const table = `bradley-terry-${j.meta}`;
      assert.match(await meta.caption(table).textContent(), /95 % bootstrap intervals, 200 of 200 resamples usable/);
      const cells = await meta.cells(table);
      assert.equal(Object.keys(cells).length, j.bt.names.length, `${table}: cells`);
      j.bt.names.forEach((name, i) => {
        // One cell per evaluator: the rating, its interval beside it.
        const cell = cells[`${j.meta}/${name}/rating`];
        const [rating, lower, upper] = [cell?.value ?? null, cell?.low ?? null, cell?.high ?? null];
        close(rating, j.bt.ratings[i], 1e-6, `BT ${j.meta}/${name}`);
        assert.equal(cell.text, rating.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 }), `BT ${j.meta}/${name} text`);
        assert.ok(lower !== null && upper !== null && lower < rating && rating < upper,
          `BT ${j.meta}/${name}: interval [${lower}, ${upper}] does not bracket ${rating}`);
        const ratio = (upper - lower) / (2 * 1.96 * j.se[i]);
        assert.ok(ratio > 0.7 && ratio < 1.4,
          `BT ${j.meta}/${name}: interval width ${(upper - lower).toFixed(1)} vs 2·1.96·SE = ${(2 * 1.96 * j.se[i]).toFixed(1)}`);
      });
    }

    // 3a. Ranking agreement: Kendall τ-b (and its exact p) between each meta-evaluator's ranking
    // (Elo for JDEval, the mean meta score for JDEval-i / BSMEval, from `concord meta`) and the
    // human baseline (Table 1 accuracy, resp. Pearson), evaluators matched by family.
    const baseline = (kind, pick) => Object.fromEntries(
      cli.evaluators.filter((r) => r.kind === kind && r[pick] != null).map((r) => [canonical(r.name), r[pick]]),
    );
    const accuracy = baseline('pairwise', 'accuracy');
    const pearson = baseline('pointwise', 'pearson');
    const rankings = cli.elo.map((e) => ({ meta: e.meta_evaluator, ranking: 'Elo (JDEval)', scores: e.ratings, base: accuracy }));
    for (const protocol of ['JDEval-i', 'BSMEval']) {
      const metas = [...new Set(cli.meta_scores.filter((s) => s.protocol === protocol).map((s) => s.meta_evaluator))];
      for (const m of metas) {
        const scores = Object.fromEntries(cli.meta_scores.filter((s) => s.protocol === protocol && s.meta_evaluator === m && s.mean != null)
          .map((s) => [s.evaluator, s.mean]));
        rankings.push({ meta: m, ranking: `${protocol} mean`, scores, base: pearson });
      }
    }
    assert.equal(rankings.length, 11);
    const agreement = await meta.cells('ranking-agreement');
    assert.equal(Object.keys(agreement).filter((k) => k.endsWith('/tau_b')).length, rankings.length, 'agreement rows');
    const taus = {};
    for (const r of rankings) {
      const named = Object.entries(r.scores).map(([k, v]) => [canonical(k), v]).filter(([k]) => k in r.base);
      const { tau, p } = kendall(named.map(([k]) => r.base[k]), named.map(([, v]) => v));
      assert.ok(p !== undefined, `${r.meta} ${r.ranking}: no ties expected`);
      const key = `${r.meta}/${r.ranking}`;
      taus[key] = tau;
      assert.equal(agreement[`${key}/n`]?.text, String(named.length), `${key} n`);
      close(agreement[`${key}/tau_b`]?.value ?? null, tau, 1e-12, `${key} τ-b`);
      close(agreement[`${key}/p`]?.value ?? null, p, 1e-9, `${key} p`);
    }
    // The paper's findings on the released data (docs/reproduction-meta.md).
    close(taus['g4/Elo (JDEval)'], 1, 1e-12, 'GPT-4 Elo ranks the evaluators as their accuracy');
    close(taus['gpt-4-1106-preview/JDEval-i mean'], -0.2, 1e-12, 'GPT-4 JDEval-i vs Pearson');

    // 3b. Post accuracy: the meta-evaluator's own answer choice against the gold label.
    const post = await meta.cells('post-accuracy');
    for (const j of jdeval) {
      assert.equal(post[`${j.meta}/n`]?.text, String(j.post.n), `${j.meta} post n`);
      assert.equal(post[`${j.meta}/correct`]?.text, String(j.post.correct), `${j.meta} post correct`);
      assert.equal(post[`${j.meta}/unreadable`]?.text, String(j.post.unreadable), `${j.meta} post unreadable`);
      close(post[`${j.meta}/accuracy`]?.value ?? null, j.post.correct / j.post.n, 1e-12, `${j.meta} post accuracy`);
    }
  });
});
