// Page object for the Class screen (classroom exercises) and the Rate screen's exercise mode.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export class ClassPage {
  constructor(page) {
    this.page = page;
  }

  async open() {
    await this.page.getByRole('tab', { name: 'Class' }).click();
    await this.page.getByTestId('student-panel').waitFor();
  }

  get exerciseError() { return this.page.getByTestId('exercise-error'); }
  get exerciseTitle() { return this.page.getByTestId('exercise-title'); }
  /** The exercise's instructions as shown (Markdown made into elements; `part('h3')` one of them). */
  get instructions() { return this.page.getByTestId('exercise-instructions'); }
  instructionsPart(tag) { return this.instructions.locator(tag); }
  /** Said while the reference is hidden (before the export). */
  get referenceHidden() { return this.page.getByTestId('reference-hidden'); }
  /** The student's feedback (after the export). */
  get feedback() { return this.page.getByTestId('exercise-feedback'); }
  /** The full-precision value of the feedback's cell `key`. */
  async feedbackValue(key) {
    return Number(await this.feedback.locator(`td[data-cell="${key}"]`).getAttribute('data-value'));
  }
  get studentName() { return this.page.locator('#student-name'); }
  get studentPanel() { return this.page.getByTestId('student-panel'); }
  /** The exercise's progress line, once it says `text`. */
  progress(text) { return this.page.getByTestId('exercise-progress').filter({ hasText: text }); }
  get title() { return this.page.getByLabel('Title', { exact: true }); }
  get exerciseSaved() { return this.page.getByTestId('exercise-saved'); }
  get classReport() { return this.page.getByTestId('class-report'); }
  get classStudents() { return this.page.getByTestId('class-students'); }
  /** The class view's distribution figure of attribute `name`. */
  distribution(name) { return this.page.getByTestId(`class-distribution-${name}`); }
  /** The class view's submissions table, a text a row. */
  async submissionRows() { return this.page.locator('[data-testid="class-submissions"] tbody tr').allInnerTexts(); }

  /** What the make panel says the run-judges task holds. */
  get runJudgesSummary() { return this.page.getByTestId('exercise-run-judges'); }
  /** The student's feedback on their runs of the given judges (after the export). */
  get feedbackRuns() { return this.page.getByTestId('exercise-feedback-runs'); }
  async feedbackRunsValue(key) {
    return Number(await this.feedbackRuns.locator(`td[data-cell="${key}"]`).getAttribute('data-value'));
  }
  /** Clicks "Export my submission" without waiting for a download (it may be refused). */
  async clickExport() { await this.page.getByTestId('export-submission').click(); }
  /** The class view's runs table: [student, method, attribute, model] a row. */
  async runRows() {
    return this.page.locator('[data-testid="class-runs"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.querySelector('th')?.innerText.trim(), ...[...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.innerText.trim())]));
  }
  get classRuns() { return this.page.getByTestId('class-runs'); }
  /** The "Scrutinise CoEval criteria" task's checkbox. */
  get scrutiniseTask() { return this.page.getByLabel(/^Scrutinise CoEval criteria/); }
  /** What the make panel says of the CoEval study the exercise carries, once it says `text`. */
  coevalStudy(text) { return this.page.getByTestId('exercise-coeval-study').filter({ hasText: text }); }
  /** "Open the CoEval screen" (a scrutinise task). */
  async openCoevalScreen() { await this.page.getByRole('button', { name: 'Open the CoEval screen' }).click(); }
  /** The exercise's error, once it says `text`. */
  exerciseErrorWith(text) { return this.exerciseError.filter({ hasText: text }); }
  /** The class view's CoEval students table: the text of every cell, a row. */
  async coevalStudentRows() {
    return this.page.locator('[data-testid="class-coeval-students"] tbody tr').evaluateAll((trs) =>
      trs.map((r) => Array.from(r.querySelectorAll('th, td')).map((c) => c.textContent.trim())));
  }
  /** The class view's CoEval criteria table, a text a row. */
  async coevalCriteriaRows() { return this.page.locator('[data-testid="class-coeval-criteria"] tbody tr').allInnerTexts(); }
  /** The alt-test task's settings on the make panel. */
  get altTestSettings() { return this.page.getByTestId('exercise-alt-test'); }
  /** The alt-test task's ε. */
  async setEpsilon(x) { await this.page.locator('#exercise-epsilon').fill(String(x)); }
  /** Table `id` of the class report. */
  reportTable(id) { return this.classReport.locator(`table[data-table="${id}"]`); }
  /** The rows of the class report's table `id` as [label, the text of cell `column`]. */
  async reportColumn(id, column) {
    return this.reportTable(id).locator('tbody tr').evaluateAll((rows, c) => rows.map((r) => [r.querySelector('th').innerText.trim(), r.querySelectorAll('td')[c].innerText.trim()]), column);
  }
  /** The label of task `kind`'s checkbox (`correct_judge`, `rate_attributes`, `run_judges`). */
  taskLabel(kind) { return this.page.locator(`label[for="task-${kind}"]`); }
  async checkTask(kind) { await this.page.locator(`#task-${kind}`).check(); }
  /** The first judge run offered to correct (`method / attribute`). */
  async firstRunToCorrect() { return (await this.page.getByLabel('Judge run to correct').locator('option').first().innerText()).trim(); }
  /** The exercise's tasks as the student sees them. */
  get exerciseTasks() { return this.page.getByTestId('exercise-tasks'); }
  get rateButton() { return this.page.getByRole('button', { name: 'Rate the items' }); }
  /** Types the student's name and commits it. */
  async setStudentName(name) { await this.studentName.fill(name); await this.studentName.dispatchEvent('change'); }
  /** "Correct the judge": opens the Review panel in exercise mode. */
  async correctJudge() { await this.page.getByTestId('correct-judge').click(); }
  get classPanel() { return this.page.getByTestId('class-panel'); }
  get classCorrections() { return this.page.getByTestId('class-corrections'); }
  /** The corrections table's rows: { label, values } (a cell's full-precision value, else its text). */
  async correctionRows() {
    return this.classCorrections.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      label: tr.querySelector('th')?.innerText.trim(),
      values: [...tr.querySelectorAll('td')].map((td) => td.dataset.value === undefined ? td.innerText.trim() : Number(td.dataset.value)),
    })));
  }
  /** The items of "Items the students changed most", in order. */
  async changedItems() { return (await this.page.locator('[data-testid="class-changed-items"] tbody tr th').allInnerTexts()).map((t) => t.trim()); }
  /** The low end of the interval of the cell keyed `key` (null when it has none). */
  async low(key) { return this.page.locator(`td[data-cell="${key}"]`).getAttribute('data-low'); }

  /** The teacher's panels (making an exercise, the class view), folded while a student has an exercise open. */
  get teacherTools() { return this.page.getByTestId('teacher-tools'); }
  get makePanel() { return this.page.getByTestId('make-panel'); }

  /** Makes an exercise from the open workspace and returns its download. */
  async makeExercise({ title, attributes, sample, seed, instructions, hide = true, rate = true, correct, run = false }) {
    const p = this.page;
    await this.titleAndTasks({ title, rate, correct });
    // Run given judges: the Judge screen's methods.
    const runBox = p.locator('#task-run_judges');
    if ((await runBox.isChecked()) !== run) await runBox.click();
    for (const a of attributes) await p.locator(`#exercise-attr-${a}`).check();
    if (sample !== undefined) await p.getByLabel('Sample size').fill(String(sample));
    if (seed !== undefined) await p.getByLabel('Seed', { exact: true }).fill(String(seed));
    if (instructions !== undefined) await p.locator('#exercise-instructions').fill(instructions);
    const box = p.locator('#exercise-hide');
    if ((await box.isChecked()) !== hide) await box.click();
    const [download] = await Promise.all([
      p.waitForEvent('download'),
      p.getByRole('button', { name: 'Save the exercise' }).click(),
    ]);
    await p.getByTestId('exercise-saved').waitFor();
    return download;
  }

  /** The title and the tasks: rate attributes (ticked at first), correct a judge (the run's key). */
  async titleAndTasks({ title, rate, correct }) {
    const p = this.page;
    await p.getByLabel('Title', { exact: true }).fill(title);
    const rateBox = p.locator('#task-rate_attributes');
    if ((await rateBox.isChecked()) !== rate) await rateBox.click();
    const correctBox = p.locator('#task-correct_judge');
    if ((await correctBox.isChecked()) !== Boolean(correct)) await correctBox.click();
    if (correct) await p.getByLabel('Judge run to correct').selectOption(correct);
  }

  /** Ticks tasks and attributes as given and clicks Save without waiting for a download; returns what the panel says: { saved, error, rateError }. */
  async trySave({ title, rate, correct, attributes = [] }) {
    const p = this.page;
    await this.titleAndTasks({ title, rate, correct });
    for (const box of await p.locator('input[id^="exercise-attr-"]').all()) {
      const name = (await box.getAttribute('id')).slice('exercise-attr-'.length);
      if ((await box.isChecked()) !== attributes.includes(name)) await box.click();
    }
    await p.getByRole('button', { name: 'Save the exercise' }).click();
    await p.waitForFunction(() => document.querySelector('[data-testid="exercise-saved"], [data-testid="exercise-make-error"], [data-testid="exercise-rate-error"]'));
    const text = async (id) => {
      const el = p.getByTestId(id);
      return (await el.count()) ? (await el.innerText()).trim() : '';
    };
    return { saved: await text('exercise-saved'), error: await text('exercise-make-error'), rateError: await text('exercise-rate-error') };
  }

  /** Opens an exercise file (a path) as a student. */
  async openExercise(path) {
    await this.page.getByLabel('Open an exercise').setInputFiles(path);
    await this.page.getByTestId('exercise-title').waitFor();
  }

  /** Types the name, rates every item with the keyboard on the Rate screen, comes back. */
  async rateAll(name, scores, screenshots, lingerMs = 0) {
    const p = this.page;
    await p.locator('#student-name').fill(name);
    await p.getByRole('button', { name: 'Rate the items' }).click();
    await p.getByTestId('rate-exercise').waitFor();
    await p.getByRole('button', { name: 'Start rating' }).click();
    const card = p.getByTestId('rate-card');
    await card.waitFor();
    for (const [i, s] of scores.entries()) {
      await card.getByRole('heading', { name: new RegExp(`^Item ${i + 1} of ${scores.length}`) }).waitFor();
      if (i === 0 && lingerMs) await p.waitForTimeout(lingerMs);
      await card.press(String(s));
    }
    await card.getByRole('heading', { name: new RegExp(`${scores.length} rated$`) }).waitFor();
    if (screenshots) await p.screenshot({ path: `${screenshots}/exercise-rate.png` });
    await p.getByRole('button', { name: 'Back to the exercise' }).click();
    await p.getByTestId('exercise-progress').waitFor();
  }

  /** Goes from the exercise to the Run screen (a run-judges task). */
  async openRunScreen() {
    await this.page.getByTestId('open-run').click();
    await this.page.getByLabel('Base URL', { exact: true }).waitFor();
  }

  /** Exports the submission into `dir` under the name the page gives it; returns { path, raw, sub }
   * (the file's text and its JSON). */
  async saveSubmission(dir) {
    const download = await this.exportSubmission();
    const path = join(dir, download.suggestedFilename());
    await download.saveAs(path);
    const raw = readFileSync(path, 'utf8');
    return { path, raw, sub: JSON.parse(raw) };
  }

  /** Exports the submission and returns its download. */
  async exportSubmission() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByTestId('export-submission').click(),
    ]);
    await this.page.getByTestId('submission-exported').waitFor();
    return download;
  }

  /** Drops files (paths) in the class view and waits for the report (opening "Teacher's
   * tools" first when a student's exercise has folded them away). */
  async dropInClassView(paths) {
    if (await this.teacherTools.count() && !(await this.teacherTools.evaluate((d) => d.open))) {
      await this.teacherTools.locator(':scope > summary').click();
    }
    await this.page.getByLabel('Exercise and submissions').setInputFiles(paths);
    await this.page.getByTestId('class-report').waitFor();
  }

  /** A table's export in `format` (its button), as text. */
  async exportTable(title, format) {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByRole('button', { name: `Export ${title} as ${format}`, exact: true }).click(),
    ]);
    return download;
  }

  /** The full-precision value of the cell keyed `key`. */
  async value(key) {
    const v = await this.page.locator(`td[data-cell="${key}"]`).first().getAttribute('data-value');
    return v === null ? null : Number(v);
  }
}
