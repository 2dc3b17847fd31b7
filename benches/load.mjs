// Load benchmark (issues 21, 39): how many bytes and how long until each screen is usable, on a
// slow network. `cargo xtask bench-load [--root DIR] [--runs N] [--only SECTIONS]` serves the
// built site and runs this; by hand:
// `cargo xtask static --port 8097 & node benches/load.mjs http://127.0.0.1:8097/ [--runs N] [--only first,cold,click]`.
//
// Headless Chromium (playwright-core, tests/e2e/browser.mjs) with the network throttled by CDP
// `Network.emulateNetworkConditions` to 10 Mbit/s down and up and 40 ms latency, a fresh
// profile (empty cache) per run. Sections (`--only`, comma-separated; all by default):
// - `first`: wasm + JS fetched until the Data screen is interactive (the example's summary
//   shows and the saved workspace is restored), their gzip -9 size, the bytes on the wire (the
//   server sends the build's brotli), and the time from navigation start; then, in the same
//   page, each other screen in tab order: the wasm + JS fetched from the click on its tab until
//   its panel shows (no "Loading …" note), and that time;
// - `cold`: each other screen opened first after a fresh load (the most it ever fetches; its
//   bytes on the wire are "its own bytes" below).
//   These use `?prefetch=off`, so each screen fetches its own code when its tab is clicked.
// - `prefetched`: the app as it ships — after the Data screen is interactive it fetches every
//   screen's chunks while the browser is idle; the time from interactive until that is done
//   (`<html data-prefetched="screens">`) and its bytes, then each screen in tab order.
// - `click` (issue 39): the app as it ships, each screen clicked 0, 0.5, 1 and 2 s after the
//   Data screen is interactive (while the prefetch may be on its way), the time from the click
//   until it shows; the target is 300 ms plus the time the screen's own bytes (the `cold`
//   section's, on the wire) take at 10 Mbit/s.
// Times are medians over the runs, in the page's clock (performance.now()).
import { gzipSync } from 'node:zlib';
import { launch } from '../tests/e2e/browser.mjs';

const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith('--')) ?? process.env.CONCORD_URL ?? 'http://127.0.0.1:8080/';
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const onlyAt = args.indexOf('--only');
const SECTIONS = onlyAt >= 0 ? args[onlyAt + 1].split(',') : ['first', 'cold', 'prefetched', 'click'];
for (const s of SECTIONS) {
  if (!['first', 'cold', 'prefetched', 'click'].includes(s)) throw new Error(`--only: unknown section ${s}`);
}
// `click` needs each screen's own bytes, from `cold`.
if (SECTIONS.includes('click') && !SECTIONS.includes('cold')) SECTIONS.push('cold');
const CLICK_AT = [0, 0.5, 1, 2];
const BITS_PER_MS = 10e6 / 1000;
const SCREENS = ['Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class'];
const NETWORK = { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 };

/** Records every wasm / JS response of the page (and its workers) with its raw and gzip size. */
function recordCode(context) {
  const fetched = [];
  context.on('response', async (res) => {
    const path = new URL(res.url()).pathname;
    if (!/\.(wasm|bin|js|mjs)$/.test(path)) return;
    const entry = { path, raw: 0, gz: 0, wire: 0, done: null };
    entry.done = Promise.all([
      res.body().then((body) => {
        entry.raw = body.length;
        entry.gz = gzipSync(body, { level: 9 }).length;
      }),
      res.request().sizes().then((sizes) => {
        entry.wire = sizes.responseBodySize + sizes.responseHeadersSize;
      }),
    ]).catch(() => {});
    fetched.push(entry);
  });
  return fetched;
}

async function throttledPage(context) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', NETWORK);
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
  return page;
}

const NO_PREFETCH = `${url}${url.includes('?') ? '&' : '?'}prefetch=off`;

/** Navigates and waits until the Data screen is interactive; returns ms since navigation start. */
async function firstLoad(page, target = NO_PREFETCH) {
  await page.goto(target, { waitUntil: 'commit' });
  const handle = await page.waitForFunction(() => {
    const ready = document.documentElement.dataset.workspace === 'ready'
      && document.querySelector('[data-testid="dataset-name"]');
    return ready ? performance.now() : null;
  }, null, { polling: 'raf', timeout: 60_000 });
  return handle.jsonValue();
}

/** Clicks a screen's tab in the page (not before the page's clock reads `at` ms) and waits
 * until its panel shows; returns the ms taken. */
async function openScreen(page, label, at = 0) {
  const id = await page.getByRole('tab', { name: label, exact: true }).getAttribute('id');
  const t0 = await page.evaluate(([tab, at]) => new Promise((resolve) => {
    const click = () => {
      if (performance.now() < at) {
        setTimeout(click, Math.min(10, at - performance.now()));
        return;
      }
      const t = performance.now();
      document.getElementById(tab).click();
      resolve(t);
    };
    click();
  }), [id, at]);
  const handle = await page.waitForFunction(() => {
    const panel = document.getElementById('screen-panel');
    const shown = panel && panel.children.length > 0
      && !panel.querySelector('[data-testid="screen-loading"], [data-testid="workspace-restoring"]');
    return shown ? performance.now() : null;
  }, null, { polling: 'raf', timeout: 60_000 });
  return (await handle.jsonValue()) - t0;
}

/** Sums what was fetched; `again` is the main module fetched a second time (by the loader's
 * Web Worker, which instantiates the same module), kept apart from a screen's own code. */
async function sizes(entries, first = false) {
  await Promise.all(entries.map((e) => e.done));
  const isMain = (e) => /\/pkg-[0-9a-f]+\/(concord(_bg\.wasm|\.js)|worker\.js)$/.test(e.path);
  const own = first ? entries : entries.filter((e) => !isMain(e));
  const again = first ? [] : entries.filter(isMain);
  return {
    raw: own.reduce((s, e) => s + e.raw, 0),
    gz: own.reduce((s, e) => s + e.gz, 0),
    wire: own.reduce((s, e) => s + e.wire, 0),
    wasm: own.filter((e) => /\.(wasm|bin)$/.test(e.path)).length,
    againGz: again.reduce((s, e) => s + e.gz, 0),
    files: own.map((e) => e.path.split('/').pop()),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const kb = (b) => (b / 1024).toFixed(1);

const first = [];
const prefetch = [];
const afterPrefetch = Object.fromEntries(SCREENS.map((s) => [s, []]));
const inOrder = Object.fromEntries(SCREENS.map((s) => [s, []]));
const cold = Object.fromEntries(SCREENS.map((s) => [s, []]));
const clicked = Object.fromEntries(SCREENS.map((s) => [s, Object.fromEntries(CLICK_AT.map((t) => [t, []]))]));
for (let run = 0; run < RUNS; run++) {
  if (SECTIONS.includes('first')) {
    const browser = await launch();
    try {
      const fetched = recordCode(browser.context);
      const page = await throttledPage(browser.context);
      const ms = await firstLoad(page);
      first.push({ ms, ...(await sizes(fetched.slice(), true)) });
      for (const screen of SCREENS) {
        const before = fetched.length;
        const took = await openScreen(page, screen);
        await page.waitForTimeout(200); // responses still arriving are counted with this screen
        inOrder[screen].push({ ms: took, ...(await sizes(fetched.slice(before))) });
      }
    } finally {
      await browser.close();
    }
  }
  if (SECTIONS.includes('prefetched')) {
    // As shipped: the screens are fetched while the browser is idle.
    const browser = await launch();
    try {
      const fetched = recordCode(browser.context);
      const page = await throttledPage(browser.context);
      const ready = await firstLoad(page, url);
      const before = fetched.length;
      const done = await page.waitForFunction(() => (
        document.documentElement.dataset.prefetched === 'screens' ? performance.now() : null
      ), null, { polling: 100, timeout: 120_000 });
      const ms = (await done.jsonValue()) - ready;
      await page.waitForTimeout(200);
      prefetch.push({ ms, ...(await sizes(fetched.slice(before))) });
      for (const screen of SCREENS) {
        const start = fetched.length;
        const took = await openScreen(page, screen);
        await page.waitForTimeout(200);
        afterPrefetch[screen].push({ ms: took, ...(await sizes(fetched.slice(start))) });
      }
    } finally {
      await browser.close();
    }
  }
  if (SECTIONS.includes('cold')) {
    for (const screen of SCREENS) {
      const browser = await launch();
      try {
        const fetched = recordCode(browser.context);
        const page = await throttledPage(browser.context);
        await firstLoad(page);
        await page.waitForTimeout(200);
        const before = fetched.length;
        const took = await openScreen(page, screen);
        await page.waitForTimeout(200);
        cold[screen].push({ ms: took, ...(await sizes(fetched.slice(before))) });
      } finally {
        await browser.close();
      }
    }
  }
  if (SECTIONS.includes('click')) {
    // As shipped (the prefetch on), each screen clicked t s after the Data screen is interactive.
    for (const screen of SCREENS) {
      for (const t of CLICK_AT) {
        const browser = await launch();
        try {
          const page = await throttledPage(browser.context);
          const ready = await firstLoad(page, url);
          const took = await openScreen(page, screen, ready + t * 1000);
          clicked[screen][t].push({ ms: took });
        } finally {
          await browser.close();
        }
      }
    }
  }
}

const row = (name, xs) => {
  const last = xs[xs.length - 1];
  const again = median(xs.map((x) => x.againGz));
  return `| ${name} | ${kb(median(xs.map((x) => x.gz)))} | ${kb(median(xs.map((x) => x.raw)))} | ${kb(median(xs.map((x) => x.wire)))} | ${last.wasm} | ${Math.round(median(xs.map((x) => x.ms)))} ms | ${xs.map((x) => Math.round(x.ms)).join(', ')} | ${again ? kb(again) : ''} |`;
};
console.log(`\nLoad benchmark: ${url}, ${RUNS} runs, 10 Mbit/s, 40 ms latency (medians)\n`);
if (SECTIONS.includes('first') || SECTIONS.includes('cold') || SECTIONS.includes('prefetched')) {
  console.log('| step | wasm+JS gzipped (KB) | as sent (KB) | on the wire (KB) | wasm files | time to interactive | each run (ms) | worker: main module again, gzipped (KB) |');
  console.log('|---|---:|---:|---:|---:|---:|---|---:|');
}
if (SECTIONS.includes('first')) {
  console.log(row('first load: Data screen', first));
  for (const screen of SCREENS) console.log(row(`then ${screen}`, inOrder[screen]));
}
if (SECTIONS.includes('cold')) for (const screen of SCREENS) console.log(row(`cold: ${screen} first`, cold[screen]));
if (SECTIONS.includes('prefetched')) {
  console.log(row('prefetched: from Data interactive until every screen is fetched', prefetch));
  for (const screen of SCREENS) console.log(row(`prefetched, then ${screen}`, afterPrefetch[screen]));
}
if (SECTIONS.includes('click')) {
  console.log('\nA screen clicked t s after the Data screen is interactive, the prefetch on (medians; each run in brackets); target: 300 ms + its own bytes on the wire at 10 Mbit/s\n');
  console.log(`| screen | own bytes on the wire (KB) | target | ${CLICK_AT.map((t) => `t = ${t} s`).join(' | ')} | within target |`);
  console.log(`|---|---:|---:|${CLICK_AT.map(() => '---:').join('|')}|---|`);
  for (const screen of SCREENS) {
    const own = median(cold[screen].map((x) => x.wire));
    const target = 300 + (own * 8) / BITS_PER_MS;
    const cells = CLICK_AT.map((t) => {
      const xs = clicked[screen][t].map((x) => x.ms);
      return `${Math.round(median(xs))} ms (${xs.map(Math.round).join(', ')})`;
    });
    const ok = CLICK_AT.every((t) => median(clicked[screen][t].map((x) => x.ms)) <= target);
    console.log(`| ${screen} | ${kb(own)} | ${Math.round(target)} ms | ${cells.join(' | ')} | ${ok ? 'yes' : 'no'} |`);
  }
}
if (SECTIONS.includes('first')) console.log(`\nfetched at first load: ${first[first.length - 1].files.join(', ')}`);
