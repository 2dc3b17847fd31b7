// Humans correct the judge (issue 23): a judge run against the mock rates three items far
// from the humans; a reviewer walks the items by largest gap with the keyboard, changes two
// ratings, reloads midway (nothing is lost, and undo still takes back the last decision),
// flags and accepts more, and sees the agreement with the humans rise from "judge" to
// "judge + review". The exported bundle carries the review: `concord report` prints the same
// review table, byte for byte.
//
// The second test revises a judge whose prompt makes the mock uninformative (`noisy_when`):
// a revision without that text is significantly better on the held-out items, one that keeps
// it is not; the meta-prompt holds no held-out item. The third checks that the time on an item
// stops while the tab is hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL } from './browser.mjs';
import { withApp, cli, expectTimerStopsWhileHidden } from './harness.mjs';
import { RevisePage } from './pages/review_page.mjs';
import { waitWorkspaceSaved, workspaceSaves } from './pages/workbench_pages.mjs';
const HUMAN = [1, 5, 2, 4, 3, 1, 2, 3, 4, 5, 2, 4];
// The judge (the mock echoes the planted rating) is right except on the first three items.
const PLANTED = [5, 1, 5, 4, 3, 1, 2, 3, 4, 5, 2, 4];

function csv() {
  const rows = ['doc,sys,source,output,coherence'];
  HUMAN.forEach((h, i) => {
    rows.push(`d${Math.floor(i / 2)},s${i % 2},"Article ${i}.","RATING=${PLANTED[i]}. Summary number ${i}.",${h}`);
  });
  return rows.join('\n') + '\n';
}

const number = (text) => Number(text.split(/\s/)[0]);

test('a reviewer corrects the judge with the keyboard, reloads midway and sees the agreement rise', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 2 };
  await withApp({ data: { name: 'review.csv', text: csv() }, scenario }, async (app) => {
    const { page, judge, run, review, results } = app;
    const dir = app.tempDir('concord-review-');
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    await app.connectMock({ key: 'sk-review' });
    const savesBefore = await workspaceSaves(page);
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    // The workspace (with the run) is saved after the run; the review saves itself.
    await waitWorkspaceSaved(page, savesBefore);

    await review.open();
    await review.setReviewer('ann');
    // Largest gap first: item 0 (judge 5, human 1), then item 1 (1 against 5).
    await review.expectItem({ position: 'Item 1 of 12', judge: '5', human: '1', verdict: 'not reviewed' });
    await review.press('1');
    await review.expectItem({ position: 'Item 2 of 12', judge: '1', human: '5', verdict: 'not reviewed' });
    await review.press('5');
    await review.expectItem({ position: 'Item 3 of 12' });
    await review.waitSaved();

    // Reload midway: the decisions come back from IndexedDB.
    await app.reload();
    await review.open();
    assert.equal(await review.reviewer.inputValue(), 'ann');
    await review.expectItem({ position: 'Item 1 of 12', judge: '5', human: '1', verdict: 'changed to 1 (ann)' });
    await review.press('j');
    await review.expectItem({ verdict: 'changed to 5 (ann)' });
    // Undo after the reload takes back the last decision (item 2's change).
    await review.press('u');
    await review.expectItem({ verdict: 'not reviewed' });
    await review.press('5');
    // Item 3 (judge 5, human 2): flagged with a note; item 4 accepted.
    await review.expectItem({ position: 'Item 3 of 12', judge: '5', human: '2', verdict: 'not reviewed' });
    await review.flag('the judge read the wrong summary');
    await review.press('k');
    await review.expectItem({ verdict: 'flagged: the judge read the wrong summary (ann)' });
    await review.press('j', 'a');
    await review.expectItem({ position: 'Item 5 of 12' });
    await review.waitSaved();

    // Another reviewer's file: bob accepted the item ann changed first. The reviewer working
    // here is merged last, so ann's change is kept, and the conflict names bob's decision.
    await review.press('k', 'k', 'k', 'k');
    await review.expectItem({ position: 'Item 1 of 12' });
    const firstId = (await review.itemId.innerText()).trim();
    const runKey = await review.run.inputValue();
    const bob = join(dir, 'concord-review-bob.json');
    writeFileSync(bob, JSON.stringify({ format: 'concord-review', version: 1, reviewer: 'bob', events: [{ kind: 'accept', run: runKey, item: firstId }] }));
    await review.importFiles(bob);
    await review.reviewers('Reviewers: bob, ann').waitFor();
    const conflict = await review.conflictRows();
    assert.equal(conflict.length, 1);
    assert.deepEqual(conflict[0].split('\t').map((c) => c.trim()), [firstId, runKey, 'changed to 1', 'ann', 'accepted', 'bob']);

    const rows = await review.rows();
    assert.deepEqual(rows.map((r) => r.label), ['judge', 'judge + review']);
    const [before, after] = rows;
    // Columns after the label: n, Reviewed, Accepted, Changed, Flagged, Mean |change|, r, τ-b, α, Minutes.
    assert.equal(after.cells[1], '4');
    assert.deepEqual(after.cells.slice(2, 5).map(number), [0.25, 0.5, 0.25]);
    assert.equal(number(after.cells[5]), 2, 'mean |change| (4 + 4 + 0 + 0) / 4');
    for (const col of [6, 7, 8]) {
      assert.ok(number(after.cells[col]) > number(before.cells[col]), `column ${col}: ${before.cells[col]} → ${after.cells[col]}`);
    }

    // The corrected run is a row of the Results table too, beside the judge's.
    const methods = (await results.cells()).map((r) => r[0]);
    assert.equal(methods.length, 2, methods.join(', '));
    assert.equal(methods[1], `${methods[0]} + review`);
    const resultsShown = await results.exportTable('concord-results', 'CSV');

    // The bundle carries the review; `concord report` prints the same tables. The review's
    // timer is stopped first, so the table and the bundle hold the same timer events.
    await review.leave();
    const shown = await review.exportTable('CSV');
    const download = await results.exportBundle();
    const bundle = join(dir, 'bundle.json');
    await download.saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    assert.equal(saved.review.reviewer, 'ann');
    assert.deepEqual(saved.review.files.map((f) => f.reviewer), ['bob', 'ann']);
    const kinds = saved.review.files.find((f) => f.reviewer === 'ann').events.map((e) => e.kind).filter((k) => k !== 'timer');
    assert.deepEqual(kinds, ['change', 'change', 'undo', 'change', 'flag', 'accept']);
    cli(['report', bundle, '--format', 'csv', '--out', dir]);
    assert.equal(readFileSync(join(dir, 'concord-review.csv'), 'utf8'), shown);
    assert.equal(readFileSync(join(dir, 'concord-results.csv'), 'utf8'), resultsShown);
  });
});

const REVISE_ITEMS = 24;
const reviseHuman = (i) => 1 + ((i * 7) % 5);

function reviseCsv() {
  const rows = ['doc,sys,source,output,coherence'];
  for (let i = 0; i < REVISE_ITEMS; i++) {
    rows.push(`d${Math.floor(i / 2)},s${i % 2},"Article ${i}.","RATING=${reviseHuman(i)}. Held text OUT-${i}-END.",${reviseHuman(i)}`);
  }
  return rows.join('\n') + '\n';
}

test('a revision proven on the held-out items: better without the noisy instruction, not with it', { skip: !MOCK_URL, timeout: 240_000 }, async () => {
  // The mock echoes the planted (true) rating, except for prompts that say NOISYJUDGE.
  const scenario = { reply: { mode: 'echo_rating', marker: 'RATING=', noisy_when: 'NOISYJUDGE' }, latency_ms: 2 };
  await withApp({ data: { name: 'revise.csv', text: reviseCsv() }, scenario }, async (app) => {
    const { page, judge, run, review, results } = app;
    const dir = app.tempDir('concord-revise-');
    await judge.open();
    await judge.addMethods({ modes: ['score-only'], n: 1 });
    const part = judge.promptPart(0);
    await part.click();
    await part.press('End');
    await page.keyboard.type(' NOISYJUDGE');
    await judge.leaveEditor();
    await app.connectMock({ key: 'sk-revise' });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);

    await review.open();
    const revise = new RevisePage(page);
    assert.match(await revise.split(), /^12 items for revision, 12 held out \(seed 0, share 0\.5\)/);
    const meta = await revise.metaPrompt();
    const old = /<prompt>\n([\s\S]*?)\n<\/prompt>/.exec(meta)[1];
    assert.ok(old.includes('NOISYJUDGE'), old);
    const asked = await revise.ask();
    assert.ok(asked.length > 0, 'the LLM proposed something');

    // Revision 1 drops the instruction that makes the judge uninformative.
    await revise.propose(old.replace(' NOISYJUDGE', ''));
    await revise.run(1);
    // Revision 2 keeps it (and only adds a sentence).
    await revise.propose(`${old}\nRead the reply carefully.`);
    await revise.run(2);
    const [first, second] = await revise.rows();
    assert.equal(first[2], '12');
    assert.equal(first[4], '1.000', 'the revised judge echoes the true rating');
    assert.ok(Number(first[6].replace(/[<>]/g, '')) < 0.05, `revision 1 p ${first[6]}`);
    assert.equal(first[7], 'yes');
    assert.ok(Number(second[6]) >= 0.05, `revision 2 p ${second[6]}`);
    assert.equal(second[7], 'no');

    if (process.env.CONCORD_SCREENSHOTS) {
      await revise.revisePanel.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/revise.png` });
    }
    // Each revision's prompt diff: revision 1 removed the noisy instruction.
    const diffs = await revise.pastDiffs();
    assert.equal(diffs.length, 2);
    assert.ok(diffs[0].split('\n').some((l) => l.startsWith('- ') && l.includes('NOISYJUDGE')), diffs[0]);
    assert.ok(diffs[1].includes('+ Read the reply carefully.'), diffs[1]);
    const exported = await revise.exportHistoryJson();
    assert.deepEqual(exported.map((e) => [e.number, e.better, e.held_out_n]), [[1, true, 12], [2, false, 12]]);
    assert.equal(exported[0].diff, diffs[0]);
    const shown = await revise.exportHistory('CSV');
    const download = await results.exportBundle();
    const bundle = join(dir, 'bundle.json');
    await download.saveAs(bundle);
    const saved = JSON.parse(readFileSync(bundle, 'utf8'));
    const { split, revisions } = saved.review;
    assert.equal(revisions.length, 2);
    // The meta-prompt sent holds revision items and no held-out item.
    const ids = saved.dataset.embedded.items.map((it) => it.id);
    const outputs = saved.dataset.embedded.items.map((it) => it.output);
    let revisionSeen = 0;
    ids.forEach((id, i) => {
      const marker = /OUT-\d+-END/.exec(outputs[i])[0];
      if (split.held_out.includes(id)) assert.ok(!revisions[0].meta_prompt.includes(marker), `held-out ${marker} in the meta-prompt`);
      else if (revisions[0].meta_prompt.includes(marker)) revisionSeen++;
    });
    assert.ok(revisionSeen > 0, 'the revision set\'s disagreements are in the meta-prompt');
    assert.equal(revisions[0].answers.length, 12, 'run on the held-out items only');
    cli(['report', bundle, '--format', 'csv', '--out', dir]);
    assert.equal(readFileSync(join(dir, 'concord-revisions.csv'), 'utf8'), shown);
  });
});

test('the time on an item stops while the tab is hidden', { timeout: 120_000 }, async () => {
  await withApp({ url: null }, async ({ page, review }) => {
    // The page's clock is Playwright's: the test moves it, so a loaded machine cannot stretch
    // a wait and no assertion depends on how fast anything runs.
    await page.clock.install();
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json`);
    await review.waitReady(30_000);
    await review.setReviewer('cy');
    await review.waitTimer(/Time on this item: [2-9]/);
    await expectTimerStopsWhileHidden(page, () => review.timerSeconds());
    // The time is in the reviewer's log: moving on saves it, and it counts in the minutes.
    await review.press('a');
    await review.waitSaved();
    const [, after] = await review.rows();
    assert.ok(Number(after.cells[9]) > 0, `minutes ${after.cells[9]}`);
  });
});
