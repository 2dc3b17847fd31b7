// G-Eval's probability-weighted score end to end against the mock (which returns top
// log-probabilities peaked at its rating): a "+weighted" method asks for them, every sample is
// scored Σ p(s)·s at its rating's token, the Results say how many samples were weighted, the
// bundle carries the log-probabilities so `concord report` prints the same tables; a provider
// without log-probabilities is named before the run, and samples that come without them are
// counted as not weighted and left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL, setScenario } from './browser.mjs';
import { withApp, cli, shootThemes } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

/** The correlations (r and τ of each attribute) of the results CSV's row `method`. */
function row(csv, method) {
  const line = csv.split('\n').find((l) => l.startsWith(`${method},`));
  assert.ok(line, `no row ${method} in\n${csv}`);
  const cells = line.match(/("[^"]*"|[^,]*)(,|$)/g).map((c) => c.replace(/,$/, ''));
  // Method, then per attribute and statistic: value, n, note.
  return cells.slice(1, 13).filter((_, i) => i % 3 === 0).map(Number);
}

test('probability-weighted scores are weighted at the rating, counted, carried by the bundle, and said when impossible', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  // The browser logs the mock's refusals of logprobs (400) itself.
  const scenario = { template: 'Summary 2 of the set. Rating: {rating}' };
  await withApp({ data: GRADED, scenario, ignore: /status of 400/ }, async (app) => {
    const { judge, run, results } = app;
    const dir = app.tempDir('concord-weighted-');
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await judge.weighted.check();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await judge.method('score-only +weighted').waitFor();
    // The Run screen's provider (OpenAI by default) returns log-probabilities: no warning.
    assert.equal(await judge.noLogprobs.count(), 0);

    // Anthropic returns none: said before anything is sent.
    await app.connectMock({ provider: 'anthropic', key: 'sk-w' });
    assert.match(await run.noLogprobs.innerText(), /Anthropic returns no log-probabilities for mock-model/);
    if (process.env.CONCORD_SCREENSHOTS) {
      await judge.open();
      await shootThemes(judge.addPanel, 'judge-weighted');
      await run.open();
    }
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-w' });
    assert.equal(await run.noLogprobs.count(), 0);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    await results.open();
    await results.openParseFailures();
    for (const attribute of ['coherence', 'fluency']) {
      assert.equal(await results.parseFailure(`score-only +weighted/${attribute}/weighted`), '30');
      assert.equal(await results.parseFailure(`score-only +weighted/${attribute}/not_weighted`), '0');
    }
    const csv = await results.exportTable('concord-results');
    // Weighted at "Rating: n", not at the "2" earlier in the answer: the scores follow the
    // ratings (the plain ones correlate with the humans), so the correlations are close but
    // not equal (weighting moves every score off the integer).
    const plain = row(csv, 'score-only');
    const weighted = row(csv, 'score-only +weighted');
    assert.equal(plain.length, 4);
    assert.notDeepEqual(weighted, plain);
    for (let i = 0; i < plain.length; i++) {
      assert.ok(Number.isFinite(plain[i]) && Math.abs(weighted[i] - plain[i]) < 0.25, `column ${i}: ${weighted[i]} vs ${plain[i]}`);
    }
    assert.match(csv, /probability-weighted: 30 of 30 samples weighted by their log-probabilities, 0 could not be \(left out\)/);

    // The bundle carries each sample's log-probabilities: the CLI recomputes the same tables.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const w = saved.runs.find((r) => r.method === 'score-only +weighted');
    assert.equal(w.weighting, 'drop');
    assert.ok(w.run.records.every((r) => r.logprobs.length === 1 && r.logprobs[0].length >= 1));
    assert.ok(saved.runs.find((r) => r.method === 'score-only').run.records.every((r) => r.logprobs.length === 0));
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(csv, readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));
    assert.equal(await results.exportTable('parse-failures'), readFileSync(join(dir, 'cli', 'parse-failures.csv'), 'utf8'));

    // A server that refuses logprobs: the run drops the parameter, no sample can be weighted,
    // and the weighted method says so instead of passing plain ratings off as weighted.
    await setScenario({ ...scenario, reject_params: ['logprobs'] });
    await run.open();
    await run.setModel('mock-no-logprobs');
    await run.run();
    assert.match(await run.waitFinished(), /Parameters the API rejected and the run dropped: logprobs/);
    await results.open();
    await results.openParseFailures();
    // The table is read again in the background after the run.
    await results.waitParseFailure('score-only +weighted/coherence/weighted', '0');
    assert.equal(await results.parseFailure('score-only +weighted/coherence/not_weighted'), '30');
    assert.match(await results.parseFailuresFigure.innerText(), /60 samples with a rating could not be weighted by their log-probabilities/);
  });
});
