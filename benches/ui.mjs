// UI benchmark (issue 34): how long the app's heavy screens take in Chromium, and how long
// the page's main thread is blocked meanwhile — figures that used to be asserted by the
// Playwright tests (where a loaded machine made them a lottery) and are printed here instead.
// `cargo xtask bench-ui [--runs N]` serves the built site (`cargo xtask build` first) and runs
// this; by hand: `cargo xtask static --port 8097 & node benches/ui.mjs http://127.0.0.1:8097/`.
//
// Headless Chromium (playwright-core, tests/e2e/browser.mjs), a fresh profile per run, no
// throttling. Each run:
// - Results: SummEval's 1,600 items (../shared/data/PPairS/data/summeval.jsonl) with 16
//   synthesized judge runs (4 attributes × 4 methods × 20 samples, tests/e2e/summeval_runs.mjs)
//   imported; the time to the first table, the app's own "Responses read in" and "Computed in"
//   figures, then each switch of statistic, level and baseline from the change event to the
//   new table (both in the page's clock);
// - the study's bundle (~48 MB) written (from the click to the download) and opened again
//   (from the file chosen to the table back);
// - every screen's tab clicked in turn with the study open, twice (the first visit fetches
//   the screen's code unless the idle prefetch already did), from the click to its panel;
// - a 10,000-row CSV's preview scrolled to its end with the mouse wheel;
// - the Pairwise & meta-evaluation screen's Elo (200 shuffles + 200 Bradley–Terry resamples)
//   on seed 003's released files, when ../shared/data/meta-evaluation is there.
// For each step: the main thread's long tasks (PerformanceObserver `longtask`: tasks over
// 50 ms) — how many and the longest — and the longest gap of a heartbeat (a zero-delay timer
// queued again and again on the main thread): the longest the page could not answer.
// Medians over the runs; every run's value is listed too.
import { mkdtempSync, rmSync, statSync, existsSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../tests/e2e/browser.mjs';
import { DataPage } from '../tests/e2e/pages/data_page.mjs';
import { ResultsPage } from '../tests/e2e/pages/workbench_pages.mjs';
import { VirtualTable } from '../tests/e2e/pages/virtual_table.mjs';
import { MetaPage } from '../tests/e2e/pages/meta_page.mjs';
import { SUMMEVAL, summevalItems, synthesizeResults, recordJobsAndHeartbeat } from '../tests/e2e/summeval_runs.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? process.env.CONCORD_URL ?? 'http://127.0.0.1:8080/';
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const OUT = process.env.CONCORD_BENCH_OUT ?? join(ROOT, 'target/bench-ui');
const META = resolve(ROOT, '../shared/data/meta-evaluation');
const SCREENS = ['Data', 'Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class'];

/** Long tasks of the page from its start, kept with their start times. */
async function observeLongTasks(page) {
  await page.addInitScript(() => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, ms: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
}

/** Starts a step: now in the page's clock; the heartbeat's longest gap is reset. */
function begin(page) {
  return page.evaluate(() => {
    window.__heartbeatStart();
    window.__heartbeat.longest = 0;
    window.__heartbeat.last = performance.now();
    return performance.now();
  });
}

/** Ends a step begun at `t0`: its long tasks and the heartbeat's longest gap (the gap still
 * open counts too). `t1` (the page's clock) defaults to now. */
function end(page, t0, t1) {
  return page.evaluate(([t0, t1]) => {
    const now = performance.now();
    const until = t1 ?? now;
    const beat = window.__heartbeat;
    const gap = Math.max(beat.longest, now - beat.last);
    const tasks = window.__longtasks.filter((t) => t.start + t.ms > t0 && t.start < until).map((t) => t.ms);
    return { ms: until - t0, tasks: tasks.length, longest: Math.max(0, ...tasks), gap };
  }, [t0, t1 ?? null]);
}

const rows = new Map(); // section → step → { ms: [], tasks: [], longest: [], gap: [], note }
function record(section, step, m, note = '') {
  if (!rows.has(section)) rows.set(section, new Map());
  const steps = rows.get(section);
  if (!steps.has(step)) steps.set(step, { ms: [], tasks: [], longest: [], gap: [], extra: [], note });
  const r = steps.get(step);
  for (const k of ['ms', 'tasks', 'longest', 'gap']) r[k].push(m[k]);
  if (m.extra !== undefined) r.extra.push(m.extra);
  if (note) r.note = note;
}

/** Waits (polling every frame) until `predicate` — which returns the page's clock once what
 * it waits for holds, else null — returns a time; returns that time. */
async function until(page, predicate, arg, timeout = 180_000) {
  const handle = await page.waitForFunction(predicate, arg, { polling: 'raf', timeout });
  return handle.jsonValue();
}

const figureHtml = () => document.querySelector('[data-testid="results-table"]')?.closest('figure')?.innerHTML ?? '';

async function resultsAndBundle(browser, files, dir) {
  const page = await browser.context.newPage();
  await recordJobsAndHeartbeat(page);
  await observeLongTasks(page);
  const data = new DataPage(page);
  await data.open(url);
  await data.fileInput.setInputFiles(SUMMEVAL);
  await data.datasetName.filter({ hasText: 'summeval.jsonl' }).waitFor({ timeout: 120_000 });
  const results = new ResultsPage(page);
  await results.open();
  await page.getByLabel('Import judge outputs').waitFor();

  let t0 = await begin(page);
  await results.importOutputs(files.map((f) => f.path));
  let t1 = await until(page, () => (/Imported 16 judge runs/.test(document.querySelector('[data-testid="import-message"]')?.textContent ?? '')
    && document.querySelector('[data-testid="results-table"]') && !document.querySelector('[data-testid="results-reading"]') ? performance.now() : null));
  const computed = async () => {
    const text = await page.getByTestId('computed').innerText();
    const ms = (what) => {
      const m = text.match(new RegExp(`${what} (under 1|\\d+) ms`));
      return m ? (m[1] === 'under 1' ? 0.5 : Number(m[1])) : NaN;
    };
    return { computed: ms('Computed in'), read: ms('Responses read in') };
  };
  let c = await computed();
  record('results', 'import 16 runs (file chosen → table, responses read)', { ...(await end(page, t0, t1)), extra: c.read }, 'extra: the app\'s "Responses read in" (ms of work, in slices)');
  record('results', 'first table: the app\'s "Computed in"', { ms: c.computed, tasks: 0, longest: 0, gap: 0 });

  const switches = [
    ['switch to Spearman ρ', 'Statistic', 'spearman'],
    ['switch to Kendall τ-b', 'Statistic', 'kendall_b'],
    ['switch to document level', 'Level', 'document'],
    ['switch the baseline to score_only', 'Baseline', 'gpt3.5 score_only'],
    ['back to Pearson r', 'Statistic', 'pearson'],
    ['back to dataset level', 'Level', 'dataset'],
  ];
  for (const [label, select, value] of switches) {
    const before = await page.evaluate(figureHtml);
    await begin(page);
    // The change is made in the page, so the clock starts in the same task as the app's work.
    t0 = await page.evaluate(([name, v]) => {
      const el = document.querySelector(`select[aria-label="${name}"]`);
      const t = performance.now();
      el.value = v;
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return t;
    }, [select, value]);
    t1 = await until(page, (b) => ((document.querySelector('[data-testid="results-table"]')?.closest('figure')?.innerHTML ?? '') !== b ? performance.now() : null), before);
    c = await computed();
    record('results', label, { ...(await end(page, t0, t1)), extra: c.computed }, 'extra: the app\'s "Computed in"');
  }

  // The bundle: written (click → download), then opened (file chosen → table back).
  const shown = await results.cells();
  let started = Date.now();
  t0 = await begin(page);
  const download = await results.exportBundle();
  const bundlePath = join(dir, 'bundle.json');
  await download.saveAs(bundlePath);
  let m = await end(page, t0);
  const mb = statSync(bundlePath).size / 1e6;
  record('bundle', `write (${mb.toFixed(1)} MB, click → download)`, { ...m, ms: Date.now() - started });
  started = Date.now();
  t0 = await begin(page);
  await results.importBundle(bundlePath);
  await page.getByTestId('bundle-source').waitFor({ timeout: 180_000 });
  t1 = await until(page, () => (!document.querySelector('[data-testid="results-reading"]') && document.querySelector('[data-testid="results-table"]') ? performance.now() : null));
  m = await end(page, t0, t1);
  record('bundle', `open (${mb.toFixed(1)} MB, file chosen → table)`, { ...m, ms: Date.now() - started });
  const back = await results.cells();
  if (JSON.stringify(back) !== JSON.stringify(shown)) throw new Error('the bundle did not give the same table back');

  // Every screen in turn with the study open, twice.
  for (const visit of ['first', 'second']) {
    for (const name of SCREENS) {
      const id = await page.getByRole('tab', { name, exact: true }).getAttribute('id');
      await begin(page);
      t0 = await page.evaluate((tab) => { const t = performance.now(); document.getElementById(tab).click(); return t; }, id);
      t1 = await until(page, (tab) => {
        const panel = document.getElementById('screen-panel');
        return document.getElementById(tab)?.getAttribute('aria-selected') === 'true' && panel && panel.children.length > 0
          && !panel.querySelector('[data-testid="screen-loading"], [data-testid="workspace-restoring"]') ? performance.now() : null;
      }, id);
      record('screens', `${name} (${visit} visit)`, await end(page, t0, t1));
    }
  }
  await page.close();
}

async function preview(browser) {
  const page = await browser.context.newPage();
  await recordJobsAndHeartbeat(page);
  await observeLongTasks(page);
  const data = new DataPage(page);
  await data.open(url);
  const lines = ['doc,system,source,output,quality'];
  for (let i = 0; i < 10_000; i++) lines.push(`doc${String(i).padStart(5, '0')},s${i % 10},Source ${i},Output number ${i},${1 + (i % 5)}`);
  await data.loadFile('big.csv', lines.join('\n') + '\n');
  const table = new VirtualTable(page, 'preview');
  await table.scroll.waitFor();
  const t0 = await begin(page);
  const steps = await table.wheelToEnd(3000);
  const t1 = await until(page, () => ([...document.querySelectorAll('[data-testid="preview"] tbody tr:not(.spacer)')]
    .some((r) => r.getAttribute('aria-rowindex') === '10001') ? performance.now() : null));
  record('preview', '10,000-row preview scrolled to its end with the wheel', { ...(await end(page, t0, t1)), extra: steps }, 'extra: wheel steps');
  await page.close();
}

async function elo(browser) {
  const list = (d) => readdirSync(join(META, d)).filter((n) => n.endsWith('.jsonl') || n.endsWith('.json')).sort().map((n) => join(META, d, n));
  const files = [
    ...list('evaluator_results/pairwise'), ...list('evaluator_results/pointwise'),
    ...list('meta-evaluator_results/pairwise/JDEval'), ...list('meta-evaluator_results/pointwise/JDEval-i'),
    ...list('meta-evaluator_results/pointwise/BSMEval'),
  ];
  const page = await browser.context.newPage();
  await recordJobsAndHeartbeat(page);
  await observeLongTasks(page);
  const meta = new MetaPage(page);
  await meta.open(url);
  let t0 = await begin(page);
  await meta.loadFiles(files);
  await page.waitForFunction(() => /Computed in/.test(document.querySelector('[data-testid="elo-status"]')?.textContent ?? ''), null, { timeout: 180_000 });
  record('meta', `load seed 003's ${files.length} released files (to the first Elo)`, await end(page, t0));
  t0 = await begin(page);
  await meta.recompute({ shuffles: 200, seed: 0, resamples: 200 });
  record('meta', 'Elo: 200 shuffles + Bradley–Terry 200 resamples (click → computed)', await end(page, t0));
  await page.close();
}

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => (Number.isFinite(x) ? (Math.abs(x) >= 10 || x === 0 ? x.toFixed(0) : x.toFixed(1)) : '–');

const SECTIONS = {
  results: 'Results: 1,600 SummEval items × 4 attributes × 4 methods × 20 samples (512,000 responses)',
  bundle: 'The study\'s bundle, written and opened (in the Web Worker)',
  screens: 'Screen switches with the study open (click → panel shown)',
  preview: 'Data preview',
  meta: 'Pairwise & meta-evaluation on seed 003\'s released files',
};

function table() {
  const out = [];
  for (const [section, steps] of rows) {
    out.push(`\n**${SECTIONS[section] ?? section}**\n`);
    out.push('| step | time (ms) | each run (ms) | long tasks | longest task (ms) | longest heartbeat gap (ms) | extra |');
    out.push('|---|---:|---|---:|---:|---:|---|');
    for (const [step, r] of steps) {
      const extra = r.extra.length ? `${fmt(median(r.extra))}${r.note ? ` (${r.note.replace(/^extra: /, '')})` : ''}` : '';
      out.push(`| ${step} | ${fmt(median(r.ms))} | ${r.ms.map(fmt).join(', ')} | ${fmt(median(r.tasks))} | ${fmt(median(r.longest))} | ${fmt(median(r.gap))} | ${extra} |`);
    }
  }
  return out.join('\n');
}

if (!existsSync(SUMMEVAL)) {
  console.error(`bench-ui needs ${SUMMEVAL} (../shared beside the checkout)`);
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'concord-bench-ui-'));
try {
  const files = synthesizeResults(summevalItems(), dir);
  for (let run = 1; run <= RUNS; run++) {
    const browser = await launch();
    try {
      console.log(`run ${run} of ${RUNS}: Results, the bundle, screen switches`);
      await resultsAndBundle(browser, files, dir);
      console.log(`run ${run} of ${RUNS}: the 10,000-row preview`);
      await preview(browser);
      if (existsSync(META)) {
        console.log(`run ${run} of ${RUNS}: Elo on the released meta-evaluation files`);
        await elo(browser);
      }
    } finally {
      await browser.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const text = `${RUNS} run(s), medians; ${url}\n${table()}\n`;
console.log(text);
mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'table.md'), text);
console.log(`written to ${join(OUT, 'table.md')}`);
