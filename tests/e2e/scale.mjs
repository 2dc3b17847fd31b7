// The scale run of issue 10, outside CI: a synthetic ITEMS-item × 4-attribute dataset judged by
// one score-only method with N = 20 samples (n = 20 per call: ITEMS × 4 calls) against the mock
// LLM at high concurrency, then the Results page. Prints wall time, calls/s, the peak memory of
// Chromium's whole process tree (RSS and PSS summed from /proc, sampled every second), the peak
// JS heap (CDP Performance.getMetrics), and the longest main-thread task (PerformanceObserver
// 'longtask') during the run and on the Results page.
//
//   cargo xtask build && cargo xtask static --port P &   cargo xtask mock-llm --port Q &
//   CONCORD_URL=http://127.0.0.1:P/ MOCK_URL=http://127.0.0.1:Q node tests/e2e/scale.mjs [ITEMS] [CONCURRENCY]
//
// ITEMS defaults to 10,000 (40,000 calls, 800,000 samples), CONCURRENCY to 32.
import { readdirSync, readFileSync } from 'node:fs';
import { launch, CONCORD_URL, MOCK_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';

const ITEMS = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const SAMPLES = 20;
const ATTRIBUTES = ['coherence', 'consistency', 'fluency', 'relevance'];
if (!MOCK_URL) throw new Error('set MOCK_URL to a running `cargo xtask mock-llm`');

/** Deterministic filler text of about `len` characters. */
function words(seed, len) {
  const vocab = ['the', 'council', 'voted', 'library', 'city', 'region', 'spring', 'roof', 'iron', 'public', 'cost', 'euros', 'open', 'years', 'work', 'depot', 'tram', 'building', 'shared', 'plan'];
  let x = seed * 2654435761 % 4294967296;
  const out = [];
  let n = 0;
  while (n < len) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const w = vocab[x % vocab.length];
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ');
}

/** SummEval-like: 10 systems per document, ~600-character articles, ~150-character summaries. */
function dataset() {
  const head = ['doc_id', 'system_id', 'source', 'output', ...ATTRIBUTES.flatMap((a) => [`${a}_r1`, `${a}_r2`])];
  const rows = [head.join(',')];
  for (let i = 0; i < ITEMS; i++) {
    const doc = Math.floor(i / 10);
    const scores = ATTRIBUTES.flatMap((_, a) => [1 + ((i * 7 + a) % 5), 1 + ((i * 3 + a * 5) % 5)]);
    rows.push([`d${doc}`, `m${i % 10}`, `"${words(doc, 600)}"`, `"${words(i + 1_000_003, 100 + (i % 100))}"`, ...scores].join(','));
  }
  return rows.join('\n');
}

/** The process tree under `root` (pids), from /proc/PID/stat. */
function tree(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch { /* gone */ }
  }
  const out = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop();
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** The Chromium browser process: the one whose command line names our profile directory. */
function browserPid(profile) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(`--user-data-dir=${profile}`) && !cmd.includes('--type=')) return Number(name);
    } catch { /* gone */ }
  }
  return undefined;
}

/** Sum of RSS and PSS (kB → MB) over the tree. */
function memory(root) {
  let rss = 0;
  let pss = 0;
  for (const pid of tree(root)) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch { /* gone */ }
  }
  return { rss: rss / 1024, pss: pss / 1024 };
}

const browser = await launch();
const peak = { rss: 0, pss: 0, heap: 0 };
let sampler;
try {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => console.log('pageerror', e.message));
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const root = browserPid(browser.profile);
  if (!root) throw new Error('cannot find the Chromium process');
  sampler = setInterval(async () => {
    const m = memory(root);
    peak.rss = Math.max(peak.rss, m.rss);
    peak.pss = Math.max(peak.pss, m.pss);
    try {
      const { metrics } = await cdp.send('Performance.getMetrics');
      const heap = metrics.find((x) => x.name === 'JSHeapUsedSize')?.value ?? 0;
      peak.heap = Math.max(peak.heap, heap / 1048576);
    } catch { /* page busy navigating */ }
  }, 1000);

  const data = new DataPage(page);
  await data.open(CONCORD_URL);
  const csv = dataset();
  console.log(`dataset: ${ITEMS} items × ${ATTRIBUTES.length} attributes, ${(csv.length / 1e6).toFixed(1)} MB CSV`);
  let t = Date.now();
  await data.fileInput.setInputFiles({ name: 'scale.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByTestId('dataset-name').filter({ hasText: 'scale.csv' }).waitFor({ timeout: 300_000 });
  console.log(`loaded in ${((Date.now() - t) / 1000).toFixed(1)} s; longest task so far ${(await page.evaluate(() => window.__longest)).toFixed(0)} ms`);

  await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify({ reply: { mode: 'hash_rating' }, supports_n: true }) });
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
  const judge = new JudgePage(page);
  await judge.open();
  await judge.addMethods({ modes: ['score-only'], n: SAMPLES });
  const run = new RunPage(page);
  await run.open();
  await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', concurrency: CONCURRENCY });
  console.log(`estimate: ${await run.estimate.textContent()}`);
  await page.evaluate(() => { window.__longest = 0; });
  t = Date.now();
  await run.run();
  const progress = setInterval(async () => {
    const text = await run.progress.textContent().catch(() => '');
    console.log(`  ${((Date.now() - t) / 1000).toFixed(0)} s: ${text.split('·')[0].trim()} · RSS ${memory(root).rss.toFixed(0)} MB`);
  }, 15_000);
  const finished = await run.waitFinished(24 * 3600_000);
  clearInterval(progress);
  const wall = (Date.now() - t) / 1000;
  const longestRun = await page.evaluate(() => window.__longest);
  const final = await run.progress.textContent();
  const summary = await (await fetch(`${MOCK_URL}/__mock/summary`)).json();
  const calls = ITEMS * ATTRIBUTES.length;
  console.log(finished);
  console.log(final);

  await page.evaluate(() => { window.__longest = 0; });
  t = Date.now();
  const results = new ResultsPage(page);
  await results.open();
  const cells = await results.cells();
  const resultsSeconds = (Date.now() - t) / 1000;
  // Open a cell's drill-down too: the scatter has ITEMS points.
  await page.locator('[data-testid="results-table"] button.cell').first().click();
  await page.getByTestId('cell-panel').waitFor({ timeout: 120_000 });
  const longestResults = await page.evaluate(() => window.__longest);
  await new Promise((ok) => setTimeout(ok, 1500));
  clearInterval(sampler);

  console.log('\n| figure | value |\n|---|---|');
  console.log(`| run | ${ITEMS} items × ${ATTRIBUTES.length} attributes × ${SAMPLES} samples = ${calls} calls (n = ${SAMPLES}), concurrency ${CONCURRENCY} |`);
  console.log(`| wall time | ${wall.toFixed(1)} s |`);
  console.log(`| calls/s | ${(calls / wall).toFixed(1)} (${(calls * SAMPLES / wall).toFixed(0)} samples/s) |`);
  console.log(`| mock | ${summary.answered_ok} answered, ${summary.failed} failed, ${summary.duplicate_successes.length} duplicate successes |`);
  console.log(`| peak Chromium memory (process tree) | RSS sum ${peak.rss.toFixed(0)} MB, PSS sum ${peak.pss.toFixed(0)} MB |`);
  console.log(`| peak JS heap (CDP JSHeapUsedSize) | ${peak.heap.toFixed(0)} MB |`);
  console.log(`| longest main-thread task during the run | ${longestRun.toFixed(0)} ms |`);
  console.log(`| Results page: table shown | ${resultsSeconds.toFixed(1)} s (${cells.length} row(s)); longest task ${longestResults.toFixed(0)} ms |`);
} finally {
  clearInterval(sampler);
  await browser.close();
}
