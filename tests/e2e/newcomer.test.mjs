// A newcomer's first hour (issue 24), one check per defect a new user met: bad input refused
// with the open dataset kept, connection errors that name their cause, a resumed run that asks
// for the key it had, Results that say why a cell is blank and where the runs come from, costs
// said unknown when they are, plain words, and every plot's text readable (no overlap, round
// and increasing ticks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CONCORD_URL, CONCORD_SUBPATH_URL, MOCK_URL, mockRequests, setScenario as scenario } from './browser.mjs';
import { withApp, box } from './harness.mjs';

const META_FIXTURES = join(import.meta.dirname, '../../crates/core/tests/fixtures/meta');

const chatCalls = async () => (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions')).length;

/**
 * Every text of every plot on the page: no two overlap (their boxes as drawn), and each axis'
 * tick labels are distinct, increasing and round (at most two significant decimals' worth).
 */
async function checkPlots(screens, where) {
  const plots = await screens.plotTexts();
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
  await withApp({}, async ({ data, judge, meta }) => {
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
    await judge.open();
    // The suggested study's method is there from the start.
    const methods = await judge.methods.count();
    for (const [temperatures, said] of [['abc', /Temperatures: `abc` is not a number/], ['3', /Temperatures: 3 is outside what OpenAI accepts \(0 to 2\)/]]) {
      await judge.temperatures.fill(temperatures);
      await judge.clickAdd();
      assert.match(await judge.addMessage.innerText(), said);
      assert.equal(await judge.methods.count(), methods, 'no method added');
    }
    await judge.samples.fill('0');
    await judge.temperatures.fill('0.7');
    await judge.clickAdd();
    assert.match(await judge.addMessage.innerText(), /Samples N: `0` is not a whole number from 1 to 100/);

    // The same meta-evaluation file twice (once renamed) is listed once.
    await meta.openTab();
    const file = join(META_FIXTURES, 'mx_fixture_elo.jsonl');
    await meta.fileInput.setInputFiles(file);
    await meta.fileRows.first().waitFor();
    const { readFileSync } = await import('node:fs');
    await meta.fileInput.setInputFiles({ name: 'renamed.jsonl', mimeType: 'application/json', buffer: readFileSync(file) });
    await meta.said('renamed.jsonl is already loaded (the same content as mx_fixture_elo.jsonl): skipped').waitFor();
    assert.equal(await meta.fileRows.count(), 1);
  });
});

test('Test connection names the cause: the page\'s policy, CORS, nothing listening', { skip: !CONCORD_SUBPATH_URL, timeout: 90_000 }, async () => {
  await withApp({ problems: 'allowed' }, async ({ run }) => {
    await run.open();
    let previous = '';
    const test = async (baseUrl) => {
      await run.connect({ provider: 'custom', baseUrl, model: 'm' });
      // Each address gets its own answer: wait for the text to change.
      previous = await run.checkModelAgain(previous);
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
  });
});

test('a resumed run that had a key asks for it before sending anything; the cost of an unpriced model is unknown', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  await withApp({ problems: 'allowed' }, async (app) => {
    const { page, judge, run } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    // The custom preset asks for no key, but this server checks one.
    await scenario({ reply: { mode: 'canned', text: 'Rating: 3' }, latency_ms: 400, require_key: 'sk-secret' });
    await app.connectMock({ provider: 'custom', model: 'unpriced-model', key: 'sk-secret', concurrency: 1 });
    await run.run();
    await run.progress.waitFor();
    assert.match(await run.progress.innerText(), /cost unknown \(no price for this model\)/, 'not $0.0000');
    assert.doesNotMatch(await run.progress.innerText(), /\$0\.0000/);
    while (await chatCalls() < 2) await page.waitForTimeout(100);
    await page.reload();
    await run.open();
    await run.resumePanel.waitFor();
    const sent = await chatCalls();
    await run.resumeRun();
    await run.errorWith('Enter the API key below').waitFor();
    await page.waitForTimeout(1000);
    assert.equal(await chatCalls(), sent, 'nothing is sent without the key');
    // With the key given again, the run goes on from where it was.
    await run.setKey('sk-secret');
    await run.run();
    await run.finished.waitFor({ timeout: 60_000 });
    const log = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions'));
    assert.deepEqual(log.filter((r) => r.outcome === 'unauthorized').map((r) => r.seq), [], 'no call went out without the key');
  });
});

test('Results say why a cell is blank and where its runs come from; a dataset of averages does not say 0 raters; plots read right', { timeout: 120_000 }, async () => {
  await withApp({}, async ({ data, results, screens }) => {
    await data.openDemoRun();
    await results.table.waitFor({ timeout: 60_000 });
    await results.bundleSource('Showing the bundle demo/example-bundle.json').waitFor();
    // A blank cell's note says why it is blank.
    const blank = (await results.cellDetails()).flat().find((c) => c.value === '–');
    assert.ok(blank, 'the demo has an undefined cell');
    assert.match(blank.title, /undefined: /, `why: ${blank.title}`);
    // Every plot of a cell reads right.
    await results.openCell(0);
    const checked = await checkPlots(screens, 'a Results cell');
    assert.equal(checked, 3);

    // Runs imported after the bundle: the banner counts both.
    const root = join(import.meta.dirname, '../../../shared/data/A-Closer-Look-To-LLM-Evaluation');
    const { existsSync } = await import('node:fs');
    if (existsSync(root)) {
      await data.open(CONCORD_URL);
      await data.fileInput.setInputFiles(join(root, 'data/topical_chat.json'));
      await data.named('topical_chat.json').waitFor({ timeout: 60_000 });
      // Topical-Chat ships averaged ratings: not "0 raters".
      assert.equal(await data.raterCount.innerText(), 'averaged');
    }
  });
});

test('the meta-evaluation screen\'s plots read right: no overlapping text, round ticks, Elo as dots', { timeout: 120_000 }, async () => {
  await withApp({ url: null, problems: 'allowed' }, async ({ page, meta, screens }) => {
    await page.goto(CONCORD_URL);
    await meta.openTab();
    await meta.fileInput.setInputFiles(['merged_eval_results_judge-a_pairwise.jsonl', 'mx_fixture_elo.jsonl'].map((f) => join(META_FIXTURES, f)));
    await meta.waitElo(60_000);
    const checked = await checkPlots(screens, 'the meta screen');
    assert.ok(checked >= 3, `heatmap, match distribution and the Elo ranking (${checked})`);
  });
});

test('the cache panel counts answers as the run stores them, without switching tabs', { skip: !MOCK_URL, timeout: 120_000 }, async () => {
  await withApp({ problems: 'allowed' }, async (app) => {
    const { judge, run } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await scenario({ reply: { mode: 'canned', text: 'Rating: 3' }, latency_ms: 150 });
    await app.connectMock({ provider: 'custom', model: 'cache-count-model', concurrency: 1 });
    const info = run.cacheInfoPanel;
    await run.cacheInfo(/^0 stored answers/).waitFor();
    await run.run();
    await run.waitCounts((c) => c.done >= 4);
    await run.pause();
    // Counted while the run is paused, on the screen as it is: the panel and the progress line
    // agree once nothing is in flight.
    const agree = (least) => run.waitCacheAgrees(least)
      .catch(async (e) => { throw new Error(`${e.message}: the panel says “${await info.innerText()}”; progress: ${await run.progress.innerText()}`); });
    assert.ok(await agree(4) < 30, 'counted while paused');
    await run.resume();
    const { total } = await run.waitCounts((c) => c.done === c.total);
    await run.finished.waitFor();
    assert.equal(await agree(total), total);
  });
});

for (const width of [1280, 375]) {
  test(`layout at ${width} px: the key box beside its label, the methods table's header on top with numbers aligned, room for evaluator models`, { timeout: 60_000 }, async () => {
    await withApp({ viewport: { width, height: 900 }, problems: 'allowed' }, async ({ page, run, judge, meta, screens }) => {
      await run.open();
      const label = await box(run.apiKeyLabel);
      const key = await box(run.apiKey);
      const model = await box(run.model);
      assert.ok(key.top >= model.bottom, `the key box is below the Model row (${JSON.stringify({ key, model })})`);
      assert.ok(Math.abs(key.middle - label.middle) < 12, `the key box is on its label's row (${JSON.stringify({ key, label })})`);
      assert.ok(key.left > label.right, 'right of its label');

      await judge.open();
      await judge.addMethods({ modes: ['score-only', 'rate-explain'], n: 1, temperatures: '0.5, 1' });
      await judge.methods.first().waitFor();
      // The header stays above the first row, also with the page scrolled past the table's top.
      for (const past of [null, 20]) {
        if (past !== null) await judge.scrollPastMethods(past);
        const head = await box(judge.methodsHead);
        const first = await box(judge.methodsFirstRow);
        assert.ok(head.bottom <= first.top + 1, `the header is above the first row, scrolled ${past} (${JSON.stringify({ head, first })})`);
      }
      const wide = await screens.overflowing();
      assert.deepEqual(wide, [], 'nothing on the Judge screen sticks out sideways');
      const aligned = await judge.methodsAlignment();
      for (const [name, th, td] of aligned.filter(([, , td]) => td === 'right')) {
        assert.equal(th, 'right', `the ${name} header is aligned with its numbers`);
      }
      assert.ok(aligned.filter(([, , td]) => td === 'right').length >= 3, JSON.stringify(aligned));

      await meta.openTab();
      await meta.fileInput.setInputFiles(join(META_FIXTURES, 'mx_fixture_elo.jsonl'));
      await meta.fileRows.first().waitFor();
      const evaluators = await box(meta.evaluatorsInput);
      const panel = await box(meta.runPanel);
      assert.ok(evaluators.width >= Math.min(300, panel.width - 60), `Evaluator models is ${evaluators.width} px wide`);
      assert.ok(evaluators.right <= panel.right, `and stays inside its panel (${evaluators.right} > ${panel.right})`);
      const shots = join(import.meta.dirname, '../../target/e2e-shots');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(shots, { recursive: true });
      for (const [tab, name] of [['Run', 'run'], ['Judge', 'judge'], ['Pairwise & meta-evaluation', 'meta'], ['Data', 'data']]) {
        await screens.tab(tab).click();
        await page.waitForTimeout(200);
        await page.screenshot({ path: join(shots, `layout-${name}-${width}.png`), fullPage: true });
      }
    });
  });
}
