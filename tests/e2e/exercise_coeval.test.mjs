// A CoEval exercise (issue 26, "scrutinise CoEval criteria"): a teacher loads a CoEval study,
// tries a decision of their own, and saves an exercise that carries the study — not the trial
// decision. Two students, each in their own browser profile, open the file, find the study on
// the CoEval screen, scrutinise it (criteria, then the LLM's evaluations by keyboard) and
// export a submission; one tries to export before deciding anything and is told what is
// missing. The teacher drops the submissions in the class view: each student's decisions, own
// scores and share of the LLM's scores revised equal a count made here from the submission
// files, and every table's CSV is byte-identical to `concord class` on the same files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL } from './browser.mjs';
import { withApp, cli, expectSameClassCsv } from './harness.mjs';
import { COEVAL_TINY } from './fixtures.mjs';

// combine_data.json's shape: one task, two instances, two criteria, the LLM's four evaluations
// (scores 4, 3 under "1. Fluent." and 5, 2 under "2. On topic.").
const FIXTURE = COEVAL_TINY;

// What each student does, and the LLM's score of what they score themselves.
const WORK = {
  Ann: async (co) => {
    await co.decideCriterion(1, 'Approve', { reason: 'clear' });
    await co.decideCriterion(2, 'Revise', { reason: 'sharper', revised: '2. Stays on topic.' });
    await co.startScrutiny();
    await co.keys('a', 'j', 'r');
    await co.edit({ text: 'Score: 3', reason: 'too generous' });
    await co.keys('3');
  },
  Bob: async (co) => {
    // Stage 2 opens once every criterion is decided.
    await co.decideCriterion(1, 'Approve');
    await co.decideCriterion(2, 'Delete', { reason: 'vague' });
    await co.startScrutiny();
    await co.keys('a', '4');
  },
};
// The LLM's scores by (instance index, criterion); the students score instance 1, "1. Fluent.".
const LLM_FIRST = 4;

/** Counts a submission's CoEval events (no undo is used here): criteria decided, parts
 * decided, own scores, the share of own scores or score decisions that revise the LLM's, and
 * minutes per instance timed. */
function counts(sub) {
  const criteria = new Set(), parts = new Set(), scores = new Map(), scoreDecision = new Map();
  const time = new Map();
  for (const e of sub.coeval.events) {
    const key = `${e.instance}/${e.criterion}`;
    if (e.kind === 'criterion') criteria.add(e.criterion);
    else if (e.kind === 'part') {
      parts.add(`${key}/${JSON.stringify(e.part)}`);
      if (JSON.stringify(e.part).includes('score')) scoreDecision.set(key, e.action);
    } else if (e.kind === 'score') scores.set(key, e.score);
    else if (e.kind === 'timer') time.set(e.instance, (time.get(e.instance) ?? 0) + e.ms);
    else assert.fail(`unexpected event ${JSON.stringify(e)}`);
  }
  let revised = 0, n = 0;
  for (const key of new Set([...scores.keys(), ...scoreDecision.keys()])) {
    n++;
    if (scoreDecision.get(key) === 'revise' || (scores.has(key) && scores.get(key) !== LLM_FIRST)) revised++;
  }
  const minutes = time.size ? [...time.values()].reduce((a, b) => a + b) / time.size / 60000 : null;
  return {
    criteria: criteria.size, parts: parts.size, own: scores.size,
    revised: n ? (100 * revised / n).toFixed(2) : '–',
    minutes: minutes === null ? '–' : minutes.toFixed(2),
  };
}

test('a CoEval study handed out as an exercise: two students scrutinise it, the class view counts what their files hold, as concord class does', { timeout: 300_000 }, async () => {
  // The teacher: a study, a trial decision that must stay home, the exercise.
  await withApp({ url: null }, async (teacher) => {
    const { page: tpage, coeval: tco, class: tclass } = teacher;
    const dir = teacher.tempDir('concord-exercise-coeval-');
    await tco.open(CONCORD_URL);
    await tco.setAnnotator('Teacher');
    await tco.startFromFile('combine_data.json', FIXTURE);
    await tco.decideCriterion(1, 'Delete', { reason: 'a trial' });
    await tco.saved();
    await tclass.open();
    await tclass.scrutiniseTask.check();
    await tclass.coevalStudy('Task: tiny · 2 instances · 2 criteria · 4 LLM evaluations').waitFor();
    const made = await tclass.makeExercise({ title: 'Scrutinise the stories', attributes: [], rate: false });
    const exercisePath = join(dir, 'exercise.json');
    await made.saveAs(exercisePath);
    const raw = readFileSync(exercisePath, 'utf8');
    const exercise = JSON.parse(raw);
    assert.deepEqual(exercise.tasks, [{ kind: 'scrutinise_criteria' }]);
    assert.equal(exercise.dataset.items, 0, 'nothing to rate: no item of the workbench dataset');
    assert.equal(exercise.coeval.task, 'tiny');
    assert.equal(exercise.coeval.answers.length, 4);
    assert.ok(!raw.includes('Teacher') && !raw.includes('a trial'), "the teacher's trial decision stays home");
    if (process.env.CONCORD_SCREENSHOTS) {
      await tclass.makePanel.screenshot({ path: join(process.env.CONCORD_SCREENSHOTS, 'exercise-coeval-make.png') });
    }

    const submissions = [];
    for (const [k, [name, work]] of Object.entries(WORK).entries()) {
      await withApp({}, async ({ page, class: sclass, coeval: co }) => {
        await sclass.open();
        await sclass.openExercise(exercisePath);
        assert.match(await sclass.exerciseTasks.innerText(), /Scrutinise the CoEval study's criteria/);
        assert.equal(await sclass.rateButton.count(), 0, 'nothing to rate');
        await sclass.studentName.fill(name);
        if (k === 0) {
          // Nothing decided yet: the export says what is missing and writes nothing.
          await sclass.clickExport();
          await sclass.exerciseErrorWith('nothing is scrutinised yet').waitFor();
        }
        await sclass.openCoevalScreen();
        await co.exerciseFrame.waitFor();
        await co.saved();
        assert.match(await co.study.textContent(), /Task: tiny · 2 instances · 2 criteria/);
        await co.setAnnotator(name);
        await co.tab('Stage 1: criteria');
        await work(co);
        await co.saved();
        if (process.env.CONCORD_SCREENSHOTS && k === 0) {
          await page.screenshot({ path: join(process.env.CONCORD_SCREENSHOTS, 'exercise-coeval-student.png') });
          if (process.env.CONCORD_LOOK) {
            // Dark and 375 px, to look at (not kept in docs/).
            await page.emulateMedia({ colorScheme: 'dark' });
            await page.setViewportSize({ width: 375, height: 900 });
            await page.screenshot({ path: join(process.env.CONCORD_LOOK, 'coeval-dark-375.png') });
            await co.backToExercise();
            await page.screenshot({ path: join(process.env.CONCORD_LOOK, 'class-student-dark-375.png'), fullPage: true });
            await sclass.openCoevalScreen();
            await page.emulateMedia({ colorScheme: 'light' });
            await page.setViewportSize({ width: 1280, height: 900 });
          }
        }
        await co.backToExercise();
        const { path, raw: text, sub } = await sclass.saveSubmission(dir);
        assert.equal(sub.student, name);
        assert.deepEqual(sub.ratings, []);
        assert.equal(sub.coeval.annotator, name);
        assert.equal(sub.coeval.task, 'tiny');
        assert.ok(!/key/i.test(text), 'a submission never holds a key');
        submissions.push(path);
      });
    }

    // The class view.
    await tclass.dropInClassView(submissions);
    const rows = await tclass.coevalStudentRows();
    assert.equal(rows.length, 2);
    for (const [i, path] of submissions.entries()) {
      const sub = JSON.parse(readFileSync(path, 'utf8'));
      const c = counts(sub);
      assert.deepEqual(rows[i], [sub.student, String(c.criteria), String(c.parts), String(c.own), c.revised, c.minutes], sub.student);
    }
    // Ann approved one criterion and revised the other; Bob approved one and deleted the other.
    const stage1 = await tclass.coevalCriteriaRows();
    assert.match(stage1[0], /^Ann\s+50\.00\s+50\.00\s+0\.00\s+0\.00\s+2$/);
    assert.match(stage1[1], /^Bob\s+50\.00\s+0\.00\s+50\.00\s+0\.00\s+2$/);
    assert.equal(await tclass.classStudents.count(), 0, 'no rating table without ratings');

    // Every table's CSV, as its export button saves it, is `concord class`'s.
    const out = join(dir, 'cli');
    cli(['class', exercisePath, ...submissions, '--format', 'csv', '--out', out]);
    const report = JSON.parse(cli(['class', exercisePath, ...submissions, '--format', 'json']));
    const files = readdirSync(out).sort();
    assert.ok(files.includes('class-coeval-students.csv') && files.includes('class-coeval-table5.csv'), files.join(', '));
    const titles = Object.fromEntries(files.map((f) => {
      const table = report.tables.find((t) => `${t.id}.csv` === f);
      assert.ok(table, `no table for ${f}`);
      return [f, table.title];
    }));
    await expectSameClassCsv(tclass, out, titles);
    if (process.env.CONCORD_SCREENSHOTS) {
      await tclass.classReport.screenshot({ path: join(process.env.CONCORD_SCREENSHOTS, 'exercise-coeval-class.png') });
      if (process.env.CONCORD_LOOK) {
        await tpage.emulateMedia({ colorScheme: 'dark' });
        await tpage.setViewportSize({ width: 375, height: 900 });
        await tclass.makePanel.screenshot({ path: join(process.env.CONCORD_LOOK, 'make-dark-375.png') });
      }
    }
  });
});
