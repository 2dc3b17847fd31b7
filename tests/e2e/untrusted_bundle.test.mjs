// An untrusted bundle (issue 10): a bundle served from another origin through `?bundle=URL`
// whose endpoint names an attacker's base URL. Opening it must not change where the key goes:
// every request that carries the key goes to the origin the user set, and the attacker's
// server sees nothing but the bundle download. A `javascript:` bundle address runs nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { withApp } from './harness.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SECRET = 'sk-user-secret-0123456789';

/** A loopback server on a free port that serves `bundle` and logs every request it gets. */
async function attacker(makeBundle) {
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const cors = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': 'authorization, content-type, x-api-key',
        'access-control-allow-methods': 'GET, POST, OPTIONS',
      };
      if (req.method === 'OPTIONS') { res.writeHead(204, cors); res.end(); return; }
      if (req.url === '/bundle.json') {
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify(makeBundle(server.address().port)));
        return;
      }
      // Anything else looks like a friendly API, to tempt the page.
      res.writeHead(200, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'evil-model' }] }));
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, seen, close: () => new Promise((ok) => server.close(ok)) };
}

test('a bundle from another origin cannot redirect the key', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const demo = JSON.parse(readFileSync(join(ROOT, 'demo/example-bundle.json'), 'utf8'));
  const evil = await attacker((port) => ({
    ...demo,
    endpoint: { provider: 'custom', base_url: `http://127.0.0.1:${port}/v1`, model: 'evil-model' },
    // Fields a careless importer might read as settings.
    connection: { base_url: `http://127.0.0.1:${port}/v1`, api_key_header: 'authorization' },
    settings: { ...demo.settings, base_url: `http://127.0.0.1:${port}/v1` },
  }));
  try {
    await withApp({ url: null, problems: 'pageerrors' }, async (app) => {
      const { page, run, results } = app;
      const sent = [];
      page.on('request', (req) => sent.push(req));
      await app.open(CONCORD_URL, { ready: false });
      await setScenario({ reply: { mode: 'hash_rating' }, require_key: SECRET });
      // The user opts in to remembering the key, so it survives the navigation below.
      await app.connectMock({ key: SECRET });
      await run.rememberKey.check();

      // A link to the hostile bundle.
      await page.goto(`${CONCORD_URL}?bundle=${encodeURIComponent(`${evil.origin}/bundle.json`)}`);
      await results.bundleSource(`${evil.origin}/bundle.json`).waitFor({ timeout: 30_000 });
      const cells = await results.cells();
      assert.ok(cells.length >= 1, 'the bundle opened: its results are shown');

      await run.open();
      const base = await run.baseUrl.inputValue();
      assert.ok(!base.includes(evil.origin), `the bundle did not set the base URL (${base})`);
      assert.notEqual(await run.model.inputValue(), 'evil-model');
      assert.equal(await run.apiKey.inputValue(), SECRET, 'the remembered key is back');

      // The user points the page at their provider (the mock) and uses the key.
      await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', itemLimit: 1 });
      await run.checkModel();
      await run.run();
      assert.match(await run.waitFinished(120_000), /Run complete/);

      // Every request the page made (all pages of the profile: one here), with all its headers.
      const keyed = [];
      for (const req of sent) {
        const h = await req.allHeaders().catch(() => req.headers());
        const carries = Object.values(h).some((v) => v.includes(SECRET)) || req.url().includes(SECRET) || (req.postData() ?? '').includes(SECRET);
        if (carries) keyed.push(new URL(req.url()).origin);
      }
      const mockOrigin = new URL(MOCK_URL).origin;
      assert.ok(keyed.length >= 2, `the key was used (${keyed.length} requests)`);
      assert.deepEqual([...new Set(keyed)], [mockOrigin], 'every request carrying the key went to the origin the user set');
      assert.deepEqual(evil.seen.map((r) => `${r.method} ${r.url}`), ['GET /bundle.json'], 'the attacker saw only the bundle download');
      assert.ok(evil.seen.every((r) => !JSON.stringify(r).includes(SECRET)));
    });
  } finally {
    await evil.close();
  }
});

test('a javascript: bundle address runs nothing and says why', { timeout: 60_000 }, async () => {
  await withApp({ url: null, problems: 'allowed' }, async ({ page, results }) => {
    const dialogs = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
    await page.goto(`${CONCORD_URL}?bundle=${encodeURIComponent('javascript:window.__xss=1;alert(1)')}`);
    await results.bundleError.waitFor({ timeout: 30_000 });
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    assert.deepEqual(dialogs, []);
  });
});
