// Long-lived caching (issue 26): the page is index.html and files of one `pkg-<hash>/`
// directory, whose name changes whenever any of its bytes do. `cargo xtask static` sends those
// files `Cache-Control: public, max-age=31536000, immutable` and index.html `no-cache` (with an
// ETag); the page, its worker and the chunk loader fetch everything relative to boot.js, so a
// second visit asks only for index.html and takes every other file from the browser's cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';

const HASHED = /\/pkg-[0-9a-f]{16}\//;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Every response of the page from the site's own origin, as CDP reports it. */
async function record(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const seen = [];
  const cached = new Set();
  const bytes = new Map();
  cdp.on('Network.requestServedFromCache', ({ requestId }) => cached.add(requestId));
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => bytes.set(requestId, encodedDataLength));
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    if (new URL(response.url).origin !== new URL(CONCORD_URL).origin) return;
    const header = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'cache-control');
    seen.push({ requestId, url: response.url, status: response.status, cache: header?.[1], fromDisk: response.fromDiskCache });
  });
  const fromCache = (r) => r.fromDisk || cached.has(r.requestId);
  // Bytes the page received over the network from the site (headers included).
  const received = () => seen.filter((r) => !fromCache(r)).reduce((sum, r) => sum + (bytes.get(r.requestId) ?? 0), 0);
  return { seen, fromCache, received };
}


test('every file but index.html is in the hashed directory, cached for good; a second visit asks only for index.html', async () => {
  await withApp({ url: null }, async (app) => {
    const { page, browser, data, screens } = app;
    // Worker requests too (worker.js and the module it imports).
    const all = [];
    browser.context.on('response', (r) => all.push({ url: r.url(), cache: r.headers()['cache-control'] }));
    const first = await record(page);
    await app.open(CONCORD_URL, { ready: false });
    assert.equal(await data.itemCount.textContent(), '15');
    // A loaded file starts the loader worker, from the same directory as boot.js.
    await data.loadFile('small.csv', 'doc,sys,output,fluency\nd1,s1,Fine.,4\nd2,s1,Poor.,2\n');
    assert.equal(await data.itemCount.textContent(), '2');
    // A screen's chunk (in a split build) comes from the same directory.
    await screens.openShown('Results');
    await page.waitForLoadState('networkidle');

    const boot = await screens.bootSrc();
    assert.match(boot, HASHED, 'index.html loads boot.js from the hashed directory');
    const dir = new URL('.', boot).href;
    const site = all.filter((r) => r.url.startsWith(CONCORD_URL));
    const index = site.filter((r) => !HASHED.test(r.url));
    assert.deepEqual(index.map((r) => new URL(r.url).pathname), [new URL(CONCORD_URL).pathname], 'only the page itself has a stable name');
    assert.equal(index[0].cache, 'no-cache');
    const hashed = site.filter((r) => HASHED.test(r.url));
    const names = hashed.map((r) => r.url.slice(dir.length));
    for (const f of ['boot.js', 'concord.js', 'concord_bg.wasm', 'worker.js', 'style/concord.css']) {
      assert.ok(names.includes(f), `${f} fetched from ${dir}: ${names}`);
    }
    if (process.env.CONCORD_SPLIT !== '0') {
      assert.ok(names.includes('__wasm_split.js') && names.includes('split_screen_results.wasm'), `the chunk loader and the Results chunk: ${names}`);
    }
    for (const r of hashed) {
      assert.ok(r.url.startsWith(dir), `${r.url} is in the page's own directory ${dir}`);
      assert.equal(r.cache, IMMUTABLE, r.url);
    }

    // Coming back: the page is revalidated; nothing else goes to the server.
    const again = await app.newPage();
    const second = await record(again.page);
    await again.open(CONCORD_URL, { ready: false });
    await again.screens.openShown('Results');
    await again.page.waitForLoadState('networkidle');
    const network = second.seen.filter((r) => !second.fromCache(r)).map((r) => new URL(r.url).pathname);
    assert.deepEqual(network, [new URL(CONCORD_URL).pathname], `only index.html from the server: ${network}`);
    assert.ok(second.seen.filter((r) => HASHED.test(r.url)).length >= 4, 'the hashed files came from the cache');
    console.log(`# the page received ${(first.received() / 1024).toFixed(1)} KB from the site on the first visit, ${(second.received() / 1024).toFixed(1)} KB on the second`);
  });
});
