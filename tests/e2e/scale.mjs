// The scale run of issue 10, outside CI: a synthetic ITEMS-item × 4-attribute dataset judged by
// one score-only method with N = 20 samples (n = 20 per call: ITEMS × 4 calls) against the mock
// LLM at high concurrency, then the Results page. Prints wall time, calls/s, the peak memory of
// Chromium's whole process tree and of each kind of process (PSS from /proc, sampled every
// second), the JS heap, and the longest main-thread task (PerformanceObserver 'longtask')
// during the run and on the Results page.
//
// Measured as a user's browser would be: Chromium is started here with a debugging port;
// Playwright connects over CDP to set the run up (load the dataset, add the method, fill the
// connection) and then disconnects. The run and the Results page are driven over a bare CDP
// connection that never enables the Network domain: with Playwright attached, DevTools'
// network agent keeps every request and response of the page (up to ~200 MB for a 40,000-call
// run), which a user's browser does not.
//
//   cargo xtask build && cargo xtask static --port P &   cargo xtask mock-llm --port Q &
//   CONCORD_URL=http://127.0.0.1:P/ MOCK_URL=http://127.0.0.1:Q node --experimental-websocket tests/e2e/scale.mjs [ITEMS] [CONCURRENCY]
//
// ITEMS defaults to 10,000 (40,000 calls, 800,000 samples), CONCURRENCY to 32.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CONCORD_URL, MOCK_URL, FLAGS } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage } from './pages/workbench_pages.mjs';

const ITEMS = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const SAMPLES = 20;
const ATTRIBUTES = ['coherence', 'consistency', 'fluency', 'relevance'];
const PORT = 9300 + Math.floor(Math.random() * 500);
if (!MOCK_URL) throw new Error('set MOCK_URL to a running `cargo xtask mock-llm`');
if (typeof WebSocket === 'undefined') throw new Error('run with node --experimental-websocket (Node 20) or Node 22+');
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

/** PSS (MB) per kind of Chromium process (browser, renderer, gpu-process, utility:…). */
function byKind(root) {
  const out = {};
  for (const pid of tree(root)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? 'browser';
      const sub = /--utility-sub-type=([\w.]+)/.exec(cmd)?.[1]?.split('.').pop();
      const kind = sub ? `${type}:${sub}` : type;
      const pss = Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) / 1024;
      out[kind] = (out[kind] ?? 0) + pss;
    } catch { /* gone */ }
  }
  return out;
}

/** A bare CDP connection to the page target (no domain enabled but what is asked for). */
async function bareCdp(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.type === 'page');
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ok, no) => { ws.addEventListener('open', ok); ws.addEventListener('error', no); });
  let id = 0;
  const waiting = new Map();
  ws.addEventListener('message', (e) => {
    const m = JSON.parse(e.data);
    if (m.id && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
  });
  const send = (method, params = {}) => new Promise((ok, no) => {
    const i = ++id;
    waiting.set(i, (m) => (m.error ? no(new Error(`${method}: ${m.error.message}`)) : ok(m.result)));
    ws.send(JSON.stringify({ id: i, method, params }));
  });
  /** Evaluates `expr` in the page (awaiting a promise) and returns its value. */
  const evaluate = async (expr) => {
    const r = await send('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`${expr}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  };
  /** Polls `expr` until it is truthy; returns its value. */
  const until = async (expr, timeoutMs) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await evaluate(expr);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
      await new Promise((ok) => setTimeout(ok, 250));
    }
  };
  return { send, evaluate, until, close: () => ws.close() };
}

const text = (testid) => `document.querySelector('[data-testid="${testid}"]')?.textContent ?? ''`;
const click = (selector, label) => `(() => { const b = [...document.querySelectorAll(${JSON.stringify(selector)})].find((e) => e.textContent.trim() === ${JSON.stringify(label)}); if (!b) throw new Error('no ' + ${JSON.stringify(label)}); b.click(); return true; })()`;

const profile = mkdtempSync(join(tmpdir(), 'concord-scale-'));
const chrome = spawn(process.env.CONCORD_CHROMIUM ?? '/usr/bin/chromium',
  [...FLAGS, `--user-data-dir=${profile}`, `--remote-debugging-port=${PORT}`, '--window-size=1280,900', 'about:blank'],
  { stdio: 'ignore' });
const peak = { pss: 0, kinds: {}, heap: 0 };
let sampler;
let cdp;
try {
  for (let i = 0; ; i++) {
    try { await fetch(`http://127.0.0.1:${PORT}/json/version`); break; } catch { /* starting */ }
    if (i > 100) throw new Error('Chromium did not open its debugging port');
    await new Promise((ok) => setTimeout(ok, 200));
  }
  sampler = setInterval(() => {
    const m = memory(chrome.pid);
    if (m.pss > peak.pss) { peak.pss = m.pss; peak.kinds = byKind(chrome.pid); }
  }, 1000);

  // The dataset goes in through the file input over the bare connection: Playwright would copy
  // the file into the page through the page's own thread (a second-long task that is the test's,
  // not the app's).
  let pw = await chromium.connectOverCDP(`http://127.0.0.1:${PORT}`);
  let page = pw.contexts()[0].pages()[0] ?? await pw.contexts()[0].newPage();
  await new DataPage(page).open(CONCORD_URL);
  await pw.close();
  const csv = dataset();
  const csvPath = join(profile, 'scale.csv');
  writeFileSync(csvPath, csv);
  console.log(`dataset: ${ITEMS} items × ${ATTRIBUTES.length} attributes, ${(csv.length / 1e6).toFixed(1)} MB CSV`);
  cdp = await bareCdp(PORT);
  await cdp.evaluate(`window.__longest = 0; new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
  }).observe({ type: 'longtask' }); true`);
  let t = Date.now();
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#dataset-file' });
  await cdp.send('DOM.setFileInputFiles', { nodeId, files: [csvPath] });
  await cdp.until(`(${text('dataset-name')}).includes('scale.csv')`, 300_000);
  console.log(`loaded in ${((Date.now() - t) / 1000).toFixed(1)} s; longest task while loading ${(await cdp.evaluate('window.__longest')).toFixed(0)} ms`);
  cdp.close();

  // Set-up with Playwright (page objects), then disconnect it.
  pw = await chromium.connectOverCDP(`http://127.0.0.1:${PORT}`);
  page = pw.contexts()[0].pages()[0];
  await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify({ reply: { mode: 'hash_rating' }, supports_n: true }) });
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
  const judge = new JudgePage(page);
  await judge.open();
  await judge.addMethods({ modes: ['score-only'], n: SAMPLES });
  const run = new RunPage(page);
  await run.open();
  await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', concurrency: CONCURRENCY });
  console.log(`estimate: ${await run.estimate.textContent()}`);
  await pw.close(); // disconnects; Chromium and the page stay

  // The run and the Results page, over a bare CDP connection.
  cdp = await bareCdp(PORT);
  const heap = async () => (await cdp.send('Runtime.getHeapUsage')).usedSize / 1048576;
  await cdp.evaluate('window.__longest = 0');
  t = Date.now();
  await cdp.evaluate(click('button.primary', 'Run'));
  let next = Date.now() + 15_000;
  for (;;) {
    if (await cdp.evaluate(`!!document.querySelector('[data-testid="run-finished"]')`)) break;
    peak.heap = Math.max(peak.heap, await heap());
    if (Date.now() > next) {
      next += 15_000;
      const progress = (await cdp.evaluate(text('progress'))).split('·')[0].trim();
      console.log(`  ${((Date.now() - t) / 1000).toFixed(0)} s: ${progress} · PSS ${memory(chrome.pid).pss.toFixed(0)} MB`);
    }
    if (Date.now() - t > 24 * 3600_000) throw new Error('the run did not finish');
    await new Promise((ok) => setTimeout(ok, 500));
  }
  const wall = (Date.now() - t) / 1000;
  const longestRun = await cdp.evaluate('window.__longest');
  const final = await cdp.evaluate(text('progress'));
  const finished = await cdp.evaluate(text('run-finished'));
  const summary = await (await fetch(`${MOCK_URL}/__mock/summary`)).json();
  const calls = ITEMS * ATTRIBUTES.length;
  console.log(finished);
  console.log(final);

  await cdp.evaluate('window.__longest = 0');
  t = Date.now();
  await cdp.evaluate(click('[role="tab"]', 'Results'));
  const rows = await cdp.until(`document.querySelectorAll('[data-testid="results-table"] tbody tr').length`, 300_000);
  const resultsSeconds = (Date.now() - t) / 1000;
  // Open a cell's drill-down too: the scatter has ITEMS points.
  await cdp.evaluate(`document.querySelector('[data-testid="results-table"] button.cell').click()`);
  await cdp.until(`!!document.querySelector('[data-testid="cell-panel"]')`, 120_000);
  await new Promise((ok) => setTimeout(ok, 1500));
  const longestResults = await cdp.evaluate('window.__longest');
  peak.heap = Math.max(peak.heap, await heap());
  clearInterval(sampler);

  const kinds = Object.entries(peak.kinds).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
  console.log('\n| figure | value |\n|---|---|');
  console.log(`| run | ${ITEMS} items × ${ATTRIBUTES.length} attributes × ${SAMPLES} samples = ${calls} calls (n = ${SAMPLES}), concurrency ${CONCURRENCY} |`);
  console.log(`| wall time | ${wall.toFixed(1)} s |`);
  console.log(`| calls/s | ${(calls / wall).toFixed(1)} (${(calls * SAMPLES / wall).toFixed(0)} samples/s) |`);
  console.log(`| mock | ${summary.answered_ok} answered, ${summary.failed} failed, ${summary.duplicate_successes.length} duplicate successes |`);
  console.log(`| peak Chromium memory (process tree, PSS) | ${peak.pss.toFixed(0)} MB (${kinds}) |`);
  console.log(`| peak JS heap (CDP Runtime.getHeapUsage) | ${peak.heap.toFixed(0)} MB |`);
  console.log(`| longest main-thread task during the run | ${longestRun.toFixed(0)} ms |`);
  console.log(`| Results page: table shown | ${resultsSeconds.toFixed(1)} s (${rows} row(s)); longest task ${longestResults.toFixed(0)} ms, the drill-down of a cell included |`);
} finally {
  clearInterval(sampler);
  cdp?.close();
  chrome.kill();
  await new Promise((ok) => setTimeout(ok, 500));
  rmSync(profile, { recursive: true, force: true });
}
