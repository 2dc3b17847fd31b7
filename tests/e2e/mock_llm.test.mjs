// The page, under its own CSP, can call a loopback OpenAI-compatible API (the mock) with CORS,
// and can read retry-after on a 429 — what the run engine relies on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, MOCK_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';

async function scenario(body) {
  const res = await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, 'the mock accepts the scenario');
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}

test('the page reaches the mock LLM through CORS and reads retry-after', { skip: !MOCK_URL }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await new DataPage(page).open(CONCORD_URL);

    await scenario({ reply: { mode: 'canned', text: 'Rating: 4' } });
    const ok = await page.evaluate(async (base) => {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sk-test', 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'Rate this.' }], n: 2 }),
      });
      return { status: res.status, body: await res.json() };
    }, MOCK_URL);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.choices.length, 2);
    assert.equal(ok.body.choices[0].message.content, 'Rating: 4');

    await scenario({ script: [{ status: 429, body: { error: { message: 'slow down' } }, headers: [['retry-after', '7']] }] });
    const limited = await page.evaluate(async (base) => {
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: 'Bearer sk-test', 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: 'mock', messages: [{ role: 'user', content: 'Rate this.' }] }),
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    }, MOCK_URL);
    assert.deepEqual(limited, { status: 429, retryAfter: '7' });

    // The mock logged the scripted call (and only it, since the reset) as not answered.
    const log = await (await fetch(`${MOCK_URL}/__mock/requests`)).json();
    const chats = log.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    assert.deepEqual(chats.map((r) => [r.status, r.answered_ok]), [[429, false]]);
    const pageErrors = seen.problems.filter((p) => !p.includes('429'));
    assert.deepEqual(pageErrors, [], 'no console or page errors besides the scripted 429');
  } finally {
    await browser.close();
  }
});
