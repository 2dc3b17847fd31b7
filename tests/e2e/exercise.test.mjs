// Classroom exercises (issue 26): a teacher runs a judge against the mock and makes an
// exercise from the dataset (a seeded sample of 6 of 8 items, the reference hidden, the judge's
// ratings in), three students open it — one through
// `?exercise=URL` served by a server of this test, two from the file — rate with the keyboard
// and export their submissions (the third offline, once the exercise is open); the hidden
// reference shows only after the export. The
// teacher drops the three submissions and a copy of one: the duplicate is named, each
// student's r, τ-b and α against the reference, r and τ-b against the judge, and the students'
// α equal a recomputation here, and every table's CSV is byte-identical to `concord class` on
// the same files. On Results the students join as raters; the same files again change nothing
// and a student's other ratings are named as a conflict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL } from './browser.mjs';
import { withApp, cli, expectSameClassCsv } from './harness.mjs';
import { waitWorkspaceSaved, workspaceSaves } from './pages/workbench_pages.mjs';
import { alpha, close, kendallB, pearson } from './stats.mjs';

const HUMAN = [1, 2, 3, 4, 5, 2, 4, 3];
// The judge's ratings, planted in the outputs for the mock to echo.
const PLANTED = [2, 2, 4, 3, 5, 1, 5, 3];
// Each student's ratings of the six sampled items, in the order they are shown.
const STUDENTS = {
  Ann: [1, 2, 3, 4, 5, 3],
  Bob: [2, 2, 3, 5, 4, 3],
  Cy: [5, 4, 3, 2, 1, 1],
};

function csv() {
  const rows = ['id,doc,sys,source,output,quality'];
  HUMAN.forEach((h, i) => rows.push(`it${i},d${Math.floor(i / 2)},s${i % 2},"Source ${i}.","Output number ${i}. RATING=${PLANTED[i]}",${h}`));
  return rows.join('\n') + '\n';
}

/** A loopback server that serves `text` at /exercise.json to any origin. */
async function serve(text) {
  const server = createServer((req, res) => {
    res.writeHead(req.url === '/exercise.json' ? 200 : 404, {
      'access-control-allow-origin': '*',
      'content-type': 'application/json',
    });
    res.end(req.url === '/exercise.json' ? text : '');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}/exercise.json`, close: () => new Promise((ok) => server.close(ok)) };
}


test('a teacher makes an exercise, three students do it, the class view equals a recomputation and concord class', { skip: !MOCK_URL, timeout: 300_000 }, async () => {
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 2 };
  // The teacher; a judge run on the Results table goes into the exercise.
  await withApp({ data: { name: 'class.csv', text: csv() }, scenario }, async (teacher) => {
    const { page: tpage, class: tclass, results } = teacher;
    const dir = teacher.tempDir('concord-exercise-');
    let server;
    try {
      // The generic criterion of `quality` is the template's placeholder: sent knowingly.
      assert.match(await teacher.judgeWithMock({ connect: { key: 'sk-class' }, sendAnyway: true }), /Run complete/);
      await tclass.open();
      const instructions = '# Rate the outputs\n\nUse **1** for <i>nonsense</i> and 5 for a perfect output.\n\n- one\n- two';
      const made = await tclass.makeExercise({ title: 'Week 3', attributes: ['quality'], sample: 6, seed: 3, instructions });
      const exercisePath = join(dir, 'exercise.json');
      await made.saveAs(exercisePath);
      const exercise = JSON.parse(readFileSync(exercisePath, 'utf8'));
      assert.equal(exercise.kind, 'concord-exercise');
      assert.deepEqual(exercise.sample, { of: 8, size: 6, seed: 3 });
      assert.equal(exercise.reference.hidden, true);
      const ids = exercise.dataset.embedded.items.map((i) => i.id);
      assert.equal(ids.length, 6);
      const reference = exercise.reference.ratings[0].scores.map(([, x]) => x);
      assert.equal(exercise.judges.length, 1);
      const method = exercise.judges[0].name;
      const judged = exercise.judges[0].scores.map(([, x]) => x);
      assert.deepEqual(judged, ids.map((id) => PLANTED[Number(id.slice(2))]));
      assert.ok(!/sk-class/.test(readFileSync(exercisePath, 'utf8')), 'the exercise holds no key');
      assert.deepEqual(reference, ids.map((id) => HUMAN[Number(id.slice(2))]));
      server = await serve(readFileSync(exercisePath, 'utf8'));

      // Three students, each in a browser of their own.
      const submissions = [];
      for (const [k, [name, scores]] of Object.entries(STUDENTS).entries()) {
        await withApp({ url: k === 0 ? null : CONCORD_URL }, async (student) => {
          const { page, seen, class: sclass } = student;
          if (k === 0) {
            // An address that does not answer is named.
            const missing = server.url.replace('exercise.json', 'missing.json');
            await page.goto(`${CONCORD_URL}?exercise=${encodeURIComponent(missing)}`);
            await sclass.exerciseError.waitFor({ timeout: 30_000 });
            assert.match(await sclass.exerciseError.innerText(), new RegExp(`^Could not fetch the exercise ${missing.replace(/[.]/g, '\\.')}: .*404`));
            // The browser logs the 404 itself; nothing else may go wrong.
            assert.ok(seen.problems.every((p) => /404/.test(p)), seen.problems.join('\n'));
            seen.problems.length = 0;
            await page.goto(`${CONCORD_URL}?exercise=${encodeURIComponent(server.url)}`);
            await sclass.exerciseTitle.waitFor({ timeout: 30_000 });
          } else {
            await sclass.open();
            await sclass.openExercise(exercisePath);
          }
          assert.equal(await sclass.exerciseTitle.innerText(), 'Week 3');
          // The last student works offline once the exercise is open.
          if (k === 2) {
            // Screens fetched ahead of their tabs (a split build) are in before the network goes.
            await student.screens.waitPrefetched();
            await page.waitForLoadState('networkidle');
            await student.browser.context.setOffline(true);
          }
          // The instructions are text: the tag is shown as typed, the strong 1 is an element.
          assert.equal(await sclass.instructionsPart('h3').innerText(), 'Rate the outputs');
          assert.equal(await sclass.instructionsPart('strong').innerText(), '1');
          assert.match(await sclass.instructions.innerText(), /<i>nonsense<\/i>/);
          assert.equal(await sclass.instructionsPart('i').count(), 0);
          assert.equal(await sclass.instructionsPart('li').count(), 2);
          // The reference is hidden before the export.
          await sclass.referenceHidden.waitFor();
          assert.equal(await sclass.feedback.count(), 0);
          const savesBefore = await workspaceSaves(page);
          await sclass.rateAll(name, scores, k === 0 && process.env.CONCORD_SCREENSHOTS, k === 1 ? 1200 : 0);
          if (k === 1) {
            // A reload finds the exercise, the name and the ratings as they were left.
            await waitWorkspaceSaved(page, savesBefore);
            await student.reload();
            await sclass.open();
            await sclass.exerciseTitle.waitFor();
            assert.equal(await sclass.studentName.inputValue(), name);
            await sclass.progress('quality: 6 of 6').waitFor();
            await sclass.referenceHidden.waitFor();
          }
          assert.equal(await sclass.feedback.count(), 0);
          const { path, sub } = await sclass.saveSubmission(dir);
          assert.equal(sub.student, name);
          assert.deepEqual(sub.ratings[0].scores, ids.map((id, i) => [id, scores[i]]));
          assert.ok(!/key/i.test(readFileSync(path, 'utf8')), 'a submission never holds a key');
          if (k === 1) {
            // Bob spent over a second on the first item (the timer keeps stretches of 0.5 s and more).
            const first = sub.time_ms.find(([id]) => id === ids[0]);
            assert.ok(first && first[1] >= 1000, JSON.stringify(sub.time_ms));
          }
          // After the export: the student against the reference.
          await sclass.feedback.waitFor();
          const mine = await sclass.feedbackValue(`${name}/quality/reference/pearson`);
          close(mine, pearson(reference, scores), `${name}'s r shown to them`);
          if (process.env.CONCORD_SCREENSHOTS && k === 2) {
            await sclass.studentPanel.screenshot({ path: join(process.env.CONCORD_SCREENSHOTS, 'exercise-student.png') });
          }
          submissions.push(path);
        });
      }

      // The teacher drops the three submissions and a copy of the first.
      const copy = join(dir, 'copy-of-ann.json');
      copyFileSync(submissions[0], copy);
      const dropped = [...submissions, copy];
      await tclass.dropInClassView(dropped);
      const status = await tclass.submissionRows();
      assert.equal(status.length, 4);
      assert.match(status[3], /duplicate of concord-submission-.*-Ann\.json, left out/);
      for (const [name, scores] of Object.entries(STUDENTS)) {
        close(await tclass.value(`${name}/quality/reference/pearson`), pearson(reference, scores), `${name} r`);
        close(await tclass.value(`${name}/quality/reference/kendall_b`), kendallB(reference, scores), `${name} τ-b`);
        close(await tclass.value(`${name}/quality/reference/alpha`), alpha([reference, scores]), `${name} α`);
        close(await tclass.value(`${name}/quality/judge ${method}/pearson`), pearson(judged, scores), `${name} r with the judge`);
        close(await tclass.value(`${name}/quality/judge ${method}/kendall_b`), kendallB(judged, scores), `${name} τ-b with the judge`);
      }
      close(await tclass.value('quality/alpha'), alpha(Object.values(STUDENTS)), 'α among the students');
      assert.equal(await tclass.distribution('quality').count(), 1);

      // Every table's CSV, as the export buttons save it, is `concord class`'s.
      const out = join(dir, 'cli');
      cli(['class', exercisePath, ...dropped, '--format', 'csv', '--out', out]);
      const titles = {
        'class-submissions.csv': 'Submissions',
        'class-students.csv': 'Each student against the reference and the judges',
        'class-agreement.csv': 'Agreement among the students',
      };
      await expectSameClassCsv(tclass, out, titles);
      // The seed-002 workbench adds the students as raters without replacing those here: the
      // same files again are already here, Bob with another rating is a conflict, kept as he was.
      const otherBob = join(dir, 'other-bob.json');
      const bob = JSON.parse(readFileSync(submissions[1], 'utf8'));
      bob.ratings[0].scores[0][1] = 5;
      writeFileSync(otherBob, JSON.stringify(bob));
      await results.open();
      await results.addRaters(submissions);
      await results.importMessage('Added 3 raters.').waitFor();
      await results.addRaters([copy, otherBob]);
      await results.importMessage('Added 0 raters (1 already here).').waitFor();
      assert.match(await results.importSaid.innerText(), /other-bob\.json: “Bob” already rated quality here with other scores; the ones here are kept/);
      const agreement = await results.agreementRows();
      for (const [name, scores] of Object.entries(STUDENTS)) {
        const row = agreement.find((r) => r.startsWith(name));
        assert.ok(row, `${name} in ${agreement}`);
        const cells = row.split('\t').map((c) => c.trim());
        assert.deepEqual(cells.slice(1, 3), ['student', '6']);
        assert.equal(cells[3], pearson(reference, scores).toFixed(3), `${name}'s r on Results`);
      }

      // Back on the Class screen, the teacher's form and the class view are as they were left.
      await teacher.screens.tab('Class').click();
      await tclass.classReport.waitFor();
      assert.equal(await tclass.title.inputValue(), 'Week 3');
      await tclass.exerciseSaved.waitFor();

      const shots = process.env.CONCORD_SCREENSHOTS;
      if (shots) {
        await tpage.screenshot({ path: join(shots, 'class.png'), fullPage: true });
        await tpage.emulateMedia({ colorScheme: 'dark' });
        await tpage.screenshot({ path: join(shots, 'class-dark.png'), fullPage: true });
        await tpage.emulateMedia({ colorScheme: 'light' });
        await tpage.setViewportSize({ width: 375, height: 800 });
        await tclass.makePanel.screenshot({ path: join(shots, 'class-make-375.png') });
        await tclass.classStudents.screenshot({ path: join(shots, 'class-students-375.png') });
      }
    } finally {
      if (server) await server.close();
    }
  });
});
