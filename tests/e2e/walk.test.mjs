// Walk every screen (issue 36): at each stage of each study — the workbench with runs, a
// review under way, a revision; the meta-evaluation with released files and a live run; CoEval
// at each of its steps; a class exercise made, done and viewed — every screen is opened, then
// every other screen, and the page may report no error: no `pageerror`, no console error (a
// panic in a screen's effect, a write to a disposed signal, a timer or listener that outlived
// its screen all show as one). The last check of each stage: the app still answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CONCORD_URL, MOCK_URL, setScenario } from './browser.mjs';
import { withApp } from './harness.mjs';
import { COEVAL_TINY } from './fixtures.mjs';
import { RevisePage } from './pages/review_page.mjs';
import { Screens, walkRoute } from './pages/workbench_pages.mjs';

const META_FIXTURES = join(import.meta.dirname, '../../crates/core/tests/fixtures/meta');
const COEVAL_STEPS = ['Task setup', 'Stage 1: criteria', 'Stage 2: instances', 'Annotators & merge', 'Results', 'Released files'];

/** A fresh app; `body(app, walk, dir)` runs in it, `walk(stage)` walking every screen and
 * checking that the page reported no error (but the 404s and downloads the browser logs). */
async function withWalk(body) {
  await withApp({ problems: 'allowed' }, async (app) => {
    const { seen, screens, data } = app;
    const dir = app.tempDir('concord-walk-');
    const check = async (stage) => {
      await screens.settle();
      const bad = seen.problems.filter((p) => !/Failed to load resource.*(404|downloads)/.test(p));
      assert.deepEqual(bad, [], `${stage}: the page reported errors`);
    };
    const walk = async (stage, from = screens.all) => {
      await screens.walk(from);
      await check(stage);
      // The app still answers: a screen opens and shows its content.
      await screens.open('Data');
      await data.datasetName.waitFor();
    };
    await body(app, walk, dir, check);
  });
}

test('the walk\'s route leaves each screen for every other, each change once', () => {
  const all = new Screens(null).all;
  for (const from of [all, ['CoEval'], ['Data', 'Class']]) {
    const route = walkRoute(all, from);
    const changes = route.slice(1).map((s, i) => `${route[i]} → ${s}`);
    for (const first of from) {
      for (const other of all.filter((s) => s !== first)) {
        assert.ok(changes.includes(`${first} → ${other}`), `${first} → ${other} is walked`);
      }
    }
    if (from === all) assert.equal(route.length, all.length * (all.length - 1) + 1, 'one open per change');
  }
});

test('walk: the workbench — example, runs, a review, a revision', { timeout: 600_000 }, async () => {
  await withWalk(async ({ page, review }, walk) => {
    await walk('the example, nothing run');
    await review.openDemoBundle(CONCORD_URL);
    await walk('a bundle with runs');
    await review.open();
    await review.setReviewer('ann');
    await review.press('1', 'a');
    await review.flag('odd');
    await review.waitSaved();
    // The walk is focused: the review timer runs while the walk leaves.
    await review.walk.focus();
    await walk('a review under way');
    await review.open();
    const revise = new RevisePage(page);
    await revise.split();
    await revise.propose('Rate {{Summary}} from 1 to 5.');
    await walk('a revision drafted');
  });
});

test('walk: the meta-evaluation — released files, a live run', { timeout: 600_000 }, async () => {
  await withWalk(async (app, walk) => {
    const { meta } = app;
    await meta.openTab();
    await meta.loadFiles([
      'merged_eval_results_judge-a_pairwise.jsonl',
      'merged_eval_results_judge-a-swapped_pairwise.jsonl',
      'merged_scores_judge-a_pointwise.jsonl',
    ].map((f) => join(META_FIXTURES, f)));
    await walk('released files');
    if (MOCK_URL) {
      await setScenario({ reply: { mode: 'canned', text: '<Explanation>scripted</Explanation> <Winner>1</Winner>' } });
      await app.connectMock({ model: 'judge-x', key: 'sk-walk' });
      await meta.openTab();
      await meta.runPairwise({ evaluators: ['judge-x'], pairs: 3, swap: false });
      await walk('a live run');
    }
  });
});

test('walk: CoEval at each step', { timeout: 600_000 }, async () => {
  await withWalk(async ({ coeval, screens }, walk) => {
    // Each of the screen's own steps, left for every other screen.
    const fromEachStep = async (stage, steps = COEVAL_STEPS) => {
      for (const step of steps) {
        for (const other of screens.all.filter((s) => s !== 'CoEval')) {
          await coeval.open();
          await coeval.tab(step);
          await screens.open(other);
        }
      }
      await walk(stage);
    };
    await fromEachStep('no task');
    await coeval.open();
    await coeval.setAnnotator('ann');
    await coeval.startFromFile('combine_data.json', COEVAL_TINY);
    await fromEachStep('stage 1: the criteria', ['Stage 1: criteria', 'Stage 2: instances']);
    await coeval.open();
    await coeval.tab('Stage 1: criteria');
    await coeval.decideCriterion(1, 'Approve', { reason: 'clear' });
    await coeval.startScrutiny();
    await coeval.keys('a', 'j', 'x', '4', 'n');
    await coeval.saved();
    await fromEachStep('stage 2: instances under way');
    await fromEachStep('results', ['Results', 'Annotators & merge']);
  });
});

test('walk: a class exercise made, done and viewed', { timeout: 600_000 }, async () => {
  await withWalk(async ({ review, class: klass }, walk, dir) => {
    await review.openDemoBundle(CONCORD_URL);
    await klass.open();
    const made = await klass.makeExercise({ title: 'Walk', attributes: ['coherence'], sample: 4, seed: 1 });
    const exercise = join(dir, 'exercise.json');
    await made.saveAs(exercise);
    await walk('an exercise made');
    await klass.open();
    await klass.openExercise(exercise);
    await walk('an exercise opened by a student');
    await klass.open();
    await klass.rateAll('sam', [3, 4, 2, 5]);
    const submission = join(dir, 'submission.json');
    await (await klass.exportSubmission()).saveAs(submission);
    await walk('an exercise done');
    await klass.open();
    await klass.dropInClassView([exercise, submission]);
    await walk('the class view');
  });
});
