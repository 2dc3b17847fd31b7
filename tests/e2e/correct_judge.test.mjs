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
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { ClassPage } from './pages/class_page.mjs';
import { ReviewPage } from './pages/review_page.mjs';
import { JudgePage, RunPage } from './pages/workbench_pages.mjs';
import { alpha, close, kendallB, pearson } from './stats.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
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
  const dir = mkdtempSync(join(tmpdir(), 'concord-correct-'));
  const browsers = [];
  const shots = process.env.CONCORD_SCREENSHOTS;
  try {
    // The teacher runs the judge.
    const teacher = await launch();
    browsers.push(teacher);
    const tpage = await teacher.context.newPage();
    const tseen = watch(tpage);
    const data = new DataPage(tpage);
    await data.open(CONCORD_URL);
    await tpage.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await data.loadFile('correct.csv', csv());
    await setScenario({ reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 2 });
    const judge = new JudgePage(tpage);
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const run = new RunPage(tpage);
    await run.open();
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: 'sk-correct' });
    // The generic criterion of `quality` is the template's placeholder: sent knowingly.
    await run.sendAnyway();
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    // The exercise: correct that run, nothing to rate.
    const tclass = new ClassPage(tpage);
    await tclass.open();
    // The task is offered (no longer "not supported yet").
    assert.equal(await tpage.locator('label[for="task-correct_judge"]').innerText(), 'Correct a judge');
    await tpage.locator('#task-correct_judge').check();
    const runKey = (await tpage.getByLabel('Judge run to correct').locator('option').first().innerText()).trim();
    assert.match(runKey, / \/ quality$/);
    if (shots) {
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tpage.getByTestId('make-panel').screenshot({ path: join(shots, 'class-make-correct-375.png') });
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
      const student = await launch();
      browsers.push(student);
      const page = await student.context.newPage();
      const seen = watch(page);
      await new DataPage(page).open(CONCORD_URL);
      await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
      const sclass = new ClassPage(page);
      await sclass.open();
      await sclass.openExercise(exercisePath);
      assert.equal(await page.getByTestId('exercise-title').innerText(), 'Week 4: correct the judge');
      assert.match(await page.getByTestId('exercise-tasks').innerText(), new RegExp(`Correct the judge ${runKey.replace(/[/]/g, '\\/')}`));
      // Nothing to rate: no Rate button; the reference is hidden.
      assert.equal(await page.getByRole('button', { name: 'Rate the items' }).count(), 0);
      await page.getByTestId('reference-hidden').waitFor();
      const nameBox = page.locator('#student-name');
      await nameBox.fill(name);
      await nameBox.dispatchEvent('change');
      await page.getByTestId('correct-judge').click();

      // The Review panel, in exercise mode, on the exercise's run.
      const review = new ReviewPage(page);
      await page.locator('[data-testid="review-panel"][data-ready="true"]').waitFor({ timeout: 30_000 });
      await page.getByTestId('review-exercise').filter({ hasText: `go into your submission, ${name}` }).waitFor();
      assert.equal(await page.getByLabel('Your name (reviewer)').inputValue(), name);
      assert.equal(await page.getByTestId('review-run').inputValue(), runKey);
      for (const [i, steps] of actions.entries()) {
        await review.expectItem({ position: `Item ${i + 1} of 6`, judge: String(judged[i]), human: 'none' });
        assert.equal((await page.getByTestId('review-item-id').innerText()).trim(), ids[i]);
        if (i === 0) await page.waitForTimeout(1200);
        for (const step of steps) {
          if (step === 'undo') {
            await review.press('u');
            await review.expectItem({ position: `Item ${i + 2} of 6`, verdict: 'not reviewed' });
            await review.press('k');
          } else if (step.startsWith('f:')) {
            await review.press('f');
            await page.getByTestId('review-note').fill(step.slice(2));
            await page.getByTestId('review-note').press('Enter');
          } else {
            await review.press(step);
          }
        }
        if (i + 1 < actions.length) await review.expectItem({ position: `Item ${i + 2} of 6` });
      }
      await review.waitSaved();
      if (shots && k === 0) {
        await review.press('k');
        await page.getByTestId('review-panel').screenshot({ path: join(shots, 'class-correct-review.png') });
        await page.emulateMedia({ colorScheme: 'dark' });
        await page.getByTestId('review-panel').screenshot({ path: join(shots, 'class-correct-review-dark.png') });
        await page.emulateMedia({ colorScheme: 'light' });
        await page.setViewportSize({ width: 375, height: 800 });
        await page.getByTestId('review-exercise').screenshot({ path: join(shots, 'class-correct-review-375.png') });
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      await page.getByTestId('review-exercise').getByRole('button', { name: 'Back to the exercise' }).click();
      await page.getByTestId('exercise-progress').filter({ hasText: "the judge's ratings reviewed: 6 of 6" }).waitFor();
      assert.equal(await page.getByTestId('exercise-feedback').count(), 0);
      const download = await sclass.exportSubmission();
      const path = join(dir, download.suggestedFilename());
      await download.saveAs(path);
      const raw = readFileSync(path, 'utf8');
      const sub = JSON.parse(raw);
      assert.equal(sub.student, name);
      assert.equal(sub.version, 2);
      assert.deepEqual(sub.ratings, []);
      assert.equal(sub.review.run, runKey);
      assert.deepEqual(sub.review.decisions, decisions(actions).map((d, i) => ({ item: ids[i], ...d })));
      assert.ok(!/key|sk-/i.test(raw), 'a submission never holds a key');
      const first = sub.review.time_ms.find(([id]) => id === ids[0]);
      assert.ok(first && first[1] >= 1000, JSON.stringify(sub.review.time_ms));
      // After the export: the judge alone and with the student's corrections, against the reference.
      await page.getByTestId('exercise-feedback').waitFor();
      const after = judged.map((j, i) => (decisions(actions)[i].verdict === 'change' ? decisions(actions)[i].rating : j));
      const mine = Number(await page.locator(`[data-testid="exercise-feedback"] td[data-cell="${name}/review/pearson"]`).getAttribute('data-value'));
      close(mine, pearson(reference, after), `${name}'s r shown to them`);
      if (shots && k === 1) {
        await page.getByTestId('student-panel').screenshot({ path: join(shots, 'class-correct-student.png') });
      }
      assert.deepEqual(seen.problems, [], `${name}'s page`);
      submissions.push(path);
    }

    // The teacher drops the submissions and a copy of the first.
    const copy = join(dir, 'copy-of-ann.json');
    copyFileSync(submissions[0], copy);
    const dropped = [...submissions, copy];
    await tclass.dropInClassView(dropped);
    const status = await tpage.locator('[data-testid="class-submissions"] tbody tr').allInnerTexts();
    assert.equal(status.length, 3);
    assert.match(status[2], /duplicate of concord-submission-.*-Ann\.json, left out/);
    // Items rated (none), then the judge's ratings reviewed (all six).
    assert.match(status[0], /\tAnn\t0\t6\t/);
    // Nothing to rate: no table of ratings against the reference.
    assert.equal(await tpage.getByTestId('class-students').count(), 0);
    const rows = await tpage.locator('[data-testid="class-corrections"] tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      label: tr.querySelector('th')?.innerText.trim(),
      values: [...tr.querySelectorAll('td')].map((td) => td.dataset.value === undefined ? td.innerText.trim() : Number(td.dataset.value)),
    })));
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
      const low = await tpage.locator(`td[data-cell="${name}/review/alpha"]`).getAttribute('data-low');
      assert.ok(low !== null, `${name}'s α has an interval`);
    }
    // The items most changed, most first (ties in the items' order).
    const expectedOrder = ids.map((id, i) => [id, changedBy[i], i]).filter(([, c]) => c > 0)
      .sort((a, b) => b[1] - a[1] || a[2] - b[2]).map(([id]) => id);
    const changedRows = await tpage.locator('[data-testid="class-changed-items"] tbody tr th').allInnerTexts();
    assert.deepEqual(changedRows.map((t) => t.trim()), expectedOrder);

    // Every table's CSV, as the export buttons save it, is `concord class`'s.
    const out = join(dir, 'cli');
    execFileSync(CLI, ['class', exercisePath, ...dropped, '--format', 'csv', '--out', out]);
    const files = readdirSync(out).sort();
    assert.deepEqual(files, ['class-changed-items.csv', 'class-corrections.csv', 'class-submissions.csv']);
    const titles = {
      'class-submissions.csv': 'Submissions',
      'class-corrections.csv': `Each student's corrections of the judge ${runKey}`,
      'class-changed-items.csv': 'Items the students changed most',
    };
    for (const f of files) {
      const download = await tclass.exportTable(titles[f], 'CSV');
      assert.equal(download.suggestedFilename(), f);
      const saved = join(dir, `app-${f}`);
      await download.saveAs(saved);
      assert.equal(readFileSync(saved, 'utf8'), readFileSync(join(out, f), 'utf8'), f);
    }
    if (shots) {
      await tpage.getByTestId('class-panel').screenshot({ path: join(shots, 'class-corrections.png') });
      await tpage.emulateMedia({ colorScheme: 'dark' });
      await tpage.getByTestId('class-panel').screenshot({ path: join(shots, 'class-corrections-dark.png') });
      await tpage.emulateMedia({ colorScheme: 'light' });
      await tpage.setViewportSize({ width: 375, height: 800 });
      await tpage.getByTestId('class-corrections').screenshot({ path: join(shots, 'class-corrections-375.png') });
    }
    assert.deepEqual(tseen.problems, [], "the teacher's page");
  } finally {
    for (const b of browsers) await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
