// Structured output against the mock: a "+json" method sends the mode's JSON schema (OpenAI's
// response_format; Anthropic a forced tool), the answers are JSON read by the json parser, and
// the ratings are exactly the ones the same judge writes as text; the bundle carries the
// method so `concord report` prints the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');

/** The cells of the results CSV's row `method` after its name (values, n and notes). */
function cells(csv, method) {
  const line = csv.split('\n').find((l) => l.startsWith(`${method},`));
  assert.ok(line, `no row ${method} in\n${csv}`);
  return line.slice(method.length + 1);
}

test('a +json method asks for the schema and reads the same ratings from JSON, with OpenAI-style and Anthropic APIs', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'concord-json-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await data.loadFile('graded.csv', gradedCsv());
    await setScenario({ reply: { mode: 'echo_rating', marker: 'RATING=' } });
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });
    await page.getByTestId('structured').check();
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });
    await page.getByTestId('methods').getByText('rate-explain +json').waitFor();
    assert.match(await page.getByTestId('methods').innerText(), /rate-explain \+json\s+1\s+1\s+default\s+json/);

    const run = new RunPage(page);
    const results = new ResultsPage(page);
    for (const provider of ['vllm', 'anthropic']) {
      await run.open();
      await run.connect({ provider, baseUrl: `${MOCK_URL}/v1`, model: `mock-${provider}`, key: 'sk-json' });
      await run.run();
      assert.match(await run.waitFinished(), /Run complete/);
      await results.open();
      await page.locator('details', { hasText: 'Parse failures' }).first().evaluate((d) => { d.open = true; });
      await page.waitForFunction(() => document.querySelector('table[data-table="parse-failures"] td[data-cell="rate-explain +json/coherence/unparseable"]')?.innerText === '0');
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
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(await results.exportTable('concord-results'), readFileSync(join(dir, 'cli', 'concord-results.csv'), 'utf8'));
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
