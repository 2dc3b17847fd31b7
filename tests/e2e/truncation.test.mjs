// Truncation is visible: a provider that stops an answer at the method's Max tokens
// (finish_reason "length") leaves a sample the Results screen counts apart from answers that
// ended without a rating, marks in the item's responses, and the bundle carries (so
// `concord report` prints the same parse-failure table).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MOCK_URL } from './browser.mjs';
import { withApp, cli } from './harness.mjs';
// 104 characters (26 tokens at the mock's 4 characters a token) before the rating.
const PREAMBLE = 'Let me weigh the summary sentence by sentence, and compare each claim with the article before deciding.';

test('answers cut at the token limit are counted apart, marked, and carried by the bundle', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  await withApp({ scenario: { template: `${PREAMBLE} Rating: {rating}`, cut_at_max_tokens: true } }, async (app) => {
    const { judge, run, results } = app;
    const dir = app.tempDir('concord-cut-');
    await judge.open();
    // score-only with 16 tokens: cut before its rating; rate-explain with 256: whole.
    await judge.setMaxTokens(16);
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await judge.setMaxTokens(256);
    await judge.addMethods({ modes: ['rate-explain'], n: 1 });

    await app.connectMock({ key: 'sk-cut' });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    await results.open();
    await results.toggleParseFailures();
    const cell = (key) => results.parseFailure(key);
    for (const attribute of ['coherence', 'fluency']) {
      assert.equal(await cell(`score-only/${attribute}/unparseable`), '15');
      assert.equal(await cell(`score-only/${attribute}/cut_off_failures`), '15');
      assert.equal(await cell(`score-only/${attribute}/complete_failures`), '0');
      assert.equal(await cell(`rate-explain/${attribute}/cut_off`), '0');
      assert.equal(await cell(`rate-explain/${attribute}/unparseable`), '0');
    }
    assert.match(await results.parseFailuresFigure.innerText(), /30 samples were cut off at the token limit: raise Max tokens on the Judge screen/);

    // The item's responses say which one was cut.
    await results.showFirstCellItem('row1');
    const detail = results.itemDetail;
    await results.itemSays('cut off at the token limit').waitFor();
    assert.match(await detail.innerText(), /unparseable: no rating found in the response/);

    // The bundle carries the marks: `concord report` prints the same table.
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const scoreOnly = saved.runs.find((r) => r.method === 'score-only');
    assert.ok(scoreOnly.run.records.every((r) => r.cut_off.length === 1 && r.cut_off[0] === 0));
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(await results.exportTable('parse-failures'), readFileSync(join(dir, 'cli', 'parse-failures.csv'), 'utf8'));
  });
});
