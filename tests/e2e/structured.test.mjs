// Structured output against the mock: a "+json" method sends the mode's JSON schema (OpenAI's
// response_format; Anthropic a forced tool), the answers are JSON read by the json parser, and
// the ratings are exactly the ones the same judge writes as text; the bundle carries the
// method so `concord report` prints the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL } from './browser.mjs';
import { withApp, cli } from './harness.mjs';
import { GRADED } from './fixtures.mjs';

/** The cells of the results CSV's row `method` after its name (values, n and notes). */
function cells(csv, method) {
  const line = csv.split('\n').find((l) => l.startsWith(`${method},`));
  assert.ok(line, `no row ${method} in\n${csv}`);
  return line.slice(method.length + 1);
}

test('a +json method asks for the schema and reads the same ratings from JSON, with OpenAI-style and Anthropic APIs', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  await withApp({ data: GRADED, scenario: { reply: { mode: 'echo_rating', marker: 'RATING=' } } }, async (app) => {
    const { judge, run, results } = app;
    const dir = app.tempDir('concord-json-');
    await judge.open();
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });
    await judge.structured.check();
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });
    await judge.method('rate-explain +json').waitFor();
    assert.match(await judge.methodsTable.innerText(), /rate-explain \+json\s+1\s+1\s+default\s+json/);

    for (const provider of ['vllm', 'anthropic']) {
      await app.connectMock({ provider, model: `mock-${provider}`, key: 'sk-json' });
      await run.run();
      assert.match(await run.waitFinished(), /Run complete/);
      await results.open();
      await results.openParseFailures();
      await results.waitParseFailure('rate-explain +json/coherence/unparseable', '0');
      const csv = await results.exportTable('concord-results');
      // The same planted ratings, read from JSON instead of "Rating: n".
      assert.equal(cells(csv, 'rate-explain +json'), cells(csv, 'rate-explain'), provider);
    }

    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const method = saved.study.methods.find((m) => m.name === 'rate-explain +json');
    assert.equal(method.structured, true);
    assert.equal(method.policy, 'json');
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(await results.exportTable('concord-results'), readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));
  });
});
