// Code splitting (issue 21): the release build loads only its main module before the Data
// screen shows; a screen's wasm chunks are fetched when its tab is first opened, and never
// again — or, by default, ahead of the tab while the browser is idle (not with Save-Data or
// `?prefetch=off`, which the tests of each screen's own fetch use). Fails on an unsplit release build; skipped on a `--dev` build (one module by design,
// `CONCORD_SPLIT=0` from `cargo xtask e2e --dev`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, CONCORD_SUBPATH_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { Screens } from './pages/workbench_pages.mjs';

const DEV = process.env.CONCORD_SPLIT === '0';
// Each screen's chunk fetched when its tab opens, not ahead of it.
const NO_PREFETCH = `${CONCORD_URL}?prefetch=off`;
const SCREENS = ['judge', 'run', 'results', 'rate', 'meta', 'coeval', 'class'];
const TABS = ['Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class'];

const wasmOf = (requests) => requests
  .map((u) => new URL(u).pathname)
  // The small shared chunks come packed in one file, chunks_small.bin (`cargo xtask build`).
  .filter((p) => p.endsWith('.wasm') || p.endsWith('.bin'))
  .map((p) => p.split('/').pop());

/** Waits until the tab panel shows a screen with none of the notes `ids` (test ids) in it. */
async function shown(page, ids = ['screen-loading', 'workspace-restoring']) {
  await page.waitForFunction((ids) => {
    const panel = document.getElementById('screen-panel');
    return panel && panel.children.length > 0
      && !panel.querySelector(ids.map((id) => `[data-testid="${id}"]`).join(', '));
  }, ids);
}

/** Clicks a screen's tab and waits until its panel shows (no "Loading the … screen" note). */
async function open(page, label) {
  await page.getByRole('tab', { name: label, exact: true }).click();
  await shown(page);
}

test('the first load fetches only the main module; Results fetches its chunks once', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(NO_PREFETCH);
    assert.equal(await data.itemCount.textContent(), '15');
    await page.locator('html[data-prefetched="off"]').waitFor({ state: 'attached' });
    // Whatever the page still fetches while settling belongs to the first load.
    await page.waitForLoadState('networkidle');
    assert.deepEqual(wasmOf(seen.requests), ['concord_bg.wasm'], 'the first load fetches the main module and no chunk');
    assert.ok(
      seen.requests.some((u) => /\/pkg-[0-9a-f]{16}\/__wasm_split\.js$/.test(u)),
      'the chunk loader is part of the build, in its hashed directory',
    );

    let before = seen.requests.length;
    await open(page, 'Results');
    await page.waitForLoadState('networkidle');
    const results = wasmOf(seen.requests.slice(before));
    assert.ok(results.some((f) => /^split_screen_results\.wasm$/.test(f)), `Results fetched its chunk: ${results}`);
    assert.ok(!results.includes('concord_bg.wasm'), 'the main module is not fetched again');
    assert.ok(!results.some((f) => f.startsWith('split_') && f !== 'split_screen_results.wasm'),
      `no other screen's chunk: ${results}`);
    // The screen works: its tab panel shows the Results screen, not the loading note.
    assert.equal(await page.getByRole('tabpanel', { name: 'Results' }).count(), 1);

    await open(page, 'Data');
    before = seen.requests.length;
    await open(page, 'Results');
    await page.waitForLoadState('networkidle');
    assert.deepEqual(wasmOf(seen.requests.slice(before)), [], 'opening Results again fetches nothing');
    assert.equal(await page.getByTestId('screen-loading').count(), 0, 'and shows no loading note');

    // Every other screen loads and shows, one after another.
    for (const label of ['Judge', 'Run', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class']) {
      await open(page, label);
    }
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});

test('a screen opened first fetches a few files: the small shared chunks come in one; refused, it is said and Try again loads it', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(NO_PREFETCH);
    await page.waitForLoadState('networkidle');
    const blocked = '**/pkg-*/chunks_small.bin';
    await page.route(blocked, (route) => route.abort('internetdisconnected'));
    const start = seen.requests.length;
    await page.getByRole('tab', { name: 'Judge', exact: true }).click();
    const error = page.getByTestId('screen-load-error');
    await error.waitFor();
    assert.match(await error.innerText(), /the Judge screen could not be loaded/);
    await page.unroute(blocked);
    const before = seen.requests.length;
    await page.getByRole('button', { name: 'Try again' }).click();
    await shown(page, ['screen-loading', 'screen-load-error']);
    assert.equal(await page.getByRole('tabpanel', { name: 'Judge' }).count(), 1);
    await page.waitForLoadState('networkidle');
    const files = wasmOf(seen.requests.slice(before));
    assert.equal(files.filter((f) => f === 'chunks_small.bin').length, 1, `the pack fetched again, once: ${files}`);
    // Without the pack the Judge screen fetched about a hundred files (2026-11-26: 91).
    const judge = new Set(wasmOf(seen.requests.slice(start)));
    assert.ok(judge.size <= 25, `a few files: ${judge.size} (${[...judge]})`);
    const unexpected = seen.problems.filter((p) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|failed to load split module/i.test(p));
    assert.deepEqual(unexpected, [], 'no other console or page errors');
  } finally {
    await browser.close();
  }
});

test('under a sub-path the chunks come from the site\'s own pkg-<hash>/', { skip: (DEV && 'a --dev build is not split') || (!CONCORD_SUBPATH_URL && 'no sub-path server') }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await new DataPage(page).open(`${CONCORD_SUBPATH_URL}?prefetch=off`);
    await open(page, 'Results');
    await page.waitForLoadState('networkidle');
    const chunks = seen.requests.filter((u) => /\/split_screen_results\.wasm$/.test(u));
    assert.equal(chunks.length, 1, `the Results chunk was fetched once: ${chunks}`);
    const boot = await page.locator('script[type=module]').evaluate((s) => s.src);
    assert.match(boot, /\/pkg-[0-9a-f]{16}\/boot\.js$/);
    assert.ok(boot.startsWith(CONCORD_SUBPATH_URL), boot);
    assert.ok(chunks[0].startsWith(new URL('.', boot).href), chunks[0]);
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});

test('a screen whose chunk cannot be fetched says so, the app keeps working, and Try again loads it', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(NO_PREFETCH);
    const blocked = '**/pkg-*/split_screen_results.wasm';
    await page.route(blocked, (route) => route.abort('internetdisconnected'));
    await page.getByRole('tab', { name: 'Results', exact: true }).click();
    const error = page.getByTestId('screen-load-error');
    await error.waitFor();
    assert.match(await error.innerText(), /the Results screen could not be loaded/);
    // The app did not abort: another screen still works.
    await open(page, 'Data');
    assert.equal(await data.itemCount.textContent(), '15');

    // A failed load is not remembered: opening the tab again tries again (still refused here).
    await open(page, 'Results');
    await error.waitFor();
    await page.unroute(blocked);
    await page.getByRole('button', { name: 'Try again' }).click();
    await shown(page, ['screen-loading', 'screen-load-error']);
    assert.equal(await page.getByRole('tabpanel', { name: 'Results' }).count(), 1);
    // Only the refused fetch was reported (by the browser and by the chunk loader).
    const unexpected = seen.problems.filter((p) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|failed to load split module/i.test(p));
    assert.deepEqual(unexpected, [], 'no other console or page errors');
    assert.ok(!seen.problems.some((p) => p.startsWith('pageerror')), `no page error: ${seen.problems}`);
  } finally {
    await browser.close();
  }
});

test('the loaders are fetched by the worker when a file is first loaded; offline it is said and nothing is lost', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    // Worker requests too: the worker fetches the loaders' chunk.
    const fetched = [];
    browser.context.on('request', (r) => fetched.push(new URL(r.url()).pathname.split('/').pop()));
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    assert.equal(await data.itemCount.textContent(), '15');
    await page.waitForLoadState('networkidle');
    assert.ok(!fetched.includes('split_worker.wasm'), 'the example opens without the loaders');

    const blocked = /split_worker\.wasm/;
    await browser.context.route(blocked, (route) => route.abort('internetdisconnected'));
    await data.fileInput.setInputFiles({ name: 'mine.csv', mimeType: 'text/csv', buffer: Buffer.from('doc,sys,output,coherence\nd1,s1,Fine.,4\nd2,s1,Poor.,2\n') });
    await data.loadError.waitFor();
    assert.match(await data.loadError.innerText(), /part of Concord's program could not be downloaded .*check the connection and try again/);
    assert.equal(await data.itemCount.textContent(), '15', 'the open dataset stays');

    await browser.context.unroute(blocked);
    await data.loadFile('mine.csv', 'doc,sys,output,coherence\nd1,s1,Fine.,4\nd2,s1,Poor.,2\n');
    assert.equal(await data.itemCount.textContent(), '2');
    assert.ok(fetched.includes('split_worker.wasm'), 'the worker fetched the loaders');
  } finally {
    await browser.close();
  }
});

test('once the Data screen is up, every screen is fetched while the browser is idle, and then opens at once', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    // Room for every fetch in the page's resource timing (250 entries by default).
    await page.addInitScript(() => performance.setResourceTimingBufferSize(10_000));
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    assert.equal(await data.itemCount.textContent(), '15');
    await page.locator('html[data-prefetched="screens"]').waitFor({ state: 'attached', timeout: 60_000 });
    await page.waitForLoadState('networkidle');
    const fetched = wasmOf(seen.requests);
    for (const s of SCREENS) assert.ok(fetched.includes(`split_screen_${s}.wasm`), `${s} prefetched: ${fetched}`);
    // And first what the Data screen needs next: saving the workspace, loading a file.
    assert.ok(fetched.includes('split_page_io.wasm'), `the page's I/O prefetched: ${fetched}`);
    assert.equal(fetched.filter((f) => f === 'concord_bg.wasm').length, 1);
    assert.ok(!fetched.some((f) => /^split_(tokenizer|worker|bundle)/.test(f)), `nothing but screens: ${fetched}`);
    // Each tab now shows its screen with nothing more to fetch and no loading note. Counted
    // from the page's own resource timing: a worker a screen starts (a token estimate) fetches
    // the module for itself, sooner or later depending on the machine's load.
    const pageFetches = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    const before = (await pageFetches()).length;
    for (const label of TABS) {
      await page.getByRole('tab', { name: label, exact: true }).click();
      await page.getByRole('tabpanel', { name: label }).waitFor();
      assert.equal(await page.getByTestId('screen-loading').count(), 0, `${label} shows at once`);
    }
    assert.deepEqual(wasmOf((await pageFetches()).slice(before)), [], 'opening the screens fetches no more wasm');
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});

test('saving or restoring a workspace (and loading a file) fetches the page\'s I/O chunk when first needed; a restore whose chunk fails keeps what is saved', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(NO_PREFETCH);
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('networkidle');
    assert.deepEqual(wasmOf(seen.requests), ['concord_bg.wasm'], 'a first visit neither reads nor writes a saved workspace');

    // A change is saved 1.5 s later: the save fetches the chunk that writes workspaces.
    const name = page.locator('#workspace-name');
    await name.fill('Split test');
    await name.dispatchEvent('change');
    await page.waitForFunction(() => Number(document.documentElement.dataset.workspaceSaves ?? 0) > 0, null, { timeout: 30_000 });
    assert.ok(wasmOf(seen.requests).includes('split_page_io.wasm'), `the save fetched its chunk: ${wasmOf(seen.requests)}`);
    assert.ok(!wasmOf(seen.requests).some((f) => /^split_screen/.test(f)), `no screen's chunk: ${wasmOf(seen.requests)}`);

    // A file loads with the page's side of a load already there (same chunk); it is saved too.
    await data.loadFile('mine.csv', 'doc,sys,output,coherence\nd1,s1,Fine.,4\nd2,s1,Poor.,2\n');
    assert.equal(await data.itemCount.textContent(), '2');
    await page.waitForFunction(() => Number(document.documentElement.dataset.workspaceSaves ?? 0) > 1, null, { timeout: 30_000 });

    // A reload whose chunk cannot be downloaded says so, shows the example and overwrites nothing.
    const blocked = '**/pkg-*/split_page_io.wasm';
    await page.route(blocked, (route) => route.abort('internetdisconnected'));
    await page.reload();
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached' });
    const message = page.getByTestId('workspace-message');
    await message.waitFor();
    assert.match(await message.innerText(), /Your saved workspaces could not be opened: part of Concord's program could not be downloaded .*They are kept/);
    assert.equal(await data.itemCount.textContent(), '15', 'the example, until the saved workspace can be read');

    // Allowed again, a reload reads the saved workspace through its chunk: nothing was lost.
    await page.unroute(blocked);
    await page.reload();
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached' });
    assert.equal(await data.itemCount.textContent(), '2');
    assert.equal(await name.inputValue(), 'Split test');
  } finally {
    await browser.close();
  }
});

test('a browser asking to save data (Save-Data) gets no prefetch', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, 'connection', { get: () => ({ saveData: true }), configurable: true });
    });
    const seen = watch(page);
    await new DataPage(page).open(CONCORD_URL);
    await page.locator('html[data-prefetched="off"]').waitFor({ state: 'attached' });
    await page.waitForLoadState('networkidle');
    assert.deepEqual(wasmOf(seen.requests), ['concord_bg.wasm']);
  } finally {
    await browser.close();
  }
});

test('a screen opened while the prefetch is on its way comes first: fetched at high priority, the prefetch aborted and finished afterwards', { skip: DEV && 'a --dev build is not split' }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const screens = new Screens(page);
    // A slow link, so that the idle prefetch is still on its way when the tab is clicked.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 40, downloadThroughput: 1e6 / 8, uploadThroughput: 1e6 / 8 });
    const file = (u) => new URL(u).pathname.split('/').pop();
    const sent = new Map(); // requestId → { file, priority }
    const log = []; // ['sent' | 'done' | 'failed', file, detail]
    let click = null;
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
      const f = file(request.url);
      if (!/\.(wasm|bin)$/.test(f)) return;
      sent.set(requestId, { file: f, priority: request.initialPriority });
      log.push(['sent', f, request.initialPriority]);
      // The first screen chunk of the prefetch on its way: the user opens Class now (last in
      // the prefetch's order, so none of its own files has been asked for yet).
      if (!click && /^split_screen_/.test(f)) click = screens.tab('Class').click();
    });
    cdp.on('Network.loadingFinished', ({ requestId }) => sent.has(requestId) && log.push(['done', sent.get(requestId).file]));
    cdp.on('Network.loadingFailed', ({ requestId, errorText, canceled }) => sent.has(requestId) && log.push(['failed', sent.get(requestId).file, canceled ? 'canceled' : errorText]));
    await page.goto(CONCORD_URL);
    for (let i = 0; !click && i < 600; i++) await page.waitForTimeout(100);
    assert.ok(click, `the prefetch fetched a screen's chunk: ${log.map((l) => l.join(' '))}`);
    await click;
    await screens.panel('Class').waitFor({ timeout: 60_000 });
    await shown(page);
    const at = log.findIndex(([kind, f]) => kind === 'sent' && f === 'split_screen_class.wasm');
    assert.ok(at >= 0, `Class fetched its chunk: ${log.map((l) => l.join(' '))}`);
    assert.equal(log[at][2], 'High', 'the screen the user opened is fetched at high priority');
    const prefetched = log.filter(([kind, f]) => kind === 'sent' && /^split_screen_/.test(f) && f !== 'split_screen_class.wasm');
    assert.ok(prefetched.length > 0 && prefetched.every(([, , p]) => p === 'Low' || p === 'VeryLow'), `the prefetch asks at low priority: ${prefetched.map((l) => l.join(' '))}`);
    const gaveWay = log.filter(([kind, f, why]) => kind === 'failed' && f !== 'split_screen_class.wasm' && /canceled|ABORTED/i.test(why));
    assert.ok(gaveWay.length > 0, `the prefetch's fetches on their way were aborted: ${log.map((l) => l.join(' '))}`);
    // Then the prefetch goes on, and every screen is fetched in the end: each aborted file again.
    await screens.waitPrefetched(180_000, 'screens');
    const finished = new Set(log.filter(([kind]) => kind === 'done').map(([, f]) => f));
    for (const s of SCREENS) assert.ok(finished.has(`split_screen_${s}.wasm`), `${s} prefetched in the end: ${[...finished]}`);
    for (const [, f] of gaveWay) assert.ok(finished.has(f), `${f}, aborted, was fetched again`);
    // Each tab now shows at once.
    for (const label of TABS) {
      await screens.tab(label).click();
      await screens.panel(label).waitFor();
      assert.equal(await screens.loadingCount(), 0, `${label} shows at once`);
    }
    const unexpected = seen.problems.filter((p) => !/ERR_ABORTED|aborted/i.test(p));
    assert.deepEqual(unexpected, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});
