// Run given judges (issue 26): a teacher adds two methods on the Judge screen and makes an
// exercise whose task is to run them (a seeded sample of 6 of 8 items, the reference hidden);
// the file is version 2 and carries the study, never a key or an endpoint. Two students, each
// in a browser of their own, open it (the Judge screen holds the methods), are refused an
// export before running, go to the Run screen, connect to the mock with a key of their own —
// each answered differently: Ann's ratings are the outputs' RATING=, Bob's their ALT= — run,
// and export; the submission holds each run's scores and the model, never the key. The
// teacher drops both: each student's r, τ-b and α against the reference and the α among the
// students' runs equal a recomputation here, and every table's CSV is byte-identical to
// `concord class` on the same files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { withApp, cli, expectSameClassCsv } from './harness.mjs';
import { alpha, close, kendallB, pearson } from './stats.mjs';

const HUMAN = [1, 2, 3, 4, 5, 2, 4, 3];
// What each student's mock answers, planted in the outputs: Ann's under RATING=, Bob's ALT=.
const PLANTED = { Ann: [2, 2, 4, 3, 5, 1, 5, 3], Bob: [1, 3, 3, 5, 4, 2, 2, 4] };
const MARKER = { Ann: 'RATING=', Bob: 'ALT=' };
const KEYS = { Ann: 'sk-ann-secret-1', Bob: 'sk-bob-secret-2' };
const METHODS = ['score-only', 'rate-explain'];

function csv() {
  const rows = ['id,doc,sys,source,output,quality'];
  HUMAN.forEach((h, i) => rows.push(`it${i},d${Math.floor(i / 2)},s${i % 2},"Source ${i}.","Output number ${i}. RATING=${PLANTED.Ann[i]} ALT=${PLANTED.Bob[i]}",${h}`));
  return rows.join('\n') + '\n';
}


test('a teacher makes a run-judges exercise, two students run the judges with their own model and key, the class view equals a recomputation and concord class', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  const shots = process.env.CONCORD_SCREENSHOTS;
  // The teacher sets up two methods on the Judge screen; nothing is run.
  await withApp({ data: { name: 'runjudges.csv', text: csv() } }, async (teacher) => {
    const { page: tpage, judge, class: tclass } = teacher;
    const dir = teacher.tempDir('concord-runjudges-');
    await judge.open();
    await judge.addMethods({ modes: METHODS, n: 1 });
    await judge.methods.nth(1).waitFor();

    await tclass.open();
    // The task is offered, and no task says "not supported yet".
    assert.match(await tclass.taskLabel('run_judges').innerText(), /^Run given judges: the Judge screen's methods/);
    assert.equal(await tclass.makePanel.filter({ hasText: 'not supported yet' }).count(), 0);
    await tclass.checkTask('run_judges');
    assert.match(await tclass.runJudgesSummary.innerText(), /score-only, rate-explain on quality/);
    if (shots) {
      await tclass.makePanel.screenshot({ path: join(shots, 'class-make-run.png') });
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tclass.makePanel.screenshot({ path: join(shots, 'class-make-run-375.png') });
      await tpage.setViewportSize({ width: 1280, height: 900 });
    }
    const made = await tclass.makeExercise({ title: 'Week 5: run the judges', attributes: [], sample: 6, seed: 3, rate: false, run: true, instructions: '# Run the judges\n\nRun both methods with a model of your choice.' });
    const exercisePath = join(dir, 'exercise.json');
    await made.saveAs(exercisePath);
    const text = readFileSync(exercisePath, 'utf8');
    const exercise = JSON.parse(text);
    assert.equal(exercise.version, 2, 'a run-judges exercise is version 2');
    assert.deepEqual(exercise.tasks, [{ kind: 'run_judges', methods: METHODS, attributes: ['quality'] }]);
    assert.deepEqual(exercise.study.methods.map((m) => m.name), METHODS);
    assert.deepEqual(exercise.sample, { of: 8, size: 6, seed: 3 });
    assert.ok(!('endpoint' in exercise) && !/base_url|sk-/.test(text), 'the exercise holds no key or endpoint');
    const ids = exercise.dataset.embedded.items.map((i) => i.id);
    assert.equal(ids.length, 6);
    const reference = ids.map((id) => HUMAN[Number(id.slice(2))]);
    assert.deepEqual(exercise.reference.ratings[0].scores.map(([, x]) => x), reference);

    // Two students, each in a browser of their own, each answered differently by the mock.
    const submissions = [];
    for (const [k, name] of ['Ann', 'Bob'].entries()) {
      await withApp({ url: CONCORD_URL }, async (student) => {
        const { page, class: sclass, judge: sjudge, run } = student;
        await sclass.open();
        await sclass.openExercise(exercisePath);
        assert.match(await sclass.exerciseTasks.innerText(), /Run the judges score-only, rate-explain on quality/);
        assert.equal(await sclass.rateButton.count(), 0);
        await sclass.setStudentName(name);
        // Before any run: the export is refused, naming the judges.
        await sclass.clickExport();
        assert.match(await sclass.exerciseError.innerText(), /score-only \/ quality, rate-explain \/ quality have not run yet/);
        if (shots && k === 0) {
          await sclass.studentPanel.screenshot({ path: join(shots, 'class-run-student.png') });
          await page.emulateMedia({ colorScheme: 'dark' });
          await sclass.studentPanel.screenshot({ path: join(shots, 'class-run-student-dark.png') });
          await page.emulateMedia({ colorScheme: 'light' });
          await page.setViewportSize({ width: 375, height: 800 });
          await sclass.studentPanel.screenshot({ path: join(shots, 'class-run-student-375.png') });
          await page.setViewportSize({ width: 1280, height: 900 });
        }
        // The Judge screen holds the exercise's methods.
        await sjudge.open();
        assert.deepEqual(await sjudge.methodCells(), METHODS);
        await sclass.open();
        await sclass.openRunScreen();
        await setScenario({ reply: { mode: 'echo_rating', marker: MARKER[name] }, latency_ms: 2 });
        await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: `model-${name}`, key: KEYS[name] });
        // The teacher's `quality` criterion is the template's placeholder: sent knowingly.
        await run.sendAnyway();
        await run.run();
        assert.match(await run.waitFinished(), /Run complete/);
        await sclass.open();
        await sclass.progress('the given judges run: 2 of 2').waitFor();
        const { path, raw, sub } = await sclass.saveSubmission(dir);
        assert.equal(sub.student, name);
        assert.equal(sub.version, 2);
        assert.ok(!raw.includes(KEYS[name]) && !/sk-|127\.0\.0\.1|localhost|base_url/.test(raw), 'a submission never holds a key or an endpoint');
        const expected = ids.map((id) => [id, PLANTED[name][Number(id.slice(2))]]);
        assert.deepEqual(sub.runs, METHODS.map((method) => ({ method, attribute: 'quality', provider: 'vllm', model: `model-${name}`, scores: expected })));
        // After the export: the student's runs against the reference.
        await sclass.feedbackRuns.waitFor();
        const mine = await sclass.feedbackRunsValue(`${name}/score-only/quality/pearson`);
        close(mine, pearson(reference, expected.map(([, x]) => x)), `${name}'s r shown to them`);
        submissions.push(path);
      });
    }

    // The teacher drops both submissions.
    await tclass.dropInClassView(submissions);
    const status = await tclass.submissionRows();
    assert.equal(status.length, 2);
    assert.ok(status.every((s) => /\tused$/.test(s.trim())), JSON.stringify(status));
    assert.equal(await tclass.classStudents.count(), 0);
    const rows = await tclass.runRows();
    assert.deepEqual(rows, ['Ann', 'Bob'].flatMap((name) => METHODS.map((m) => [name, m, 'quality', `model-${name}`])));
    const scores = Object.fromEntries(['Ann', 'Bob'].map((name) => [name, ids.map((id) => PLANTED[name][Number(id.slice(2))])]));
    for (const name of ['Ann', 'Bob']) {
      for (const m of METHODS) {
        const key = `${name}/${m}/quality`;
        close(await tclass.value(`${key}/pearson`), pearson(reference, scores[name]), `${key} r`);
        close(await tclass.value(`${key}/kendall_b`), kendallB(reference, scores[name]), `${key} τ-b`);
        close(await tclass.value(`${key}/alpha`), alpha([reference, scores[name]]), `${key} α`);
        const low = await tclass.low(`${key}/alpha`);
        assert.ok(low !== null, `${key}'s α has an interval`);
      }
    }
    for (const m of METHODS) {
      close(await tclass.value(`${m}/quality/alpha`), alpha([scores.Ann, scores.Bob]), `α among the runs of ${m}`);
    }

    // Every table's CSV, as the export buttons save it, is `concord class`'s.
    const out = join(dir, 'cli');
    cli(['class', exercisePath, ...submissions, '--format', 'csv', '--out', out]);
    const titles = {
      'class-submissions.csv': 'Submissions',
      'class-runs.csv': "Each student's runs of the given judges against the reference",
      'class-runs-agreement.csv': "Agreement among the students' runs of each judge",
    };
    await expectSameClassCsv(tclass, out, titles);
    if (shots) {
      await tclass.classPanel.screenshot({ path: join(shots, 'class-runs.png') });
      await tpage.emulateMedia({ colorScheme: 'dark' });
      await tclass.classPanel.screenshot({ path: join(shots, 'class-runs-dark.png') });
      await tpage.emulateMedia({ colorScheme: 'light' });
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tclass.classRuns.screenshot({ path: join(shots, 'class-runs-375.png') });
    }
  });
});
