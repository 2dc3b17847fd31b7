// Page object for the Results screen's "Review and correct" panel.
import { readFileSync } from 'node:fs';
import { waitSavedAs } from './workbench_pages.mjs';
import { downloadOf, tableExportButton } from './downloads.mjs';

export class ReviewPage {
  constructor(page) {
    this.page = page;
    this.panel = page.getByTestId('review-panel');
    this.walk = page.getByTestId('review-walk');
    this.position = page.getByTestId('review-position');
    this.judge = page.getByTestId('review-judge');
    this.human = page.getByTestId('review-human');
    this.verdict = page.getByTestId('review-verdict');
    this.saved = page.getByTestId('review-saved');
    this.table = page.getByTestId('review-table');
    this.error = page.getByTestId('review-error');
  }
  /** The review's error, once it says `text`. */
  errorWith(text) { return this.error.filter({ hasText: text }); }
  /** The reviewer's name. */
  get reviewer() { return this.page.getByLabel('Your name (reviewer)'); }
  /** The run under review. */
  get run() { return this.page.getByTestId('review-run'); }
  /** The id of the item under review. */
  get itemId() { return this.page.getByTestId('review-item-id'); }
  /** The note field a flag asks for. */
  get note() { return this.page.getByTestId('review-note'); }
  /** The exercise's frame around the panel (a correct-judge task). */
  get exercise() { return this.page.getByTestId('review-exercise'); }
  /** Waits until the panel is ready (its run and decisions loaded). */
  async waitReady(timeout) { await this.page.locator('[data-testid="review-panel"][data-ready="true"]').waitFor({ timeout }); }
  /** Flags the item with `note`. */
  async flag(note) {
    await this.press('f');
    await this.note.fill(note);
    await this.note.press('Enter');
  }
  /** Leaves the review for the exercise. */
  async backToExercise() { await this.exercise.getByRole('button', { name: 'Back to the exercise' }).click(); }
  async open() {
    await this.page.getByRole('tab', { name: 'Results' }).click();
    await this.page.locator('[data-testid="review-panel"][data-ready="true"]').waitFor();
  }
  async setReviewer(name) {
    const input = this.page.getByLabel('Your name (reviewer)');
    await input.fill(name);
    await input.dispatchEvent('change');
    await this.page.locator('[data-testid="review-panel"][data-ready="true"]').waitFor();
  }
  /** Presses `keys` one after the other with the walk focused. */
  async press(...keys) {
    await this.walk.focus();
    for (const key of keys) await this.page.keyboard.press(key);
  }
  /** What the item under review shows. */
  async item() {
    return {
      position: (await this.position.innerText()).trim(),
      judge: (await this.judge.innerText()).trim(),
      human: (await this.human.innerText()).trim(),
      verdict: (await this.verdict.innerText()).trim(),
    };
  }
  /** Waits (up to 5 s: the view updates after the key's event) until the item under review shows `want` (the fields given). */
  async expectItem(want) {
    const deadline = Date.now() + 5_000;
    let got;
    for (;;) {
      got = await this.item();
      const same = Object.entries(want).every(([k, v]) => got[k] === v);
      if (same) return got;
      if (Date.now() > deadline) break;
      await this.page.waitForTimeout(50);
    }
    const shown = Object.fromEntries(Object.keys(want).map((k) => [k, got[k]]));
    throw new Error(`the item under review shows ${JSON.stringify(shown)}, expected ${JSON.stringify(want)}`);
  }
  /** Takes the focus out of the review (to the Results screen's Statistic control): the item's
   * timer stops, and this waits until what it recorded is in IndexedDB, so exports made next
   * all see the same events. */
  async leave() {
    await this.page.getByLabel('Statistic', { exact: true }).focus();
    await this.waitSaved();
  }
  /** Waits until every action made is in IndexedDB. */
  async waitSaved() {
    await this.page.waitForFunction(() => /^All [\d,]+ actions? saved/.test(document.querySelector('[data-testid="review-saved"]')?.innerText ?? ''));
  }
  /** The review table's rows as { run, label, cells: [text…] } (cells after the label). */
  async rows() {
    await this.table.waitFor();
    return this.table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => {
      const cells = [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim());
      return { run: cells[0], label: cells[1], cells: cells.slice(2) };
    }));
  }
  /** Opens the demo bundle (two judges of 15 items, coherence and fluency on 1–5) on Results, once the saved workspace is restored. */
  async openDemoBundle(url) {
    await this.page.goto(`${url}?bundle=demo/example-bundle.json&screen=results`);
    await this.page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await this.page.getByTestId('results-table').waitFor({ timeout: 60_000 });
    await this.page.locator('[data-testid="review-panel"][data-ready="true"]').waitFor();
    // Opened to the end (it shows Results once more when done) and saved as a workspace of
    // its own.
    await waitSavedAs(this.page, 'example-bundle');
    // The link is followed to the end: the bundle dropped from the address, its view shown.
    await this.page.waitForFunction(() => !location.search.includes('bundle='), null, { timeout: 30_000 });
    await this.page.getByTestId('results-table').waitFor();
  }
  /** What the panel says went wrong ('' when nothing). */
  /** What the review's error box says ('' when there is none). */
  async errorText() {
    const box = this.page.getByTestId('review-error');
    return (await box.count()) ? (await box.innerText()).trim() : '';
  }
  /** How many actions the panel says are saved ("All N actions saved"), or null while saving. */
  async savedCount() {
    const m = /^All (\d+) actions? saved/.exec((await this.saved.innerText()).trim());
    return m ? Number(m[1]) : null;
  }
  /** Waits until more than `n` actions are saved (timer events included). */
  /** How many events are stored, the timer's included (the line itself counts only actions). */
  async storedEvents() {
    return Number(await this.saved.getAttribute('data-stored'));
  }
  /** Waits until more than `n` events are stored ([`storedEvents`]). */
  async waitSavedMoreThan(n, timeout = 30_000) {
    await this.page.waitForFunction((k) => {
      const stored = document.querySelector('[data-testid="review-saved"]')?.getAttribute('data-stored');
      return stored !== null && stored !== undefined && Number(stored) > k;
    }, n, { timeout });
  }
  /** The seconds the item's timer shows. */
  async timerSeconds() {
    return Number(/(\d+) s/.exec(await this.page.getByTestId('review-timer').innerText())[1]);
  }
  /** The line naming the reviewers merged, once it says `text`. */
  reviewers(text) { return this.page.getByTestId('review-reviewers').filter({ hasText: text }); }
  /** The conflicts between reviewers, a text a row. */
  async conflictRows() { return this.page.getByTestId('review-conflicts').locator('tbody tr').allInnerTexts(); }
  /** Waits until the item's timer matches `pattern`. */
  async waitTimer(pattern) {
    await this.page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="review-timer"]').textContent), pattern.source);
  }
  /** Imports reviewers' files (paths). */
  async importFiles(paths) {
    await this.page.getByLabel("Import reviewers' files").setInputFiles(paths);
  }
  /** The notes under the review table. */
  async tableNotes() {
    return this.page.locator('figure:has(table[data-table="concord-review"]) .table-notes p').allInnerTexts();
  }
  /** The text of the review table's export in `format`. */
  async exportTable(format = 'CSV') {
    return (await downloadOf(this.page, tableExportButton(this.page, 'concord-review', format))).text;
  }
}

/** The "Revise the judge" panel. */
export class RevisePage {
  constructor(page) {
    this.page = page;
    this.summary = page.getByTestId('revise-split-summary');
    this.status = page.getByTestId('revise-status');
    this.history = page.getByTestId('revise-history');
  }
  /** The revise panel. */
  get revisePanel() { return this.page.getByTestId('revise-panel'); }
  /** Each past revision's prompt diff, as text. */
  async pastDiffs() { return this.page.getByTestId('revise-past-diff').evaluateAll((els) => els.map((e) => e.querySelector('pre').textContent)); }
  async split() {
    await this.page.getByTestId('revise-split').click();
    await this.summary.filter({ hasText: 'held out' }).waitFor();
    return (await this.summary.innerText()).trim();
  }
  /** The meta-prompt as it will be sent. */
  async metaPrompt() {
    return this.page.getByTestId('revise-meta').evaluate((el) => el.textContent);
  }
  async ask() {
    await this.page.getByTestId('revise-ask').click();
    await this.status.filter({ hasText: 'proposed a revision' }).waitFor({ timeout: 30_000 });
    return this.page.getByLabel('Revised prompt (edit it as you like)').inputValue();
  }
  async propose(text) {
    await this.page.getByLabel('Revised prompt (edit it as you like)').fill(text);
  }
  /** The proposal in the editor. */
  async proposal() {
    return this.page.getByLabel('Revised prompt (edit it as you like)').inputValue();
  }
  /** Clicks Run without waiting for anything (a warning may stop it). */
  async clickRun() {
    await this.page.getByTestId('revise-run').click();
  }
  /** The warning shown before a prompt that hides the item's texts is sent ('' when none). */
  async warning() {
    const box = this.page.getByTestId('revise-warning');
    return (await box.count()) ? (await box.innerText()).trim() : '';
  }
  /** Runs the revised judge and waits for revision `number`'s row in the history. */
  async run(number) {
    await this.page.getByTestId('revise-run').click();
    await this.page.waitForFunction((n) => document.querySelector('[data-testid="revise-error"]')
      || (document.querySelector('[data-testid="revise-status"]')?.innerText ?? '').includes(`Revision ${n} ran`), number, { timeout: 60_000 })
      .catch(async (e) => {
        const status = await this.status.count() ? await this.status.innerText() : 'no status';
        const disabled = await this.page.getByTestId('revise-run').isDisabled();
        throw new Error(`revision ${number} did not finish (status: ${status}; button disabled: ${disabled}): ${e.message}`);
      });
    const error = this.page.getByTestId('revise-error');
    if (await error.count()) throw new Error(`revision ${number}: ${await error.innerText()}`);
    await this.history.locator('tbody tr').nth(number - 1).waitFor();
  }
  /** The history's rows as [revision, run, n, r before, r after, Δr, p, better, cost, lines]. */
  async rows() {
    return this.history.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim())));
  }
  /** The history with the prompts and diffs, as exported (parsed JSON). */
  async exportHistoryJson() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.getByTestId('revise-export').click(),
    ]);
    return JSON.parse(readFileSync(await download.path(), 'utf8'));
  }
  async exportHistory(format = 'CSV') {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.page.locator(`button[aria-label$=" as ${format}"][data-table="concord-revisions"]`).click(),
    ]);
    return readFileSync(await download.path(), 'utf8');
  }
}
