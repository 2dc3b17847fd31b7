// Page object for the CoEval screen (src/screens/coeval/).
import { readFile } from 'node:fs/promises';

export class CoEvalPage {
  constructor(page) {
    this.page = page;
    this.saveState = page.getByTestId('save-state');
    this.study = page.getByTestId('coeval-study');
    this.error = page.getByTestId('coeval-error');
    this.parts = page.getByTestId('scrutiny-parts');
    this.partRows = page.locator('[data-testid="scrutiny-parts"] [data-testid="part"]');
    this.position = page.getByTestId('scrutiny-position');
    this.criterionName = page.getByTestId('scrutiny-criterion');
    this.ownScore = page.getByTestId('own-score');
    this.lastAction = page.getByTestId('last-action');
    this.timer = page.getByTestId('instance-timer');
    this.keyHelp = page.getByTestId('key-help');
  }

  /** Opens the app (or reloads it) and goes to the CoEval screen, waiting for saved work. */
  async open(url) {
    if (url) await this.page.goto(url);
    await this.page.getByRole('tab', { name: 'CoEval', exact: true }).click();
    await this.page.getByRole('tablist', { name: 'CoEval steps' }).waitFor();
    await this.saved();
  }

  async reload() {
    await this.page.reload();
    await this.open();
  }

  /** Resolves once every action written so far has committed to IndexedDB. */
  async saved() {
    await this.page.getByTestId('save-state').filter({ hasText: 'All actions saved' }).waitFor();
  }

  /** One of the screen's own steps (not the app's screens, which share some names). */
  async tab(name) {
    await this.page.getByRole('tablist', { name: 'CoEval steps' }).getByRole('tab', { name, exact: true }).click();
  }

  /** The LLM's status line (ideation, evaluation), once it says `text`. */
  llmStatus(text) { return this.page.getByTestId('llm-status').filter({ hasText: text }); }
  async llmStatusText() { return this.page.getByTestId('llm-status').textContent(); }
  /** Waits until the LLM's status line matches `pattern`. */
  async waitLlmStatus(pattern) {
    await this.page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="llm-status"]').textContent), pattern.source);
  }
  async ideate() { await this.page.getByRole('button', { name: 'Ideate criteria with the LLM' }).click(); }
  async evaluateWithLlm() { await this.page.getByRole('button', { name: 'Evaluate instances with the LLM' }).click(); }
  async pauseLlm() { await this.page.getByRole('button', { name: 'Pause LLM run' }).click(); }
  async resumeLlm() { await this.page.getByRole('button', { name: 'Resume LLM run' }).click(); }
  async cancelLlm() { await this.page.getByRole('button', { name: 'Cancel LLM run' }).click(); }
  /** A text shown anywhere on the screen (e.g. a run's message). */
  text(pattern) { return this.page.getByText(pattern); }
  /** How many answers one ideation asks for (n), committed. */
  async setIdeationAnswers(n) {
    const box = this.page.getByLabel('Ideation answers');
    await box.fill(String(n));
    await box.dispatchEvent('change');
  }
  async useRecurring() { await this.page.getByRole('button', { name: 'Use the recurring criteria' }).click(); }
  /** The criteria's texts, in order. */
  async criterionTexts() { return this.page.locator('[data-testid="criterion"] .criterion-text').allTextContents(); }
  /** The texts of the parts under scrutiny. */
  async partTexts() { return this.page.locator('[data-testid="scrutiny-parts"] .part-text').allTextContents(); }
  /** The list style of list `testid` (criteria that carry numbers are not numbered again). */
  async listStyle(testid) { return this.page.getByTestId(testid).evaluate((ol) => getComputedStyle(ol).listStyleType); }
  /** The count of imported annotator files, once it says `text`. */
  importedCount(text) { return this.page.getByTestId('imported-count').filter({ hasText: text }); }
  /** The seconds the instance timer shows. */
  async timerSeconds() { return Number((await this.timer.textContent()).match(/(\d+) s/)[1]); }
  /** Waits until the instance timer matches `pattern`. */
  async waitTimer(pattern) {
    await this.page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="instance-timer"]').textContent), pattern.source);
  }
  /** The export button of table `title` (a pattern) in `format`. */
  exportButton(title) { return this.page.getByRole('button', { name: title }); }
  /** Figure 3's group 1 line of the released report. */
  get releasedGroup1() { return this.page.getByTestId('released-group1'); }

  /** The frame of the screen while a student does an exercise's CoEval task. */
  get exerciseFrame() { return this.page.getByTestId('coeval-exercise'); }
  async backToExercise() { await this.exerciseFrame.getByRole('button', { name: 'Back to the exercise' }).click(); }
  /** The criteria of stage 1, as listed. */
  get criteriaList() { return this.page.getByTestId('criteria-list'); }
  /** How many keys the key help documents. */
  async keyCount() { return this.keyHelp.locator('dt').count(); }
  /** The first table of the open step, once it is shown. */
  async waitTable() { await this.page.locator('#screen-panel table[data-table]').first().waitFor(); }

  async setAnnotator(name) {
    await this.tab('Task setup');
    await this.page.getByLabel('Your name (annotator)').fill(name);
    await this.page.getByRole('button', { name: 'Use this name' }).click();
    await this.page.getByTestId('coeval-annotator').filter({ hasText: `Annotator: ${name}` }).waitFor();
  }

  /** Loads a combine_data.json-shaped file and starts its first task (opens stage 1). */
  async startFromFile(name, text) {
    await this.tab('Task setup');
    await this.page.getByLabel('CoEval combine_data.json').setInputFiles({
      name, mimeType: 'application/json', buffer: Buffer.from(text),
    });
    await this.page.getByTestId('coeval-dataset').filter({ hasText: name }).waitFor();
    await this.page.getByRole('button', { name: 'Start with this task' }).click();
    await this.page.getByTestId('criteria-list').waitFor();
  }

  /** Types a task with its instances and starts it (opens stage 1). */
  async startTyped({ task, description, input, output, criteria = [], instances }) {
    await this.tab('Task setup');
    await this.page.getByLabel('Task name').fill(task);
    await this.page.getByLabel('Task description').fill(description);
    await this.page.getByLabel('Input field').fill(input);
    await this.page.getByLabel('Output field').fill(output);
    await this.page.getByLabel('Criteria (one per line)').fill(criteria.join('\n'));
    for (const i of instances) {
      await this.page.getByLabel('Instance input').fill(i.input);
      await this.page.getByLabel('Instance output').fill(i.output);
      await this.page.getByLabel('Generating model').fill(i.system);
      await this.page.getByRole('button', { name: 'Add instance' }).click();
    }
    await this.page.getByRole('button', { name: 'Start typed task' }).click();
    await this.page.getByRole('heading', { name: 'Stage 1: scrutinise the criteria' }).waitFor();
  }

  /** Stage 1: a decision on criterion `n` (1-based). */
  async decideCriterion(n, action, { reason = '', revised } = {}) {
    await this.page.getByLabel(`Reason for criterion ${n}`).fill(reason);
    if (revised !== undefined) await this.page.getByLabel(`Revised wording of criterion ${n}`).fill(revised);
    await this.page.getByRole('button', { name: `${action} criterion ${n}` }).click();
  }

  finalCriteria() {
    return this.page.locator('[data-testid="final-criteria"] li').allTextContents();
  }

  /** Stage 2: focuses the part list (the keyboard target). */
  async startScrutiny() {
    await this.tab('Stage 2: instances');
    await this.parts.waitFor();
    await this.parts.focus();
  }

  /** Presses keys on the focused element, one by one. */
  async keys(...keys) {
    for (const k of keys) await this.page.keyboard.press(k);
  }

  /** Types into the open editor: the text field when given, then the reason; Enter saves. */
  async edit({ text, reason = '' }) {
    if (text !== undefined) {
      const field = this.page.getByLabel('New text');
      await field.fill(text);
    }
    const why = this.page.getByLabel('Reason', { exact: true });
    await why.fill(reason);
    await why.press('Enter');
    await this.parts.waitFor();
  }

  decisions() {
    return this.page.locator('[data-testid="scrutiny-parts"] [data-testid="part-decision"]').allTextContents();
  }

  labels() {
    return this.page.locator('[data-testid="scrutiny-parts"] .part-label').allTextContents();
  }

  /** The rows of a table (by test id) as arrays of cell texts, header excluded. */
  async table(testid) {
    return this.page.locator(`[data-testid="${testid}"] tbody tr`).evaluateAll((rows) =>
      rows.map((r) => Array.from(r.querySelectorAll('th, td')).map((c) => c.textContent.trim())));
  }

  /** Clicks `button` and returns the downloaded file's text and suggested name. */
  async download(button) {
    const [dl] = await Promise.all([this.page.waitForEvent('download'), button.click()]);
    const path = await dl.path();
    return { name: dl.suggestedFilename(), text: await readFile(path, 'utf8') };
  }

  async exportMine() {
    await this.tab('Annotators & merge');
    return this.download(this.page.getByRole('button', { name: 'Export my annotations' }));
  }

  async importFiles(files) {
    await this.tab('Annotators & merge');
    await this.page.getByLabel('Import annotator files').setInputFiles(
      files.map(({ name, text }) => ({ name, mimeType: 'application/json', buffer: Buffer.from(text) })),
    );
    await this.page.getByTestId('imported-count').filter({ hasText: `${files.length} annotator files imported` }).waitFor();
  }

  async forgetImported() {
    await this.tab('Annotators & merge');
    await this.page.getByRole('button', { name: 'Forget imported files' }).click();
    await this.page.getByTestId('imported-count').filter({ hasText: '0 annotator files imported' }).waitFor();
  }

  async exportMerged() {
    await this.tab('Annotators & merge');
    return this.download(this.page.getByRole('button', { name: 'Export merged annotations' }));
  }

  /** Imports released files from disk paths and waits for the recomputed tables. */
  async importReleased(paths) {
    await this.tab('Released files');
    await this.page.getByLabel('Released CoEval files').setInputFiles(paths);
    await this.page.getByTestId('released-results').waitFor({ timeout: 120_000 });
  }

  async releasedReport() {
    return this.download(this.page.getByRole('button', { name: 'Download report (JSON)' }));
  }
}
