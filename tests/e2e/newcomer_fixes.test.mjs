// A newcomer's second hour (issue 36, items 1–5 and 7–10): one test per defect a new user met.
// Each failed on the code before the fix (see the report of the change that added this file).
// The workbench tests open the demo bundle (two judges, 15 items, coherence and fluency on a
// 1–5 scale) so they need no LLM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { COEVAL_TINY } from './fixtures.mjs';
import { CoEvalPage } from './pages/coeval_page.mjs';
import { ClassPage } from './pages/class_page.mjs';
import { MetaPage } from './pages/meta_page.mjs';
import { ReviewPage, RevisePage } from './pages/review_page.mjs';
import {
  RatePage, ResultsPage, Screens, reloadRestored, waitSavedAs, waitWorkspaceSaved, workspaceSaves,
} from './pages/workbench_pages.mjs';

const META_FIXTURES = join(import.meta.dirname, '../../crates/core/tests/fixtures/meta');
const RUN = 'score-only / coherence';

/** A fresh browser and page watched for page errors; `body(page, seen, dir)` runs in it. */
async function withPage(body) {
  const dir = mkdtempSync(join(tmpdir(), 'concord-newcomer-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await body(page, seen, dir);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Screenshots of `locator` in the light and dark themes and at 375 px, when the run asks for them. */
async function shots(page, locator, name) {
  const dir = process.env.CONCORD_SCREENSHOTS;
  if (!dir) return;
  const size = page.viewportSize();
  const shoot = async (file) => {
    await locator.first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${dir}/${file}.png` });
  };
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    await shoot(`${name}-${scheme}`);
  }
  await page.setViewportSize({ width: 375, height: 800 });
  await shoot(`${name}-375`);
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'light' });
}

const pageErrors = (seen) => seen.problems.filter((p) => p.startsWith('pageerror') || /panicked|unreachable|disposed/.test(p));

test('1. CoEval: leaving Stage 2 for any tab panics nothing, and every screen still answers', { timeout: 180_000 }, async () => {
  await withPage(async (page, seen) => {
    const coeval = new CoEvalPage(page);
    const tabs = new Screens(page);
    await page.goto(CONCORD_URL);
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    // A fresh profile, nothing done: Stage 2, then the screen's other tabs and the app's.
    await coeval.open();
    for (const other of ['Results', 'Task setup', 'Annotators & merge', 'Released files']) {
      await coeval.tab('Stage 2: instances');
      await coeval.tab(other);
    }
    await coeval.tab('Stage 2: instances');
    await tabs.open('Results');
    await page.getByTestId('results-empty').waitFor({ timeout: 30_000 });
    await coeval.open();
    await coeval.tab('Stage 2: instances');
    await tabs.open('Data');
    // With a study and an annotator: the scrutiny (its timer, its keys) is on the page.
    await coeval.open();
    await coeval.setAnnotator('ann');
    await coeval.startFromFile('combine_data.json', COEVAL_TINY);
    await coeval.startScrutiny();
    await coeval.keys('a');
    // Each time, a stretch longer than the timer's least (0.5 s) is on the instance when the
    // tab is left: the timer records it as the view goes.
    for (const other of ['Results', 'Stage 1: criteria', 'Annotators & merge']) {
      await coeval.tab('Stage 2: instances');
      await coeval.parts.waitFor();
      await page.waitForTimeout(800);
      await coeval.tab(other);
    }
    await coeval.tab('Stage 2: instances');
    await coeval.parts.waitFor();
    await page.waitForTimeout(800);
    for (const screen of ['Results', 'Judge', 'CoEval', 'Data']) await tabs.open(screen);
    // The app still answers: the example's Results say there is nothing yet (not "Reading…").
    await tabs.open('Results');
    await page.getByTestId('results-empty').waitFor({ timeout: 30_000 });
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('2. Review and correct refuses a rating off the scale where it is typed, and a stored one counts in no number', { timeout: 120_000 }, async () => {
  await withPage(async (page, seen, dir) => {
    const review = new ReviewPage(page);
    await review.openDemoBundle(CONCORD_URL);
    await review.setReviewer('ann');
    await page.getByTestId('review-run').selectOption(RUN);
    await review.expectItem({ position: 'Item 1 of 15', verdict: 'not reviewed' });
    for (const key of ['0', '9', '7']) {
      await review.press(key);
      await page.getByTestId('review-error').waitFor();
      assert.match(await review.errorText(), new RegExp(`^${key} is not on coherence's scale \\(1–5\\)`));
      await review.expectItem({ position: 'Item 1 of 15', verdict: 'not reviewed' });
    }
    await shots(page, review.panel, 'review-off-scale');
    // On the scale: recorded, the error goes.
    await review.press('3');
    await review.expectItem({ position: 'Item 2 of 15' });
    assert.equal(await review.errorText(), '');
    await review.press('k');
    await review.expectItem({ verdict: 'changed to 3 (ann)' });
    // A reviewer's file with a change to 9 (made by hand, or before ratings were checked):
    // merged, but left out of every number, and the table says so.
    const item = (await page.getByTestId('review-item-id').innerText()).trim();
    await review.press('j');
    const second = (await page.getByTestId('review-item-id').innerText()).trim();
    const bob = join(dir, 'concord-review-bob.json');
    writeFileSync(bob, JSON.stringify({ format: 'concord-review', version: 1, reviewer: 'bob', events: [{ kind: 'change', run: RUN, item: second, rating: 9 }] }));
    await review.importFiles([bob]);
    await page.getByTestId('review-reviewers').filter({ hasText: 'Reviewers: bob, ann' }).waitFor();
    const rows = await review.rows();
    const after = rows.find((r) => r.label === 'judge + review');
    assert.equal(after.cells[1], '1', `one reviewed item (${item}), not two: ${JSON.stringify(after)}`);
    const notes = await review.tableNotes();
    await shots(page, page.locator('figure:has(table[data-table="concord-review"])'), 'review-off-scale-note');
    assert.ok(notes.some((n) => /1 change left out of every number/.test(n)), JSON.stringify(notes));
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('3. Time spent reviewing is no decision: no "<method> + review" row from timer events', { timeout: 120_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    const results = new ResultsPage(page);
    await review.openDemoBundle(CONCORD_URL);
    await review.setReviewer('ann');
    // Looking at an item with the walk focused: the timer writes its events.
    const before = await review.storedEvents();
    await review.walk.focus();
    await review.waitSavedMoreThan(before);
    const labels = await results.rowLabels();
    assert.ok(!labels.some((l) => l.endsWith(' + review')), `rows: ${labels}`);
    assert.doesNotMatch(await results.exportTable('concord-results'), /\+ review/);
    // The same after a reload, the reviewer's name remembered.
    await reloadRestored(page);
    await review.open();
    assert.equal(await page.getByLabel('Your name (reviewer)').inputValue(), 'ann');
    const again = await results.rowLabels();
    assert.ok(!again.some((l) => l.endsWith(' + review')), `rows after a reload: ${again}`);
    assert.equal(await page.getByTestId('review-table').count(), 0, 'no review table without a decision');
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('4. A human-corrected run is no judge: not a jury member, listed as human-corrected', { timeout: 180_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    const results = new ResultsPage(page);
    await review.openDemoBundle(CONCORD_URL);
    await results.setJuries(true);
    await review.setReviewer('ann');
    await page.getByTestId('review-run').selectOption(RUN);
    await review.press('1', '5');
    await review.waitSaved();
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="results-table"] tbody th')].some((th) => th.innerText.trim() === 'score-only + review'));
    const note = (await results.notes()).find((n) => n.startsWith('Juries'));
    assert.ok(note, 'the juries are described');
    assert.match(note, /\(score-only, rate-explain\)/);
    assert.doesNotMatch(note, /\+ review/);
    // Agreement with a rater of one's own lists each row by what it is.
    await new RatePage(page).rateAll('me', [3, 4, 2, 5, 1, 3, 4, 2, 5, 1, 3, 4, 2, 5, 1]);
    await results.open();
    const kinds = await results.agreementKinds();
    const kindOf = (name) => kinds.find((k) => k.rater === name)?.kind;
    assert.equal(kindOf('score-only'), 'judge');
    assert.equal(kindOf('score-only + review'), 'human-corrected');
    assert.equal(kindOf('jury (mean)'), 'jury');
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('5. The review timer resets no audit and counts only while the review panel is in use', { timeout: 180_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    const results = new ResultsPage(page);
    await review.openDemoBundle(CONCORD_URL);
    await review.setReviewer('ann');
    await page.getByTestId('review-run').selectOption(RUN);
    await review.press('4');
    await review.waitSaved();
    await results.computeAudit();
    // Reviewing goes on: timer events are saved, and the audit stays.
    await review.walk.focus();
    const saved = await review.storedEvents();
    await review.walk.focus();
    await review.waitSavedMoreThan(saved);
    await review.waitSavedMoreThan(saved + 1);
    assert.ok(await results.auditShown(), 'the audit is still shown after the timer saved its events');
    // Working elsewhere on Results: the timer stops (its display and its saved events).
    await page.getByLabel('Statistic', { exact: true }).focus();
    await review.waitSaved();
    const shown = await review.timerSeconds();
    const count = await review.storedEvents();
    await page.waitForTimeout(6_000);
    assert.equal(await review.timerSeconds(), shown, 'the item timer does not count while the focus is elsewhere');
    assert.equal(await review.storedEvents(), count, 'no timer event while the focus is elsewhere');
    assert.ok(await results.auditShown());
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('7. An edit made just before a reload is kept', { timeout: 120_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    const results = new ResultsPage(page);
    await review.openDemoBundle(CONCORD_URL);
    // The bundle is a workspace of its own once saved (the one open before is saved first).
    await waitSavedAs(page, 'example-bundle');
    // Two edits, then a reload at once: no waiting for the debounced save.
    await results.setStatistic('kendall_b');
    await results.setBaseline('rate-explain');
    await page.reload();
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await results.open();
    await results.table.waitFor({ timeout: 60_000 });
    assert.equal(await page.getByLabel('Statistic', { exact: true }).inputValue(), 'kendall_b');
    assert.equal(await page.getByLabel('Baseline', { exact: true }).inputValue(), 'rate-explain');
    // And once more, a tab closed rather than reloaded: the next page shows the edit.
    await results.setLevel('document');
    const next = await page.context().newPage();
    const closed = page.waitForEvent('close');
    await page.close({ runBeforeUnload: true });
    await closed;
    await next.goto(CONCORD_URL);
    await next.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    await new ResultsPage(next).open();
    await next.getByTestId('results-table').waitFor({ timeout: 60_000 });
    assert.equal(await next.getByLabel('Level', { exact: true }).inputValue(), 'document');
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('8. Released meta-evaluation files come back after a reload, from this browser', { timeout: 180_000 }, async () => {
  await withPage(async (page, seen) => {
    const meta = new MetaPage(page);
    await meta.open(CONCORD_URL);
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    const saves = await workspaceSaves(page);
    const files = [
      'merged_eval_results_judge-a_pairwise.jsonl',
      'merged_eval_results_judge-a-swapped_pairwise.jsonl',
      'merged_scores_judge-a_pointwise.jsonl',
    ];
    await meta.loadFiles(files.map((f) => join(META_FIXTURES, f)));
    const before = await meta.fileKinds();
    assert.equal(before.length, files.length);
    assert.ok(before.every((f) => f.kind !== 'Needed'), JSON.stringify(before));
    const table1 = await page.locator('table[data-table="table1"]').innerText({ timeout: 60_000 });
    await waitWorkspaceSaved(page, saves);
    await reloadRestored(page);
    await meta.openTab();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="meta-file-list"] tbody tr:not([data-kind="Needed"])').length === n
      && !document.querySelector('[data-testid="meta-loading"]'), files.length, { timeout: 60_000 });
    const after = await meta.fileKinds();
    assert.deepEqual(after.map((f) => f.name).sort(), before.map((f) => f.name).sort());
    assert.equal(await page.locator('table[data-table="table1"]').innerText(), table1, 'Table 1 as before the reload');
    await shots(page, page.locator('section[aria-labelledby="meta-import-heading"]'), 'meta-files-restored');
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('9. Revise the judge: a proposal survives a reload, and one without the item\'s texts is named before it is sent', { timeout: 180_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    const revise = new RevisePage(page);
    await review.openDemoBundle(CONCORD_URL);
    await review.setReviewer('ann');
    await page.getByTestId('review-run').selectOption(RUN);
    await revise.split();
    const typed = 'Rate the summary for coherence from 1 to 5. Answer with the number only.';
    await revise.propose(typed);
    await reloadRestored(page);
    await review.open();
    await page.getByTestId('review-run').selectOption(RUN);
    await page.getByLabel('Revised prompt (edit it as you like)').waitFor();
    assert.equal(await revise.proposal(), typed, 'the proposal not yet run is kept');
    // Sent as it is, the judge would see no text: the panel says which, and sends nothing
    // until the user says so.
    await revise.clickRun();
    await page.getByTestId('revise-warning').waitFor();
    const warning = await revise.warning();
    await shots(page, page.getByTestId('revise-panel'), 'revise-warning');
    assert.match(warning, /no \{\{placeholders\}\}/);
    assert.match(warning, /the current prompt shows it \{\{[^}]+\}\}/, 'names what the current prompt shows');
    assert.equal(await page.getByTestId('revise-status').count(), 0, 'nothing was sent');
    // "Send it as it is" sends it (here without a connection: the run says why it did not go).
    await page.getByTestId('revise-run-anyway').click();
    await page.waitForFunction(() => document.querySelector('[data-testid="revise-error"], [data-testid="revise-status"]'));
    assert.equal(await page.getByTestId('revise-warning').count(), 0, 'the warning is answered');
    assert.deepEqual(pageErrors(seen), []);
  });
});

test('10. A teacher\'s "Rate attributes" with no attribute ticked is refused at the control', { timeout: 120_000 }, async () => {
  await withPage(async (page, seen) => {
    const review = new ReviewPage(page);
    await review.openDemoBundle(CONCORD_URL);
    const klass = new ClassPage(page);
    await klass.open();
    let downloads = 0;
    page.on('download', () => { downloads += 1; });
    const said = await klass.trySave({ title: 'Week 5', rate: true, correct: RUN, attributes: [] });
    assert.equal(said.saved, '', 'nothing saved');
    assert.match(said.rateError, /no attribute is/);
    await shots(page, page.locator('section:has([data-testid="exercise-rate-error"])'), 'exercise-rate-error');
    assert.equal(downloads, 0);
    // Ticking an attribute makes it an exercise with both tasks.
    const ok = await klass.trySave({ title: 'Week 5', rate: true, correct: RUN, attributes: ['coherence'] });
    assert.match(ok.saved, /rate coherence; correct the judge score-only \/ coherence/);
    assert.deepEqual(pageErrors(seen), []);
  });
});
