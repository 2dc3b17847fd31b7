// Correct a judge (issue 26): a teacher runs a judge against the mock and makes an exercise
// whose task is to correct it (a seeded sample of 6 of 8 items, the reference hidden); the file
// is version 2 and carries the judge's raw answers, never the key. Two students, each in a
// browser of their own, open it, correct the judge on the Results screen's Review panel with the
// keyboard (accept, change, flag with a note, undo; the time per item counted) and export their
// submissions; the reference shows only after the export. The teacher drops the submissions
// and a copy of one: the duplicate is named, each student's shares accepted / changed /
// flagged, mean |change|, minutes and the r, τ-b and α of the judge alone and with their
// corrections equal a recomputation here, the items most changed are listed in order, and
// every table's CSV is byte-identical to `concord class` on the same files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL } from './browser.mjs';
import { withApp, cli, expectSameClassCsv } from './harness.mjs';
import { alpha, close, kendallB, pearson } from './stats.mjs';

const HUMAN = [1, 2, 3, 4, 5, 2, 4, 3];
// The judge's ratings, planted in the outputs for the mock to echo.
const PLANTED = [2, 2, 4, 3, 5, 1, 5, 3];
// What each student does on the six sampled items, in the walk's (the items') order: `a`
// accepts, a digit changes, `f:` flags with the note; `undo` before a decision first makes
// another one and takes it back.
const STUDENTS = {
  Ann: [['1'], ['a'], ['2', 'undo', 'f:too generous'], ['a'], ['4'], ['a']],
  Bob: [['1'], ['3'], ['a'], ['a'], ['f:which output?'], ['4']],
};

function csv() {
  const rows = ['id,doc,sys,source,output,quality'];
  HUMAN.forEach((h, i) => rows.push(`it${i},d${Math.floor(i / 2)},s${i % 2},"Source ${i}.","Output number ${i}. RATING=${PLANTED[i]}",${h}`));
  return rows.join('\n') + '\n';
}


/** The decision each student's actions leave on each item: accept, change to x, or flag. */
function decisions(actions) {
  return actions.map((steps) => {
    const last = steps[steps.length - 1];
    if (last === 'a') return { verdict: 'accept' };
    if (last.startsWith('f:')) return { verdict: 'flag', note: last.slice(2) };
    return { verdict: 'change', rating: Number(last) };
  });
}

test('a teacher makes a correct-judge exercise, two students correct it, the class view equals a recomputation and concord class', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  const shots = process.env.CONCORD_SCREENSHOTS;
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 2 };
  // The teacher runs the judge.
  await withApp({ data: { name: 'correct.csv', text: csv() }, scenario }, async (teacher) => {
    const { page: tpage, class: tclass } = teacher;
    const dir = teacher.tempDir('concord-correct-');
    // The generic criterion of `quality` is the template's placeholder: sent knowingly.
    assert.match(await teacher.judgeWithMock({ connect: { key: 'sk-correct' }, sendAnyway: true }), /Run complete/);

    // The exercise: correct that run, nothing to rate.
    await tclass.open();
    // The task is offered (no longer "not supported yet").
    assert.equal(await tclass.taskLabel('correct_judge').innerText(), 'Correct a judge');
    await tclass.checkTask('correct_judge');
    const runKey = await tclass.firstRunToCorrect();
    assert.match(runKey, / \/ quality$/);
    if (shots) {
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tclass.makePanel.screenshot({ path: join(shots, 'class-make-correct-375.png') });
      await tpage.setViewportSize({ width: 1280, height: 900 });
    }
    const made = await tclass.makeExercise({ title: 'Week 4: correct the judge', attributes: [], sample: 6, seed: 3, rate: false, correct: runKey, instructions: '# Correct the judge\n\nAccept, change or flag each rating.' });
    const exercisePath = join(dir, 'exercise.json');
    await made.saveAs(exercisePath);
    const text = readFileSync(exercisePath, 'utf8');
    const exercise = JSON.parse(text);
    assert.equal(exercise.version, 2, 'a correct-judge exercise is version 2');
    assert.deepEqual(exercise.tasks.map((t) => t.kind), ['correct_judge']);
    assert.equal(`${exercise.tasks[0].method} / ${exercise.tasks[0].attribute}`, runKey);
    assert.deepEqual(exercise.sample, { of: 8, size: 6, seed: 3 });
    assert.equal(exercise.reference.hidden, true);
    assert.ok(!/sk-correct/.test(text), 'the exercise holds no key');
    const ids = exercise.dataset.embedded.items.map((i) => i.id);
    assert.equal(ids.length, 6);
    // The run's raw answers, cut to the exercise's items.
    assert.equal(exercise.judge_run.run.records.length, 6);
    assert.ok(exercise.judge_run.run.records.every((r) => r.responses.length === 1));
    const reference = ids.map((id) => HUMAN[Number(id.slice(2))]);
    const judged = ids.map((id) => PLANTED[Number(id.slice(2))]);
    assert.deepEqual(exercise.reference.ratings[0].scores.map(([, x]) => x), reference);

    // Two students, each in a browser of their own.
    const submissions = [];
    for (const [k, [name, actions]] of Object.entries(STUDENTS).entries()) {
      await withApp({ url: CONCORD_URL }, async (student) => {
        const { page, class: sclass, review } = student;
        await sclass.open();
        await sclass.openExercise(exercisePath);
        assert.equal(await sclass.exerciseTitle.innerText(), 'Week 4: correct the judge');
        assert.match(await sclass.exerciseTasks.innerText(), new RegExp(`Correct the judge ${runKey.replace(/[/]/g, '\\/')}`));
        // Nothing to rate: no Rate button; the reference is hidden.
        assert.equal(await sclass.rateButton.count(), 0);
        await sclass.referenceHidden.waitFor();
        await sclass.setStudentName(name);
        await sclass.correctJudge();

        // The Review panel, in exercise mode, on the exercise's run.
        await review.waitReady(30_000);
        await review.exercise.filter({ hasText: `go into your submission, ${name}` }).waitFor();
        assert.equal(await review.reviewer.inputValue(), name);
        assert.equal(await review.run.inputValue(), runKey);
        for (const [i, steps] of actions.entries()) {
          await review.expectItem({ position: `Item ${i + 1} of 6`, judge: String(judged[i]), human: 'none' });
          assert.equal((await review.itemId.innerText()).trim(), ids[i]);
          if (i === 0) await page.waitForTimeout(1200);
          for (const step of steps) {
            if (step === 'undo') {
              await review.press('u');
              await review.expectItem({ position: `Item ${i + 2} of 6`, verdict: 'not reviewed' });
              await review.press('k');
            } else if (step.startsWith('f:')) {
              await review.flag(step.slice(2));
            } else {
              await review.press(step);
            }
          }
          if (i + 1 < actions.length) await review.expectItem({ position: `Item ${i + 2} of 6` });
        }
        await review.waitSaved();
        if (shots && k === 0) {
          await review.press('k');
          await review.panel.screenshot({ path: join(shots, 'class-correct-review.png') });
          await page.emulateMedia({ colorScheme: 'dark' });
          await review.panel.screenshot({ path: join(shots, 'class-correct-review-dark.png') });
          await page.emulateMedia({ colorScheme: 'light' });
          await page.setViewportSize({ width: 375, height: 800 });
          await review.exercise.screenshot({ path: join(shots, 'class-correct-review-375.png') });
          await page.setViewportSize({ width: 1280, height: 900 });
        }
        await review.backToExercise();
        await sclass.progress("the judge's ratings reviewed: 6 of 6").waitFor();
        assert.equal(await sclass.feedback.count(), 0);
        const { path, raw, sub } = await sclass.saveSubmission(dir);
        assert.equal(sub.student, name);
        assert.equal(sub.version, 2);
        assert.deepEqual(sub.ratings, []);
        assert.equal(sub.review.run, runKey);
        assert.deepEqual(sub.review.decisions, decisions(actions).map((d, i) => ({ item: ids[i], ...d })));
        assert.ok(!/key|sk-/i.test(raw), 'a submission never holds a key');
        const first = sub.review.time_ms.find(([id]) => id === ids[0]);
        assert.ok(first && first[1] >= 1000, JSON.stringify(sub.review.time_ms));
        // After the export: the judge alone and with the student's corrections, against the reference.
        await sclass.feedback.waitFor();
        const after = judged.map((j, i) => (decisions(actions)[i].verdict === 'change' ? decisions(actions)[i].rating : j));
        const mine = await sclass.feedbackValue(`${name}/review/pearson`);
        close(mine, pearson(reference, after), `${name}'s r shown to them`);
        if (shots && k === 1) {
          await sclass.studentPanel.screenshot({ path: join(shots, 'class-correct-student.png') });
        }
        submissions.push(path);
      });
    }

    // The teacher drops the submissions and a copy of the first.
    const copy = join(dir, 'copy-of-ann.json');
    copyFileSync(submissions[0], copy);
    const dropped = [...submissions, copy];
    await tclass.dropInClassView(dropped);
    const status = await tclass.submissionRows();
    assert.equal(status.length, 3);
    assert.match(status[2], /duplicate of concord-submission-.*-Ann\.json, left out/);
    // Items rated (none), then the judge's ratings reviewed (all six).
    assert.match(status[0], /\tAnn\t0\t6\t/);
    // Nothing to rate: no table of ratings against the reference.
    assert.equal(await tclass.classStudents.count(), 0);
    const rows = await tclass.correctionRows();
    assert.deepEqual(rows.map((r) => `${r.label} ${r.values[0]}`), ['Ann judge', 'Ann judge + review', 'Bob judge', 'Bob judge + review']);
    const changedBy = ids.map(() => 0);
    for (const [s, [name, actions]] of Object.entries(STUDENTS).entries()) {
      const sub = JSON.parse(readFileSync(submissions[s], 'utf8'));
      const ds = decisions(actions);
      const after = judged.map((j, i) => (ds[i].verdict === 'change' ? ds[i].rating : j));
      ds.forEach((d, i) => { if (d.verdict === 'change') changedBy[i] += 1; });
      const count = (v) => ds.filter((d) => d.verdict === v).length;
      const meanChange = ds.reduce((sum, d, i) => sum + (d.verdict === 'change' ? Math.abs(d.rating - judged[i]) : 0), 0) / ds.length;
      const minutes = sub.review.time_ms.reduce((sum, [, ms]) => sum + ms, 0) / 60_000;
      // Columns after the label: Ratings, n, Reviewed, Accepted, Changed, Flagged, Mean |change|, r, τ-b, α, Minutes.
      const [judgeRow, reviewRow] = rows.slice(2 * s, 2 * s + 2).map((r) => r.values);
      assert.equal(reviewRow[1], 6);
      assert.equal(reviewRow[2], 6);
      close(reviewRow[3], count('accept') / 6, `${name} accepted`);
      close(reviewRow[4], count('change') / 6, `${name} changed`);
      close(reviewRow[5], count('flag') / 6, `${name} flagged`);
      close(reviewRow[6], meanChange, `${name} mean |change|`);
      close(reviewRow[10], minutes, `${name} minutes`);
      close(judgeRow[7], pearson(reference, judged), `${name}: the judge's r`);
      close(judgeRow[8], kendallB(reference, judged), `${name}: the judge's τ-b`);
      close(judgeRow[9], alpha([reference, judged]), `${name}: the judge's α`);
      close(reviewRow[7], pearson(reference, after), `${name}: r with the corrections`);
      close(reviewRow[8], kendallB(reference, after), `${name}: τ-b with the corrections`);
      close(reviewRow[9], alpha([reference, after]), `${name}: α with the corrections`);
      close(await tclass.value(`${name}/review/pearson`), pearson(reference, after), `${name} r (keyed)`);
      // Each agreement with its 95 % bootstrap interval.
      const low = await tclass.low(`${name}/review/alpha`);
      assert.ok(low !== null, `${name}'s α has an interval`);
    }
    // The items most changed, most first (ties in the items' order).
    const expectedOrder = ids.map((id, i) => [id, changedBy[i], i]).filter(([, c]) => c > 0)
      .sort((a, b) => b[1] - a[1] || a[2] - b[2]).map(([id]) => id);
    assert.deepEqual(await tclass.changedItems(), expectedOrder);

    // Every table's CSV, as the export buttons save it, is `concord class`'s.
    const out = join(dir, 'cli');
    cli(['class', exercisePath, ...dropped, '--format', 'csv', '--out', out]);
    const titles = {
      'class-submissions.csv': 'Submissions',
      'class-corrections.csv': `Each student's corrections of the judge ${runKey}`,
      'class-changed-items.csv': 'Items the students changed most',
    };
    await expectSameClassCsv(tclass, out, titles);
    if (shots) {
      await tclass.classPanel.screenshot({ path: join(shots, 'class-corrections.png') });
      await tpage.emulateMedia({ colorScheme: 'dark' });
      await tclass.classPanel.screenshot({ path: join(shots, 'class-corrections-dark.png') });
      await tpage.emulateMedia({ colorScheme: 'light' });
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tclass.classCorrections.screenshot({ path: join(shots, 'class-corrections-375.png') });
    }
  });
});
