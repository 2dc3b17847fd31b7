// Accessibility: axe-core finds no serious or critical violation on any screen with data
// loaded (the built-in example and its recorded judge runs with a Results cell open, the judge
// audit computed and the revision's split drawn, seed
// 003's released meta-evaluation files, a CoEval study and CoEval's released files), with
// every folded panel open, in the light and the dark theme and at 375 px; no screen scrolls
// sideways at 375 px with those files loaded (theme.test.mjs checks it with the demo only);
// and a change of screen moves the keyboard focus to the screen's heading — never at start-up,
// and not while the arrow keys walk the tabs (the ARIA tabs pattern keeps focus on the tab).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';
import { RevisePage } from './pages/review_page.mjs';
import { COEVAL_TINY, missingShared } from './fixtures.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const META = resolve(ROOT, '../shared/data/meta-evaluation');
const COEVAL = resolve(ROOT, '../shared/data/CoEval');
// The page's CSP allows no inline script, so axe's source is evaluated through the DevTools
// protocol (which the CSP does not govern) instead of a <script> tag.
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const SCREENS = ['Data', 'Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval', 'Class'];
const COEVAL_STEPS = ['Task setup', 'Stage 1: criteria', 'Stage 2: instances', 'Annotators & merge', 'Results', 'Released files'];

// A CoEval combine_data.json: one task, two instances, two criteria (as coeval.test.mjs).
const COEVAL_STUDY = COEVAL_TINY;

/** A few released meta-evaluation files: pairwise and pointwise evaluators, JDEval debates,
 * JDEval-i and BSMEval records (every table, figure and viewer of the screen has data). */
function metaFiles() {
  const first = (dir, n = 1) => {
    const names = ['merged_eval_results_gpt-3.5-turbo_pairwise.jsonl', 'merged_eval_results_gpt-4-1106-preview_pairwise.jsonl',
      'merged_scores_gpt-3.5-turbo_pointwise.jsonl', 'g4_llmbar_elo.jsonl',
      'merged_meta_results_gpt-4-1106-preview_gpt-3.5-turbo-0125_pointwise.jsonl',
      'qwen14b_gpt35_openmeva_bsm_after_pro_add_score.jsonl'];
    return names.map((name) => join(META, dir, name)).filter(existsSync).slice(0, n);
  };
  return [
    ...first('evaluator_results/pairwise', 2),
    ...first('evaluator_results/pointwise'),
    ...first('meta-evaluator_results/pairwise/JDEval'),
    ...first('meta-evaluator_results/pointwise/JDEval-i'),
    ...first('meta-evaluator_results/pointwise/BSMEval'),
  ];
}

/** ELI5's released action and score files and one session log. */
function coevalFiles() {
  const dir = join(COEVAL, 'webapp/evaluation_data/ELI5');
  return ['eli5_action.json', 'eli5_annotator_scores.json', 'A01.json'].map((n) => join(dir, n)).filter(existsSync);
}

/** axe-core's serious and critical violations on the page, as "rule: target, target…" lines. */
async function audit(page) {
  await page.evaluate(`${AXE};0`);
  const violations = await page.evaluate(async () => {
    // Every rule, the experimental ones too (label-content-name-mismatch is one).
    const rules = Object.fromEntries(window.axe.getRules(['experimental']).map((r) => [r.ruleId, { enabled: true }]));
    const result = await window.axe.run(document, { resultTypes: ['violations'], rules });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 6).join(' | ')}${v.nodes.length > 6 ? ` … ${v.nodes.length} nodes` : ''}`);
}

/** Shows a screen through its tab and waits until its view (a split chunk when released) is in. */
async function showScreen({ page, screens }, name) {
  await screens.tab(name).click();
  await screens.waitView();
  await page.waitForTimeout(300);
  await screens.unfoldAll();
}

/** Every screen (and every CoEval step) of `app` in the current theme and size; findings by place. */
async function auditEveryScreen(app, where, found, { width } = {}) {
  const { page, coeval, screens } = app;
  const wide = {};
  const check = async (place) => {
    const problems = await audit(page);
    if (problems.length) found[`${where} · ${place}`] = problems;
    if (width) {
      const w = await page.evaluate(() => document.documentElement.scrollWidth);
      if (w > width) wide[place] = w;
    }
  };
  for (const screen of SCREENS) {
    await showScreen(app, screen);
    if (screen === 'CoEval') {
      for (const step of COEVAL_STEPS) {
        await coeval.tab(step);
        await page.waitForTimeout(200);
        await screens.unfoldAll();
        await check(`CoEval / ${step}`);
      }
    } else {
      await check(screen);
    }
  }
  return wide;
}

test('axe-core finds no serious or critical violation on any screen with data loaded, light and dark, and none scrolls sideways at 375 px', { skip: missingShared(META) || missingShared(COEVAL), timeout: 600_000 }, async () => {
  await withApp({ url: null }, async (app) => {
    const { page, data, results, meta, coeval, screens } = app;
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(CONCORD_URL);
    await data.datasetName.waitFor();

    // The demo's recorded judge runs on Results, with a cell open.
    await data.openDemoRun();
    await results.openCell(0);
    await results.firstPlot.waitFor();
    // The judge audit computed, and the revision's split drawn.
    await screens.unfoldAll();
    await results.audit.compute();
    await results.audit.tables.first().waitFor({ timeout: 60_000 });
    await new RevisePage(page).split();
    // Released meta-evaluation files.
    await meta.openTab();
    await meta.loadFiles(metaFiles());
    await meta.waitElo(180_000);
    // A CoEval study in stage 2, and CoEval's released files.
    await coeval.open();
    await coeval.setAnnotator('Ann');
    await coeval.startFromFile('combine_data.json', COEVAL_STUDY);
    await coeval.decideCriterion(1, 'Approve', { reason: 'clear' });
    await coeval.decideCriterion(2, 'Approve', { reason: 'clear' });
    await coeval.startScrutiny();
    await coeval.keys('a');
    await coeval.importReleased(coevalFiles());

    const found = {};
    await auditEveryScreen(app, 'light', found);
    await page.emulateMedia({ colorScheme: 'dark' });
    await screens.waitTheme('dark');
    await auditEveryScreen(app, 'dark', found);
    await page.setViewportSize({ width: 375, height: 800 });
    const wide = await auditEveryScreen(app, 'dark, 375 px', found, { width: 375 });
    await page.emulateMedia({ colorScheme: 'light' });
    await screens.waitTheme('light');
    Object.assign(wide, await auditEveryScreen(app, 'light, 375 px', found, { width: 375 }));

    for (const [place, problems] of Object.entries(found)) console.log(`# ${place}:\n#   ${problems.join('\n#   ')}`);
    assert.deepEqual(found, {}, 'serious or critical axe-core violations');
    assert.deepEqual(wide, {}, 'screens wider than the phone');
  });
});

/** What has the keyboard focus: `heading: <text>`, `tab: <text>` or the element's tag. */
function focused(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    if (el.id === 'screen-heading') return `heading: ${el.textContent}`;
    if (el.getAttribute('role') === 'tab') return `tab: ${el.textContent}`;
    return el.tagName.toLowerCase();
  });
}

test('a change of screen moves the focus to its heading, but not at start-up nor while arrows walk the tabs', { timeout: 120_000 }, async () => {
  await withApp({ url: null }, async ({ page, data, screens }) => {
    // Start-up, also on a link to another screen: the focus stays where the browser puts it.
    await page.goto(`${CONCORD_URL}?screen=results`);
    await screens.firstSection.waitFor();
    await page.waitForTimeout(500);
    assert.equal(await focused(page), 'body', 'no focus is taken at start-up');
    assert.equal(await screens.heading.textContent(), 'Results');
    await page.goto(CONCORD_URL);
    await data.datasetName.waitFor();
    await page.waitForTimeout(500);
    assert.equal(await focused(page), 'body', 'no focus is taken at start-up');

    // A click on a tab: the new screen's heading has the focus once its view is in.
    for (const screen of ['Judge', 'Results', 'CoEval', 'Data']) {
      await screens.tab(screen).click();
      await screens.waitHeadingFocus(screen);
      assert.ok(await screens.firstSection.isVisible(), `${screen}'s view is shown`);
    }

    // A button that opens another screen (the recorded run opens on Results).
    await data.openDemoRun();
    await screens.waitHeadingFocus('Results');
    await screens.tab('Data').click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Data');

    // The keyboard: the selected tab, then → and ← select the neighbours with the focus on
    // the tab (so the arrows keep working), Enter or Space go to the screen's heading.
    await screens.tab('Data').focus();
    await page.keyboard.press('ArrowRight');
    await screens.selectedTab('Judge').waitFor();
    assert.equal(await focused(page), 'tab: Judge');
    await page.keyboard.press('ArrowRight');
    await screens.selectedTab('Run').waitFor();
    await screens.headingWith('Run').waitFor();
    await page.waitForTimeout(300);
    assert.equal(await focused(page), 'tab: Run', 'the arrows leave the focus on the tab');
    await page.keyboard.press('ArrowLeft');
    await screens.selectedTab('Judge').waitFor();
    await page.keyboard.press('Enter');
    await screens.waitHeadingFocus();
    assert.equal(await focused(page), 'heading: Judge');
    await screens.tab('Judge').focus();
    await page.keyboard.press('End');
    await screens.selectedTab('Class').waitFor();
    assert.equal(await focused(page), 'tab: Class');
    await page.keyboard.press(' ');
    await screens.waitHeadingFocus();
    assert.equal(await focused(page), 'heading: Class');

    // Back and forward: the heading of the screen shown.
    await page.goBack();
    await page.waitForFunction(() => document.activeElement?.id === 'screen-heading'
      && document.activeElement.textContent !== 'CoEval');
    assert.notEqual(await focused(page), 'heading: CoEval');
  });
});
