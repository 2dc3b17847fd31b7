// Live runs from the meta-evaluation screen against the mock LLM, scripted with its `rules`
// reply mode: pairwise judging by two evaluator models with position swap (accuracy,
// consistency and position bias computed here independently), an MDEval debate of 3 rounds
// per pair (the debate viewer, Elo, the win-rate heatmap and the seed spread from its
// outcomes), a JDEval-i run (Table 5's cell) that a second run answers from the cache, and
// individual scoring of the pointwise file's texts (Table 8 prompt; Pearson joins Table 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL, MOCK_URL } from './browser.mjs';
import { withApp, storageDump } from './harness.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURES = resolve(ROOT, 'crates/core/tests/fixtures/meta');
const PAIRS_FILE = `${FIXTURES}/merged_eval_results_judge-a_pairwise.jsonl`;
const POINTWISE_FILE = `${FIXTURES}/merged_scores_judge-a_pointwise.jsonl`;

// The fixture's 7 pairs ("Question i?", "First answer i.", "Second answer i.") and their
// human labels: 1 = the first answer, 2 = the second, 0 = tie.
const LABELS = [1, 2, 0, 0, 1, 2, 1];
// Verdicts per pair as [shown in order, shown swapped], in the positions the judge saw.
// judge-x: right in order; with the answers swapped, consistent on pairs 0-3 and then always
// "1" (whatever is shown first). judge-y: always "1".
const swappedRight = (l) => (l === 0 ? 0 : 3 - l);
const VERDICTS = {
  'judge-x': LABELS.map((l, i) => [l, i < 4 ? swappedRight(l) : 1]),
  'judge-y': LABELS.map(() => [1, 1]),
};
// JDEval-i: the meta-evaluator's score of the evaluator's assessment of "Story number i.".
const JDEVAL_I_SCORES = [5, 4, 2, 3, 1];
const ELO = { k: 4, init: 1000, scale: 400 };
// Individual scoring of "Story number i." (human labels 1-5): judge-x answers these (the last
// has no <Rating>), judge-y always 3.
const SCORING = ['<Rating> 2 </Rating>', '<Rating>2</Rating>', '<Rating> 3 </Rating>', '<Explanation>fine</Explanation> <Rating> 5 </Rating>', 'no tag at all'];

/** Accuracy (ties a class; and gold ties excluded), consistency and position bias, as the
 * paper and the core define them, from the scripted verdicts. */
function expected(verdicts) {
  const n = LABELS.length;
  const right = verdicts.filter(([v], i) => v === LABELS[i]).length;
  const nonTie = LABELS.map((l, i) => [l, i]).filter(([l]) => l !== 0);
  const rightNonTie = nonTie.filter(([l, i]) => verdicts[i][0] === l).length;
  const back = (v) => (v === 0 ? 0 : 3 - v); // the swapped verdict in the original orientation
  const consistent = verdicts.filter(([a, b]) => back(b) === a).length;
  const first = verdicts.filter(([a, b]) => back(b) !== a && a === 1 && b === 1).length;
  const second = verdicts.filter(([a, b]) => back(b) !== a && a === 2 && b === 2).length;
  // STATS_SPEC §15.2: of the verdicts of both orders that name a winner, those naming the
  // answer shown first.
  const decided = verdicts.flat().filter((v) => v !== 0);
  return {
    accuracy: right / n,
    accuracyNoTies: rightNonTie / nonTie.length,
    consistency: consistent / n,
    positionBias: (first - second) / n,
    firstWins: decided.filter((v) => v === 1).length / decided.length,
  };
}

/** Elo of two players when the second wins every one of `games` matches (any order). */
function eloAllWins(games) {
  let a = ELO.init;
  let b = ELO.init;
  for (let g = 0; g < games; g += 1) {
    const ea = 1 / (1 + 10 ** ((b - a) / ELO.scale));
    a += ELO.k * (0 - ea);
    b += ELO.k * (1 - (1 - ea));
  }
  return [a, b];
}

const winner = (v) => `<Explanation>scripted</Explanation> <Winner>${v}</Winner>`;

function scenario() {
  const rules = [];
  for (const [model, verdicts] of Object.entries(VERDICTS)) {
    verdicts.forEach(([ab, ba], i) => {
      rules.push({ model, contains: `assistant 1:\nFirst answer ${i}.`, reply: winner(ab) });
      rules.push({ model, contains: `assistant 1:\nSecond answer ${i}.`, reply: winner(ba) });
    });
  }
  // Table 8's prompt ends "Here is the story: <text> Please output…"; JDEval-i's has a newline.
  SCORING.forEach((reply, i) => {
    rules.push({ model: 'judge-x', contains: `Here is the story: Story number ${i}.`, reply });
    rules.push({ model: 'judge-y', contains: `Here is the story: Story number ${i}.`, reply: '<Rating> 3 </Rating>' });
  });
  // MDEval: the debaters answer; the judge asks three questions, then picks Assistant2.
  rules.push({ contains: 'You are Assistant1', reply: 'Assistant1: my verdict follows the question.' });
  rules.push({ contains: 'You are Assistant2', reply: 'Assistant2: my verdict is the careful one.' });
  rules.push({ contains: 'Round 3\nJudge', reply: '<Reasoning_for_choosing_better_assistant>Assistant2 answered every question.</Reasoning_for_choosing_better_assistant>\n<Better_assistant>Assistant2</Better_assistant>' });
  rules.push({ contains: 'Round 2\nJudge', reply: '<Question>Third question: which answer is longer?</Question>' });
  rules.push({ contains: 'Round 1\nJudge', reply: '<Question>Second question: any factual error?</Question>' });
  rules.push({ contains: '(no debate yet)', reply: '<Question>First question: why that winner?</Question>' });
  JDEVAL_I_SCORES.forEach((s, i) => {
    rules.push({
      contains: `Story number ${i}.`,
      reply: `<Score_for_story>3</Score_for_story>\n<Reasoning_for_scoring_Assistant>scripted</Reasoning_for_scoring_Assistant>\n<Score_for_Assistant>${s}</Score_for_Assistant>`,
    });
  });
  return { reply: { mode: 'rules', rules, default: 'unscripted prompt' } };
}

async function mock(path, body) {
  const res = await fetch(`${MOCK_URL}${path}`, { method: body === undefined ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body) });
  assert.equal(res.status, 200, `${path} answers`);
  return res.json().catch(() => null);
}

function close(actual, want, what, tolerance = 1e-12) {
  assert.ok(actual !== null && Math.abs(actual - want) <= tolerance, `${what}: ${actual} vs ${want}`);
}

test('pairwise judging, MDEval, JDEval-i and Elo from live runs (mock LLM)', { skip: !MOCK_URL && 'MOCK_URL is not set', timeout: 300_000 }, async () => {
  await mock('/__mock/scenario', scenario());
  await mock('/__mock/reset', {});
  await withApp({ url: null }, async (app) => {
    const { page, meta } = app;
    await page.goto(CONCORD_URL);
    await app.connectMock({ model: 'judge-x', key: 'sk-meta-test' });
    await meta.openTab();
    await meta.loadFiles([PAIRS_FILE, POINTWISE_FILE]);

    // Pairwise judging by two evaluators, both orders.
    await meta.runPairwise({ evaluators: ['judge-x', 'judge-y'], pairs: 7, swap: true });
    for (const [name, verdicts] of Object.entries(VERDICTS)) {
      const want = expected(verdicts);
      close(await meta.value('pairwise-run', `${name}/accuracy`), want.accuracy, `${name} accuracy`);
      close(await meta.value('pairwise-run', `${name}/accuracy_no_ties`), want.accuracyNoTies, `${name} accuracy without ties`);
      close(await meta.value('pairwise-run', `${name}/consistency`), want.consistency, `${name} consistency`);
      close(await meta.value('pairwise-run', `${name}/position_bias`), want.positionBias, `${name} position bias`);
      // The order probe's P(first shown wins), with a Wilson interval around it.
      const first = (await meta.cells('pairwise-run'))[`${name}/first_wins`];
      close(first.value, want.firstWins, `${name} first shown wins`);
      assert.ok(first.low <= want.firstWins && want.firstWins <= first.high && first.low < first.high, `${name}: ${JSON.stringify(first)}`);
    }
    // judge-y picks the first slot every time: its interval excludes an unbiased 0.5.
    assert.ok((await meta.cells('pairwise-run'))['judge-y/first_wins'].low > 0.5);
    // 2 evaluators × 7 pairs × 2 orders.
    let log = await mock('/__mock/requests');
    assert.equal(log.summary.answered_ok, 28);

    // MDEval over the one couple of evaluators on each pair: 3 question rounds, then a decision.
    await meta.runMeta({ model: 'meta-judge', protocol: 'mdeval', rounds: 3, done: /MDEval finished: 7 debates/ });
    log = await mock('/__mock/requests');
    // Per debate: 4 judge calls and 2 debaters × 3 rounds.
    assert.equal(log.summary.answered_ok, 28 + 7 * 10);
    await meta.selectDebateFile('MDEval');
    assert.equal(await meta.debateRounds.count(), 3);
    const debate = await meta.debate.textContent();
    assert.match(debate, /Judge: First question: why that winner\?/);
    assert.match(debate, /Judge: Third question: which answer is longer\?/);
    assert.match(debate, /Assistant 2 \(judge-y\)/);
    assert.match(debate, /Assistant2: my verdict is the careful one\./);
    assert.match(await meta.debateVerdict.textContent(), /Better assessor: judge-y/);

    // Elo, heatmap and seed spread from the debates: judge-y (Assistant2) won all 7 matches,
    // so every order gives the same ratings.
    await meta.waitElo(30_000);
    const [x, y] = eloAllWins(7);
    close(await meta.value('elo', 'meta-judge · MDEval/judge-x'), x, 'Elo judge-x', 1e-9);
    close(await meta.value('elo', 'meta-judge · MDEval/judge-y'), y, 'Elo judge-y', 1e-9);
    assert.equal(await meta.heatmapCellCount(), 4);
    assert.equal(await meta.heatmapCellCount('judge-y vs judge-x: 1.00'), 1);
    assert.equal(await meta.heatmapCellCount('judge-x vs judge-y: 0.00'), 1);
    assert.equal(await meta.eloDots(), 2, 'a dot per evaluator');
    await meta.spreadSeeds(3);
    close(await meta.value('elo-seeds', 'meta-judge · MDEval/judge-y/mean'), y, 'seed mean', 1e-9);
    close(await meta.value('elo-seeds', 'meta-judge · MDEval/judge-y/seed_sd'), 0, 'seed SD', 1e-9);

    // JDEval-i over the evaluator's 5 assessments of the pointwise file: Table 5's cell.
    await meta.runMeta({ model: 'meta-judge', protocol: 'jdeval-i', items: 5, done: /JDEval-i finished: 5 assessments; 0 calls answered from the cache/ });
    const mean = JDEVAL_I_SCORES.reduce((a, b) => a + b, 0) / JDEVAL_I_SCORES.length;
    close(await meta.value('table5', 'meta-judge/judge-a'), mean, 'JDEval-i mean');
    log = await mock('/__mock/requests');
    const before = log.summary.answered_ok;
    assert.equal(before, 28 + 70 + 5);
    // Run again: every answer comes from the cache, nothing is sent.
    await meta.runMeta({ model: 'meta-judge', protocol: 'jdeval-i', items: 5, done: /JDEval-i finished: 5 assessments; 5 calls answered from the cache/ });
    log = await mock('/__mock/requests');
    assert.equal(log.summary.total, before);
    // The mock names a sample by its messages and model (xtask/src/mock_llm.rs): the 7 pairs ×
    // 2 orders asked of both evaluator models are different samples, and nothing was asked of
    // the same model twice.
    assert.deepEqual(log.summary.duplicate_successes, []);
    close(await meta.value('table5', 'meta-judge/judge-a'), mean, 'JDEval-i mean after the cached run');

    // Individual scoring of the pointwise file's 5 texts by both evaluators: Pearson with the
    // human labels (1, 2, 3, 4) against judge-x's (2, 2, 3, 5) is 5 / sqrt(5 · 6), by hand;
    // judge-y's constant scores leave it undefined.
    await meta.runScoring({ evaluators: ['judge-x', 'judge-y'], source: 'pointwise', texts: 5 });
    close(await meta.value('scoring-run', 'judge-x/pearson'), 5 / Math.sqrt(30), 'judge-x Pearson');
    assert.equal(await meta.cell('scoring-run', 'judge-x/n').textContent(), '4');
    assert.equal(await meta.cell('scoring-run', 'judge-x/unreadable').textContent(), '1');
    assert.equal(await meta.value('scoring-run', 'judge-y/pearson'), null, 'constant scores: undefined');
    close(await meta.value('table1', 'judge-x/pearson'), 5 / Math.sqrt(30), 'judge-x Pearson in Table 1');
    log = await mock('/__mock/requests');
    assert.equal(log.summary.total, before + 10, '2 evaluators × 5 texts');

    if (process.env.CONCORD_SCREENSHOTS) {
      await meta.debate.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/meta-run.png`, fullPage: false });
    }
  });
});

test('evaluators named with their own provider or address use its connection and key (mock LLM)', { skip: !MOCK_URL && 'MOCK_URL is not set', timeout: 180_000 }, async () => {
  const KEY = 'sk-other-provider-7f3a';
  // The mock accepts only KEY: the Run screen's own key would be refused (401).
  await mock('/__mock/scenario', { ...scenario(), require_key: KEY });
  await mock('/__mock/reset', {});
  await withApp({ url: null }, async (app) => {
    const { page, meta } = app;
    const consoleText = [];
    page.on('console', (m) => consoleText.push(m.text()));
    await page.goto(CONCORD_URL);
    await app.connectMock({ model: 'judge-x', key: 'sk-run-screen-wrong' });
    await meta.openTab();
    await meta.loadFiles([PAIRS_FILE]);

    // judge-x through Anthropic's Messages API at the mock's /v1, judge-y through an
    // OpenAI-compatible server at the mock's root (no /v1).
    const evaluators = [`judge-x @ anthropic ${MOCK_URL}/v1`, `judge-y @ ${MOCK_URL}`];
    await meta.evaluatorModels.fill(evaluators.join(', '));
    assert.deepEqual(await meta.keyLabels(), ['API key for Anthropic', 'API key for Other OpenAI-compatible server']);
    // Without Anthropic's key nothing is sent, and the screen says which key is missing.
    await meta.pairsField.fill('3');
    await meta.positionSwap.uncheck();
    await meta.clickRunPairwise();
    await meta.said(/is served by Anthropic: give its API key/).waitFor();
    assert.equal((await mock('/__mock/requests')).summary.total, 0);

    await meta.keyField('API key for Anthropic').fill(KEY);
    await meta.keyField('API key for Other OpenAI-compatible server').fill(KEY);
    await meta.runPairwise({ evaluators, pairs: 3, swap: false });
    for (const [entry, name] of [[evaluators[0], 'judge-x'], [evaluators[1], 'judge-y']]) {
      const verdicts = VERDICTS[name].slice(0, 3);
      const right = verdicts.filter(([v], i) => v === LABELS[i]).length;
      close(await meta.value('pairwise-run', `${entry}/accuracy`), right / 3, `${entry} accuracy`);
    }
    const log = await mock('/__mock/requests');
    assert.equal(log.summary.answered_ok, 6, 'every call answered: each went with the key given for its provider');
    const paths = log.requests.map((r) => r.path).sort();
    assert.deepEqual(paths, ['/chat/completions', '/chat/completions', '/chat/completions', '/v1/messages', '/v1/messages', '/v1/messages']);
    // The keys typed here live in memory only.
    const stored = await storageDump(page);
    assert.ok(!stored.includes(KEY), 'the other providers\' key is not in localStorage or IndexedDB');
    assert.ok(!consoleText.join('\n').includes(KEY), 'nor in the console');
    assert.ok(!page.url().includes(KEY));
  });
});
