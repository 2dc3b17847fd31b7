// The browser edge (src/edge/) on the served site, through the hooks of src/edge/probe.rs:
// fetch failures that need a live server (timeout, abort, truncated body, exposed headers),
// IndexedDB durability across a page reload, and loading a ~30 MB file in the worker without
// long main-thread tasks (the figures are printed, not asserted: tests never assert timings).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, MOCK_URL } from './browser.mjs';

async function scenario(body) {
  const res = await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, 'the mock accepts the scenario');
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}

/** Opens the site and waits until the wasm module is initialised (boot.js removes its status). */
async function openSite(browser) {
  const page = await browser.context.newPage();
  const seen = watch(page);
  await page.goto(CONCORD_URL);
  await page.waitForSelector('#boot-status', { state: 'detached' });
  return { page, seen };
}

/** Calls an exported probe of the module beside boot.js in the site's pkg-<hash>/ (the
 * instance boot.js initialised: the same address is the same module). */
function probe(page, name, ...args) {
  return page.evaluate(async ([name, args]) => {
    const m = await import(new URL('concord.js', document.querySelector('script[type=module]').src).href);
    return m[name](...args);
  }, [name, args]);
}

const CHAT = () => JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'Rate this.' }] });
const SECRET = 'sk-edge-secret-never-shown';

test('send: reply with exposed headers, timeout, abort, truncated body, refused port', { skip: !MOCK_URL }, async () => {
  const browser = await launch();
  try {
    const { page } = await openSite(browser);
    const url = `${MOCK_URL}/v1/chat/completions`;

    await scenario({ reply: { mode: 'canned', text: 'Rating: 4' } });
    const ok = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 10000, 0);
    assert.equal(ok.status, 200, JSON.stringify(ok));
    assert.equal(JSON.parse(ok.body).choices[0].message.content, 'Rating: 4');
    assert.ok(ok.headers.some(([k, v]) => k === 'content-type' && v.includes('json')), JSON.stringify(ok.headers));
    assert.equal(ok.inFlightAfter, 0);

    await scenario({ script: [{ status: 429, body: { error: { message: 'slow down' } }, headers: [['Retry-After', '7']] }] });
    const limited = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 10000, 0);
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.headers.filter(([k]) => k === 'retry-after'), [['retry-after', '7']], 'lower-case name, exposed value');

    await scenario({ latency_ms: 5000 });
    const slow = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 300, 0);
    assert.equal(slow.error, 'timeout', JSON.stringify(slow));
    assert.match(slow.message, /0\.3 s/);

    const aborted = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 10000, 200);
    assert.equal(aborted.error, 'aborted', JSON.stringify(aborted));
    assert.equal(aborted.inFlightAfter, 0, 'the handle forgets finished requests');

    await scenario({ failure_rate: 1.0, failures: ['truncate'] });
    const cut = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 10000, 0);
    assert.equal(cut.error, 'body', JSON.stringify(cut));
    assert.match(cut.message, /HTTP 200/);

    await scenario({ failure_rate: 1.0, failures: ['drop'] });
    const dropped = await probe(page, 'edge_probe_send', url, CHAT(), SECRET, 10000, 0);
    assert.equal(dropped.error, 'network', JSON.stringify(dropped));

    const refused = await probe(page, 'edge_probe_send', 'http://127.0.0.1:9/v1/chat/completions', CHAT(), SECRET, 10000, 0);
    assert.equal(refused.error, 'network');
    for (const r of [slow, aborted, cut, dropped, refused]) {
      assert.ok(!r.message.includes(SECRET), `no secret in: ${r.message}`);
    }
    await scenario({});
  } finally {
    await browser.close();
  }
});

test('store: a committed put survives a page reload', async () => {
  const browser = await launch();
  try {
    const { page, seen } = await openSite(browser);
    const value = `saved at ${Date.now()}`;
    assert.equal(await probe(page, 'edge_probe_store', 'put', 'edge-e2e', value), null);
    await page.reload();
    await page.waitForSelector('#boot-status', { state: 'detached' });
    assert.equal(await probe(page, 'edge_probe_store', 'get', 'edge-e2e', ''), value);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

/**
 * In the page: builds a Chiang & Lee-shaped result file of about `megabytes` MB (one prompt and
 * 20 responses per item, as the released files), then loads it through the probe while a
 * PerformanceObserver records every main-thread task over 50 ms.
 */
function loadBigFile(page, inWorker, megabytes) {
  return page.evaluate(async ([inWorker, megabytes]) => {
    const words = 'the a tale of princess kaguya studio ghibli film animated great director award'.split(' ');
    let seed = 7;
    const text = (n) => {
      const out = [];
      for (let i = 0; i < n; i++) { seed = (seed * 1103515245 + 12345) % 2147483648; out.push(words[seed % words.length]); }
      return out.join(' ');
    };
    const items = [];
    let size = 0;
    for (let i = 0; size < megabytes * 1e6; i++) {
      const item = {
        source: `dialogue ${Math.floor(i / 6)}: ${text(180)}`, system_id: `system-${i % 6}`,
        system_output: text(35), context: text(270),
        scores: { understandability: i % 2, naturalness: 1 + (i % 3), coherence: 1 + ((i + 1) % 3),
          engagingness: 1 + ((i + 2) % 3), groundedness: (i % 3) / 3, overall: 1 + (i % 5) },
        prompt: `Rate the coherence of the response. ${text(250)}`,
        all_responses: Array.from({ length: 20 }, (_, k) => `Coherence: ${1 + ((i + k) % 3)}. ${text(12)}`),
      };
      const json = JSON.stringify(item);
      size += json.length + 2;
      items.push(json);
    }
    const bytes = new TextEncoder().encode('[' + items.join(',\n') + ']');
    items.length = 0;
    const m = await import(new URL('concord.js', document.querySelector('script[type=module]').src).href);
    // Let the collector reclaim the generation's garbage before measuring.
    await new Promise((r) => setTimeout(r, 2000));
    const tasks = [];
    const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e); });
    observer.observe({ type: 'longtask' });
    const length = bytes.length; // the worker load takes the buffer over (detaches it)
    const result = await m.edge_probe_load('gpt3.5_coh_synthetic.json', bytes, inWorker);
    await new Promise((r) => setTimeout(r, 200));
    observer.disconnect();
    const longTasks = tasks.map((e) => e.duration);
    // When each long task started, in ms after the load started (to match the stages).
    const taskStarts = tasks.map((e) => Math.round(e.startTime - result.startedAt));
    return { ...result, bytes: length, longTasks, taskStarts, longest: Math.max(0, ...longTasks) };
  }, [inWorker, megabytes]);
}

test('a 30 MB file loads in the worker without long main-thread tasks', async () => {
  const browser = await launch();
  try {
    const { page, seen } = await openSite(browser);
    const worker = await loadBigFile(page, true, 30);
    const main = await loadBigFile(page, false, 30);
    const again = await loadBigFile(page, true, 30);
    const fmt = (r) => `${(r.bytes / 1e6).toFixed(1)} MB, ${r.items} items, ${r.judgeRecords} judge records: ` +
      `total ${r.ms.toFixed(0)} ms, longest main-thread task ${r.longest.toFixed(0)} ms ` +
      `(tasks over 50 ms: ${r.longTasks.map((d, i) => `${d.toFixed(0)} ms at +${r.taskStarts[i]}`).join(', ') || 'none'})` +
      (r.stages.length ? `; stages ${r.stages.map((s) => (typeof s === 'number' ? `+${s.toFixed(0)}` : s)).join(' ')}` : '');
    console.log(`edge load, worker:           ${fmt(worker)}`);
    console.log(`edge load, worker again:     ${fmt(again)}`);
    console.log(`edge load, main thread:      ${fmt(main)}`);
    assert.ok(worker.ok && main.ok, `${worker.error ?? ''} ${main.error ?? ''}`);
    assert.equal(worker.format, 'chiang-lee-results');
    assert.deepEqual(worker.stages.filter((s) => typeof s === 'string'), ['starting-worker', 'parsing-in-worker', 'receiving']);
    assert.deepEqual([worker.items, worker.judgeRecords, worker.diagnostics], [main.items, main.judgeRecords, main.diagnostics]);
    assert.ok(worker.items > 1000, `${worker.items} items`);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
