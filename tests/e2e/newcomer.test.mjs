// A newcomer's first hour (issue 24), one check per defect a new user met: bad input refused
// with the open dataset kept, connection errors that name their cause, a resumed run that asks
// for the key it had, Results that say why a cell is blank and where the runs come from, costs
// said unknown when they are, plain words, and every plot's text readable (no overlap, round
// and increasing ticks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launch, watch, CONCORD_URL, CONCORD_SUBPATH_URL, MOCK_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { MetaPage } from './pages/meta_page.mjs';

const META_FIXTURES = join(import.meta.dirname, '../../crates/core/tests/fixtures/meta');

async function scenario(body) {
  const res = await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200, await res.text());
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}
const chatCalls = async () => (await (await fetch(`${MOCK_URL}/__mock/requests`)).json()).requests
  .filter((r) => r.path.endsWith('/chat/completions')).length;

/**
 * Every text of every plot on the page: no two overlap (their boxes as drawn), and each axis'
 * tick labels are distinct, increasing and round (at most two significant decimals' worth).
 */
async function checkPlots(page, where) {
  const plots = await page.locator('svg.plot').evaluateAll((svgs) => svgs.map((svg) => {
    const texts = [...svg.querySelectorAll('text')].map((t) => {
      const b = t.getBBox();
      const m = t.getCTM();
      // The box in the svg's coordinates (rotated labels by their transformed corners).
      const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]]
        .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
      const xs = corners.map((c) => c[0]);
      const ys = corners.map((c) => c[1]);
      return {
        text: t.textContent, anchor: t.getAttribute('text-anchor'), size: Number(t.getAttribute('font-size')),
        x: Number(t.getAttribute('x')), y: Number(t.getAttribute('y')), rotated: !!t.getAttribute('transform'),
        box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
      };
    });
    return { title: svg.querySelector(':scope > title')?.textContent, texts };
  }));
  assert.ok(plots.length > 0, `${where}: plots to check`);
  for (const { title, texts } of plots) {
    // Heatmap cell values sit inside their own cells: only labels and axes are checked.
    const level = texts.filter((t) => !t.rotated);
    for (let i = 0; i < level.length; i++) {
      for (let j = i + 1; j < level.length; j++) {
        const [a, b] = [level[i].box, level[j].box];
        const apart = a[2] <= b[0] + 0.5 || b[2] <= a[0] + 0.5 || a[3] <= b[1] + 0.5 || b[3] <= a[1] + 0.5;
        assert.ok(apart, `${where} · ${title}: "${level[i].text}" overlaps "${level[j].text}"`);
      }
    }
    // Y-axis ticks: right-aligned numbers of size 10 at the same x.
    const ticks = texts.filter((t) => t.anchor === 'end' && t.size === 10 && /^-?\d+(\.\d+)?$/.test(t.text));
    const byX = new Map();
    for (const t of ticks) byX.set(t.x, [...(byX.get(t.x) ?? []), t]);
    for (const column of byX.values()) {
      if (column.length < 2) continue;
      const values = column.sort((p, q) => q.y - p.y).map((t) => Number(t.text));
      assert.equal(new Set(column.map((t) => t.text)).size, column.length, `${where} · ${title}: distinct ticks ${column.map((t) => t.text)}`);
      for (let i = 1; i < values.length; i++) assert.ok(values[i] > values[i - 1], `${where} · ${title}: increasing ticks ${values}`);
      const step = values[1] - values[0];
      const mantissa = step / 10 ** Math.floor(Math.log10(step));
      assert.ok([1, 2, 2.5, 5, 10].some((m) => Math.abs(m - mantissa) < 1e-6), `${where} · ${title}: round step ${step} (${values})`);
    }
  }
  return plots.length;
}

test('bad input is refused and the open dataset stays: binary files, sampling fields, a file loaded twice', { timeout: 90_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    const before = await data.datasetName.innerText();
    // 20 kB of noise named .csv used to load as a 159-item dataset.
    let x = 0x2545f491;
    const noise = Buffer.alloc(20_000).map(() => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 24) & 0xff; });
    await data.fileInput.setInputFiles({ name: 'noise.csv', mimeType: 'text/csv', buffer: noise });
    await data.loadError.waitFor();
    assert.match(await data.loadError.innerText(), /noise\.csv: this is not a text file \(binary data/);
    assert.equal(await data.datasetName.innerText(), before, 'the open dataset stays');
    await data.fileInput.setInputFiles({ name: 'chart.csv', mimeType: 'text/csv', buffer: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') });
    await data.loadError.filter({ hasText: 'a PNG image' }).waitFor();

    // Temperatures "abc" and 3 were accepted silently.
    const judge = new JudgePage(page);
    await judge.open();
    // The suggested study's method is there from the start.
    const methods = await judge.methods.count();
    for (const [temperatures, said] of [['abc', /Temperatures: `abc` is not a number/], ['3', /Temperatures: 3 is outside what OpenAI accepts \(0 to 2\)/]]) {
      await page.getByLabel('Temperatures').fill(temperatures);
      await page.getByRole('button', { name: 'Add methods' }).click();
      assert.match(await page.getByTestId('add-methods-message').innerText(), said);
      assert.equal(await judge.methods.count(), methods, 'no method added');
    }
    await page.getByLabel('Samples N').fill('0');
    await page.getByLabel('Temperatures').fill('0.7');
    await page.getByRole('button', { name: 'Add methods' }).click();
    assert.match(await page.getByTestId('add-methods-message').innerText(), /Samples N: `0` is not a whole number from 1 to 100/);

    // The same meta-evaluation file twice (once renamed) is listed once.
    const meta = new MetaPage(page);
    await meta.openTab();
    const file = join(META_FIXTURES, 'mx_fixture_elo.jsonl');
    await meta.fileInput.setInputFiles(file);
    await meta.fileRows.first().waitFor();
    const { readFileSync } = await import('node:fs');
    await meta.fileInput.setInputFiles({ name: 'renamed.jsonl', mimeType: 'application/json', buffer: readFileSync(file) });
    await page.getByText('renamed.jsonl is already loaded (the same content as mx_fixture_elo.jsonl): skipped').waitFor();
    assert.equal(await meta.fileRows.count(), 1);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('Test connection names the cause: the page\'s policy, CORS, nothing listening', { skip: !CONCORD_SUBPATH_URL, timeout: 90_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await new DataPage(page).open(CONCORD_URL);
    const run = new RunPage(page);
    await run.open();
    const result = page.getByTestId('connection-result');
    let previous = '';
    const test = async (baseUrl) => {
      await run.connect({ provider: 'custom', baseUrl, model: 'm' });
      await page.getByRole('button', { name: 'Check this model' }).click();
      // Each address gets its own answer: wait for the text to change.
      await page.waitForFunction((before) => {
        const text = document.querySelector('[data-testid="connection-result"]')?.textContent;
        return text && text !== before;
      }, previous, { timeout: 30_000 });
      previous = await result.innerText();
      return previous;
    };
    // Plain http:// to another computer: the page's own policy refuses it.
    const blocked = await test('http://192.0.2.1:8000/v1');
    assert.match(blocked, /Content-Security-Policy refused/);
    assert.doesNotMatch(blocked, /CORS/);
    // A closed port on this computer: nothing listens.
    const closed = await test('http://127.0.0.1:59/v1');
    assert.match(closed, /Nothing answered at http:\/\/127\.0\.0\.1:59\/v1/);
    assert.doesNotMatch(closed, /CORS|Content-Security/);
    // A port the browser refuses (Chrome's ERR_UNSAFE_PORT), e.g. 6000: said as such (issue 36.13).
    const unsafe = await test('http://127.0.0.1:6000/v1');
    assert.match(unsafe, /refuses to connect to port 6000/);
    assert.match(unsafe, /another port/);
    assert.doesNotMatch(unsafe, /no server is listening/);
    // A server that answers but sends no CORS headers (the sub-path static server, another port).
    const cors = await test(new URL('v1', CONCORD_SUBPATH_URL).href);
    assert.match(cors, /does not let web pages from other sites read its answers \(CORS\)/);
  } finally {
    await browser.close();
  }
});

test('a resumed run that had a key asks for it before sending anything; the cost of an unpriced model is unknown', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    // The custom preset asks for no key, but this server checks one.
    await scenario({ reply: { mode: 'canned', text: 'Rating: 3' }, latency_ms: 400, require_key: 'sk-secret' });
    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'custom', baseUrl: `${MOCK_URL}/v1`, model: 'unpriced-model', key: 'sk-secret', concurrency: 1 });
    await run.run();
    await run.progress.waitFor();
    assert.match(await run.progress.innerText(), /cost unknown \(no price for this model\)/, 'not $0.0000');
    assert.doesNotMatch(await run.progress.innerText(), /\$0\.0000/);
    while (await chatCalls() < 2) await page.waitForTimeout(100);
    await page.reload();
    await run.open();
    await page.getByTestId('resume-panel').waitFor();
    const sent = await chatCalls();
    await page.getByRole('button', { name: 'Resume run' }).click();
    await run.error.filter({ hasText: 'Enter the API key below' }).waitFor();
    await page.waitForTimeout(1000);
    assert.equal(await chatCalls(), sent, 'nothing is sent without the key');
    // With the key given again, the run goes on from where it was.
    await page.getByLabel('API key').fill('sk-secret');
    await page.getByLabel('API key').dispatchEvent('change');
    await run.run();
    await run.finished.waitFor({ timeout: 60_000 });
    const log = (await (await fetch(`${MOCK_URL}/__mock/requests`)).json()).requests.filter((r) => r.path.endsWith('/chat/completions'));
    assert.deepEqual(log.filter((r) => r.outcome === 'unauthorized').map((r) => r.seq), [], 'no call went out without the key');
  } finally {
    await browser.close();
  }
});

test('Results say why a cell is blank and where its runs come from; a dataset of averages does not say 0 raters; plots read right', { timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await page.getByRole('button', { name: "Open a tiny model's recorded run" }).click();
    const results = new ResultsPage(page);
    await results.table.waitFor({ timeout: 60_000 });
    await page.getByTestId('bundle-source').filter({ hasText: 'Showing the bundle demo/example-bundle.json' }).waitFor();
    // A blank cell's note says why it is blank.
    const blank = (await results.cellDetails()).flat().find((c) => c.value === '–');
    assert.ok(blank, 'the demo has an undefined cell');
    assert.match(blank.title, /undefined: /, `why: ${blank.title}`);
    // Every plot of a cell reads right.
    await results.openCell(0);
    const checked = await checkPlots(page, 'a Results cell');
    assert.equal(checked, 3);

    // Runs imported after the bundle: the banner counts both.
    const root = join(import.meta.dirname, '../../../shared/data/A-Closer-Look-To-LLM-Evaluation');
    const { existsSync } = await import('node:fs');
    if (existsSync(root)) {
      await data.open(CONCORD_URL);
      await data.fileInput.setInputFiles(join(root, 'data/topical_chat.json'));
      await data.datasetName.filter({ hasText: 'topical_chat.json' }).waitFor({ timeout: 60_000 });
      // Topical-Chat ships averaged ratings: not "0 raters".
      assert.equal(await data.raterCount.innerText(), 'averaged');
    }
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('the meta-evaluation screen\'s plots read right: no overlapping text, round ticks, Elo as dots', { timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.goto(CONCORD_URL);
    const meta = new MetaPage(page);
    await meta.openTab();
    await meta.fileInput.setInputFiles(['merged_eval_results_judge-a_pairwise.jsonl', 'mx_fixture_elo.jsonl'].map((f) => join(META_FIXTURES, f)));
    await page.getByTestId('elo-status').filter({ hasText: /Computed in/ }).waitFor({ timeout: 60_000 });
    const checked = await checkPlots(page, 'the meta screen');
    assert.ok(checked >= 3, `heatmap, match distribution and the Elo ranking (${checked})`);
  } finally {
    await browser.close();
  }
});

test('the cache panel counts answers as the run stores them, without switching tabs', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await new DataPage(page).open(CONCORD_URL);
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await scenario({ reply: { mode: 'canned', text: 'Rating: 3' }, latency_ms: 150 });
    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'custom', baseUrl: `${MOCK_URL}/v1`, model: 'cache-count-model', concurrency: 1 });
    const info = page.getByTestId('cache-info');
    await info.filter({ hasText: /^0 stored answers/ }).waitFor();
    await run.run();
    await run.waitCounts((c) => c.done >= 4);
    await run.pause();
    // Counted while the run is paused, on the screen as it is: the panel and the progress line
    // agree once nothing is in flight.
    const agree = (least) => page.waitForFunction((least) => {
      const done = /^(\d+) of \d+ calls done, \d+ failed, 0 in flight/.exec(document.querySelector('[data-testid="progress"]')?.innerText ?? '');
      const stored = /^(\d+) stored answers? in this browser/.exec(document.querySelector('[data-testid="cache-info"]')?.textContent ?? '');
      return done && stored && done[1] === stored[1] && Number(done[1]) >= least && Number(done[1]);
    }, least, { timeout: 10_000 })
      .then((n) => n.jsonValue())
      .catch(async (e) => { throw new Error(`${e.message}: the panel says “${await info.innerText()}”; progress: ${await run.progress.innerText()}`); });
    assert.ok(await agree(4) < 30, 'counted while paused');
    await run.resume();
    const { total } = await run.waitCounts((c) => c.done === c.total);
    await run.finished.waitFor();
    assert.equal(await agree(total), total);
  } finally {
    await browser.close();
  }
});

/** The box of the first element matching `selector`, in CSS pixels. */
const box = (page, selector) => page.locator(selector).first().evaluate((el) => {
  const r = el.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, middle: (r.top + r.bottom) / 2, width: r.width };
});

for (const width of [1280, 375]) {
  test(`layout at ${width} px: the key box beside its label, the methods table's header on top with numbers aligned, room for evaluator models`, { timeout: 60_000 }, async () => {
    const browser = await launch();
    try {
      const page = await browser.context.newPage();
      await page.setViewportSize({ width, height: 900 });
      await new DataPage(page).open(CONCORD_URL);
      const run = new RunPage(page);
      await run.open();
      const label = await box(page, 'label[for="api-key"]');
      const key = await box(page, '#api-key');
      const model = await box(page, '#model');
      assert.ok(key.top >= model.bottom, `the key box is below the Model row (${JSON.stringify({ key, model })})`);
      assert.ok(Math.abs(key.middle - label.middle) < 12, `the key box is on its label's row (${JSON.stringify({ key, label })})`);
      assert.ok(key.left > label.right, 'right of its label');

      const judge = new JudgePage(page);
      await judge.open();
      await judge.addMethods({ modes: ['score-only', 'rate-explain'], n: 1, temperatures: '0.5, 1' });
      await judge.methods.first().waitFor();
      // The header stays above the first row, also with the page scrolled past the table's top.
      for (const past of [null, 20]) {
        if (past !== null) {
          await page.evaluate((past) => {
            const table = document.querySelector('[data-testid="methods"]');
            window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY + past);
          }, past);
        }
        const head = await box(page, '[data-testid="methods"] thead');
        const first = await box(page, '[data-testid="methods"] tbody tr');
        assert.ok(head.bottom <= first.top + 1, `the header is above the first row, scrolled ${past} (${JSON.stringify({ head, first })})`);
      }
      const wide = await page.evaluate(() => [...document.querySelectorAll('#screen-panel *')]
        .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1 && !el.closest('.table-wrap'))
        .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`).slice(0, 5));
      assert.deepEqual(wide, [], 'nothing on the Judge screen sticks out sideways');
      const aligned = await page.locator('[data-testid="methods"]').evaluate((table) => {
        const heads = [...table.querySelectorAll('thead th')];
        const cells = [...table.querySelector('tbody tr').children];
        return heads.map((th, i) => [th.textContent, getComputedStyle(th).textAlign, getComputedStyle(cells[i]).textAlign]);
      });
      for (const [name, th, td] of aligned.filter(([, , td]) => td === 'right')) {
        assert.equal(th, 'right', `the ${name} header is aligned with its numbers`);
      }
      assert.ok(aligned.filter(([, , td]) => td === 'right').length >= 3, JSON.stringify(aligned));

      const meta = new MetaPage(page);
      await meta.openTab();
      await meta.fileInput.setInputFiles(join(META_FIXTURES, 'mx_fixture_elo.jsonl'));
      await meta.fileRows.first().waitFor();
      const evaluators = await box(page, '#meta-evaluators');
      const panel = await box(page, 'section[aria-labelledby="meta-run-heading"]');
      assert.ok(evaluators.width >= Math.min(300, panel.width - 60), `Evaluator models is ${evaluators.width} px wide`);
      assert.ok(evaluators.right <= panel.right, `and stays inside its panel (${evaluators.right} > ${panel.right})`);
      const shots = join(import.meta.dirname, '../../target/e2e-shots');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(shots, { recursive: true });
      for (const [tab, name] of [['Run', 'run'], ['Judge', 'judge'], ['Pairwise & meta-evaluation', 'meta'], ['Data', 'data']]) {
        await page.getByRole('tab', { name: tab, exact: true }).click();
        await page.waitForTimeout(200);
        await page.screenshot({ path: join(shots, `layout-${name}-${width}.png`), fullPage: true });
      }
    } finally {
      await browser.close();
    }
  });
}
