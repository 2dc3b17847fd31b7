// Can the judge replace the annotators, and where can it be trusted (issue 38), in the browser:
// - a planted study on the mock (200 items, four annotators — three careful, one guessing —
//   and a judge whose five samples echo the planted rating, are noisy where the output says
//   UNSURE, and confidently wrong on a few items): the panel's per-annotator verdicts are the
//   expected ones (the judge beats the guesser, not the careful annotators), the selective-trust
//   guarantee holds on the held-out half (agreement ≥ 1 − α on the trusted items, which
//   trusting everything would not give), and every table and figure of the panel is exported
//   as `concord report --screen validity` prints it from the exported bundle;
// - AltTest folders (wax, one file then the other; summeval, both at once) open on the Data
//   screen with their annotators and LLMs, and the panel's alt-test tables are `concord
//   alt-test`'s on the same folder;
// - a classroom exercise with the students as the annotators: three students rate, and the
//   class view's alt-test tables give the expected verdicts and equal `concord class`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL, setScenario, mockTotal } from './browser.mjs';
import { missingShared } from './fixtures.mjs';
import { ROOT, withApp, cli as concord, shootThemes } from './harness.mjs';
const ALTTEST = join(ROOT, '../shared/data/AltTest/data');
const ITEMS = 200;
const SAMPLES = 5;

/** The humans' rating of item i (1–5). */
const truth = (i) => 1 + ((i * 7) % 5);
/** The items the judge is confidently wrong on (it echoes a wrong rating). */
const wrong = (i) => i % 50 === 0;
/** The items whose samples are noise (the mock's `noisy_when`). */
const unsure = (i) => !wrong(i) && i % 3 === 1;
/** The guessing annotator. */
const guess = (i) => 1 + ((i * 3 + 1) % 5);

/** The planted study: four annotators of quality (r1, r2, r4 careful — r2 off by one on two
 * items — r3 guessing) and the aggregate (the truth); each output carries the rating the mock
 * echoes, or UNSURE. */
function plantedCsv() {
  const rows = ['doc,sys,source,output,quality,quality_r1,quality_r2,quality_r3,quality_r4'];
  for (let i = 0; i < ITEMS; i++) {
    const t = truth(i);
    const said = unsure(i) ? 'UNSURE' : `RATING=${wrong(i) ? (t % 5) + 1 : t}`;
    const r2 = i === 5 || i === 77 ? (t % 5) + 1 : t;
    rows.push(`d${Math.floor(i / 4)},s${i % 4},"Article ${i}.","Item ${i}. ${said}. The summary states the facts.",${t},${t},${r2},${guess(i)},${t}`);
  }
  return rows.join('\n') + '\n';
}

/** `concord <args> --out DIR` and the files it wrote, by name. */
function cliFiles(args, dir) {
  concord([...args, '--out', dir]);
  return Object.fromEntries(readdirSync(dir).map((n) => [n, readFileSync(join(dir, n), 'utf8')]));
}

/** Runs the planted study on the mock in `app` (one call of five samples per item). */
async function plantedStudy(app) {
  const { data, judge, run } = app;
  await data.loadFile('planted.csv', plantedCsv());
  assert.equal((await data.summary()).raters, 4, 'four annotators');
  await setScenario({ reply: { mode: 'echo_rating', marker: 'RATING=', noisy_when: 'UNSURE' }, supports_n: true, latency_ms: 1 });
  await judge.open();
  await judge.addMethods({ modes: ['score-only'], n: SAMPLES });
  await app.connectMock({ key: 'sk-valid', concurrency: 8 });
  // The generic template's criterion is still its placeholder: the planted judge ignores it.
  await run.sendAnyway();
  const before = await mockTotal();
  await run.run();
  assert.match(await run.waitFinished(240_000), /Run complete/);
  assert.equal(await mockTotal() - before, ITEMS, 'one call per item');
}

test('a planted judge: the verdicts per annotator, the trust guarantee held out, and the exports equal concord report', { skip: !MOCK_URL, timeout: 600_000 }, async () => {
  await withApp({}, async (app) => {
    const { results, validity: panel } = app;
    const dir = app.tempDir('concord-validity-');
    await plantedStudy(app);
    await results.open();
    await results.rowHeader('score-only').waitFor({ timeout: 60_000 });
    await panel.setAnnotators('skilled');
    await panel.setAlpha(0.1);
    await panel.setDelta(0.1);
    await panel.compute();

    // The alt-test: four annotators, the judge beats the guesser only.
    const summary = await panel.rows('validity-alt-test');
    assert.deepEqual(summary.map((r) => r.label), ['score-only']);
    assert.deepEqual(summary[0].cells.slice(0, 6), ['quality', String(ITEMS), '4', '0', '0.25', 'no'], JSON.stringify(summary));
    const per = await panel.rows('validity-alt-test-1-score-only');
    const verdicts = Object.fromEntries(per.map((r) => [r.label, r.cells[4]]));
    assert.deepEqual(verdicts, { r1: 'no', r2: 'no', r3: 'yes', r4: 'no' });
    assert.match(await panel.tableFigureText('validity-alt-test'), /ε = 0\.15 \(skilled\)/);

    // Selective trust: the threshold set on one half holds on the other.
    const key = (what) => `score-only/quality/${what}`;
    const threshold = await panel.value(key('threshold'));
    assert.ok(threshold > 0 && threshold <= 1, `threshold ${threshold}`);
    const heldTrusted = await panel.value(key('held_out_trusted'));
    const heldAgreement = await panel.value(key('held_out_agreement'));
    const heldCoverage = await panel.value(key('held_out_coverage'));
    assert.ok(heldTrusted >= 30, `held-out items trusted: ${heldTrusted}`);
    assert.ok(heldAgreement >= 0.9, `held-out agreement ${heldAgreement} < 1 − α`);
    assert.ok(heldCoverage < 0.9, `the judge is not trusted everywhere (${heldCoverage})`);
    // Trusting every item would not keep the promise: the judge agrees with the humans on the
    // echoed items only.
    const agreeing = [...Array(ITEMS).keys()].filter((i) => !wrong(i) && !unsure(i)).length;
    assert.ok(agreeing / ITEMS < 0.9 - 0.1, `planted agreement overall ${agreeing / ITEMS}`);
    const trust = await panel.rows('validity-trust');
    assert.equal(trust[0].cells[1], 'share of samples giving the majority rating', 'the confidence source is said');
    assert.equal(await panel.figure.count(), 1, 'the coverage–agreement curve');
    // Stability: the judge's samples against the annotators' agreement.
    assert.ok((await panel.value(key('flip_rate'))) > 0);
    assert.ok((await panel.value(key('alpha_annotators'))) !== null);
    await shootThemes(panel.panel, 'results-validity');

    // The exports are the CLI's, from the bundle the page writes.
    const bundle = join(dir, 'planted-bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    assert.equal(saved.settings.validity.epsilon, 0.15, 'the bundle keeps the panel\'s settings');
    const ids = await panel.tableIds();
    assert.deepEqual(ids, ['validity-alt-test', 'validity-alt-test-1-score-only', 'validity-trust', 'validity-cascade', 'validity-planner', 'validity-stability']);
    for (const [label, ext, format] of [['CSV', 'csv', 'csv'], ['Markdown', 'md', 'md']]) {
      const cli = cliFiles(['report', bundle, '--screen', 'validity', '--format', format], join(dir, `cli-${ext}`));
      for (const id of ids) {
        const download = await panel.exportTable(id, label);
        assert.equal(download.suggestedFilename(), `${id}.${ext}`);
        const app = readFileSync(await download.path(), 'utf8');
        assert.equal(app, cli[`${id}.${ext}`], `${id}.${ext}: the app's export is concord report's`);
      }
    }
    const svg = cliFiles(['report', bundle, '--screen', 'validity', '--format', 'svg'], join(dir, 'cli-svg'));
    const figure = await panel.exportFigure();
    assert.equal(readFileSync(await figure.path(), 'utf8'), svg[figure.suggestedFilename()], figure.suggestedFilename());

    // A change of ε recomputes the shown panel: at ε = 0 the judge beats no careful annotator
    // either, and the guesser still.
    await panel.setEpsilon(0);
    await panel.waitCellFigure('score-only/quality/winning_rate', 'ε = 0,');
    await panel.waitComputed();
    assert.equal(await panel.value('score-only/quality/winning_rate'), 0.25);
  });
});

test('AltTest folders open on the Data screen and the panel shows concord alt-test\'s tables', { timeout: 600_000, skip: missingShared(ALTTEST) }, async () => {
  await withApp({}, async (app) => {
    const { data, results, validity: panel } = app;
    const dir = app.tempDir('concord-alttest-');

    // wax (labels, crowd workers: ε = 0.1): the annotators' file, then the LLMs'.
    const wax = join(ALTTEST, 'wax');
    await data.fileInput.setInputFiles(join(wax, 'human_annotations.json'));
    await data.named('human_annotations.json').waitFor();
    assert.equal(await data.datasetFormat.innerText(), 'annotations');
    assert.match((await data.diagnostics.allInnerTexts()).join('\n'), /read as annotations: 8 annotator\(s\), 246 instance\(s\) with an annotation, labels/);
    await data.fileInput.setInputFiles(join(wax, 'llm_annotations.json'));
    const notice = data.folderNotice;
    await notice.filter({ hasText: 'now judge runs' }).waitFor({ timeout: 60_000 });
    assert.match(await notice.innerText(), /^Read human_annotations\.json: 8 annotators, \d+ instances with an annotation, labels .*; and llm_annotations\.json: 6 LLMs \(gemini_flash, gemini_pro, gpt-4o, llama-31, gpt-4o-mini, mistral-v03\), now judge runs on the Results table/);
    assert.match(await data.attributes.innerText(), /^annotation \(labels: /);
    await data.testLlmsOnResults();
    // Labels have no correlation: the Results table's cells are blank and say why.
    const cell = results.firstCell;
    await cell.waitFor({ timeout: 60_000 });
    assert.match(await cell.innerHTML(), /labels without order/);
    await panel.setAnnotators('crowd');
    await panel.compute();
    const cliWax = cliFiles(['alt-test', wax, '--epsilon', '0.1', '--format', 'csv'], join(dir, 'wax'));
    const waxIds = (await panel.tableIds()).filter((id) => id.startsWith('validity-alt-test'));
    assert.equal(waxIds.length, 7, `the summary and one table per LLM: ${waxIds}`);
    assert.deepEqual(waxIds.map((id) => `${id}.csv`).sort(), Object.keys(cliWax).sort());
    for (const id of waxIds) {
      const app = readFileSync(await (await panel.exportTable(id, 'CSV')).path(), 'utf8');
      assert.equal(app, cliWax[`${id}.csv`], `wax ${id}: the app's table is concord alt-test's`);
    }
    // The paper's wax row: gemini_pro and gpt-4o pass at ε = 0.1.
    const passed = (await panel.rows('validity-alt-test')).filter((r) => r.cells[5] === 'yes').map((r) => r.label);
    assert.deepEqual(passed, ['gemini_pro', 'gpt-4o']);

    // summeval (scores, experts: ε = 0.2, the default): both files at once.
    const summeval = join(ALTTEST, 'summeval');
    await app.open(CONCORD_URL);
    await data.fileInput.setInputFiles([join(summeval, 'llm_annotations.json'), join(summeval, 'human_annotations.json')]);
    await notice.filter({ hasText: 'now judge runs' }).waitFor({ timeout: 120_000 });
    assert.match(await notice.innerText(), /^Read human_annotations\.json: 3 annotators, 6400 instances with an annotation, scores from 1 to 5; and llm_annotations\.json: 6 LLMs/);
    await results.open();
    await panel.compute(300_000);
    const cliSum = cliFiles(['alt-test', summeval, '--format', 'csv'], join(dir, 'summeval'));
    const shown = readFileSync(await (await panel.exportTable('validity-alt-test', 'CSV')).path(), 'utf8');
    assert.equal(shown, cliSum['validity-alt-test.csv'], 'summeval: the app\'s table is concord alt-test\'s');
    // No judge passes at ε = 0.2 (the paper's SummEval result).
    assert.ok((await panel.rows('validity-alt-test')).every((r) => r.cells[5] === 'no'));
  });
});

test('a classroom exercise: the students are the annotators of the alt-test, as concord class prints it', { skip: !MOCK_URL, timeout: 600_000 }, async () => {
  await withApp({}, async (teacher) => {
    const { page: tpage, class: tclass } = teacher;
    const dir = teacher.tempDir('concord-validity-class-');
    await plantedStudy(teacher);
    await tclass.open();
    await tclass.checkTask('alt_test');
    await tclass.altTestSettings.waitFor();
    await tclass.setEpsilon('0.15');
    const made = await tclass.makeExercise({ title: 'Can the judge replace us?', attributes: ['quality'], sample: 36, seed: 4 });
    const exercisePath = join(dir, 'exercise.json');
    await made.saveAs(exercisePath);
    const exercise = JSON.parse(readFileSync(exercisePath, 'utf8'));
    assert.equal(exercise.version, 3);
    assert.deepEqual(exercise.tasks.map((t) => t.kind), ['rate_attributes', 'alt_test']);
    assert.match(await tclass.exerciseSaved.innerText(), /be the annotators of the alternative annotator test \(ε = 0\.15\)/);
    const order = exercise.dataset.embedded.items.map((it) => Number(/Item (\d+)\./.exec(it.output)[1]));
    const students = { Ann: order.map(truth), Ben: order.map((i) => (i % 9 === 0 ? (truth(i) % 5) + 1 : truth(i))), Cy: order.map(guess) };

    const submissions = [];
    for (const [name, scores] of Object.entries(students)) {
      await withApp({}, async ({ class: sclass }) => {
        await sclass.open();
        await sclass.openExercise(exercisePath);
        assert.match(await sclass.exerciseTasks.innerText(), /Be the annotators: the class view tests whether the exercise's judges could replace you \(alternative annotator test, ε = 0\.15 \(skilled\)\)/);
        await sclass.rateAll(name, scores);
        const path = join(dir, `${name}.json`);
        await (await sclass.exportSubmission()).saveAs(path);
        submissions.push(path);
      });
    }
    await tclass.dropInClassView(submissions);
    await tclass.reportTable('validity-alt-test').waitFor({ timeout: 60_000 });
    const per = await tclass.reportColumn('validity-alt-test-1-score-only', 4);
    assert.deepEqual(Object.fromEntries(per), { Ann: 'no', Ben: 'no', Cy: 'yes' });
    const cli = cliFiles(['class', exercisePath, ...submissions, '--format', 'csv'], join(dir, 'cli'));
    for (const [id, title] of [['validity-alt-test', 'Can the judge replace the annotators? (alternative annotator test)'], ['validity-alt-test-1-score-only', 'score-only on quality: each annotator left out (ε = 0.15 (skilled))']]) {
      await tpage.waitForTimeout(500);
      const app = readFileSync(await (await tclass.exportTable(title, 'CSV')).path(), 'utf8');
      assert.equal(app, cli[`${id}.csv`], `${id}: the class view's table is concord class's`);
    }
  });
});
