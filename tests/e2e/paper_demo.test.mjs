// The first thing Concord shows a newcomer: seed 002's Table 4 recomputed from Chiang & Lee's
// released GPT-3.5 answers, downloaded from GitHub at a pinned commit (here the requests are
// answered from ../shared/data, byte-identical to that commit), every file's SHA-256 checked,
// opened as a new workspace; a damaged or unreachable file changes nothing and is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { missingShared } from './fixtures.mjs';
import { ResultsPage } from './pages/workbench_pages.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = process.env.CONCORD_CLI ?? join(ROOT, 'target/debug/concord');
const RELEASED = join(ROOT, '../shared/data/A-Closer-Look-To-LLM-Evaluation');
const UPSTREAM = 'https://raw.githubusercontent.com/d223302/A-Closer-Look-To-LLM-Evaluation/90084422bb32e89f77109dce578d0bd1db3912c4/';

/** Serves the pinned commit's files from ../shared; `damage(path)` may change or refuse one. */
async function serveUpstream(page, damage = () => null) {
  const asked = [];
  await page.route(`${UPSTREAM}**`, async (route) => {
    const path = route.request().url().slice(UPSTREAM.length);
    asked.push(path);
    const how = damage(path);
    if (how === 'abort') return route.abort('internetdisconnected');
    let body = readFileSync(join(RELEASED, path));
    if (how === 'damage') body = Buffer.concat([body, Buffer.from(' ')]);
    return route.fulfill({ status: 200, body, headers: { 'access-control-allow-origin': '*', 'content-type': 'text/plain; charset=utf-8' } });
  });
  return asked;
}

test('Reproduce Table 4: one click to the published numbers, recomputed and compared', { timeout: 240_000 }, async (t) => {
  const missing = missingShared(RELEASED);
  if (missing) return t.skip(missing);
  const dir = mkdtempSync(join(tmpdir(), 'concord-paper-'));
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const asked = await serveUpstream(page);
    await page.goto(CONCORD_URL);
    await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
    // The workspace open before: named, saved.
    const saves = () => page.evaluate(() => Number(document.documentElement.dataset.workspaceSaves ?? 0));
    const n = await saves();
    await page.getByLabel('Name', { exact: true }).fill('Mine');
    await page.getByLabel('Name', { exact: true }).blur();
    await page.waitForFunction((k) => Number(document.documentElement.dataset.workspaceSaves ?? 0) > k, n, { timeout: 30_000 });
    await page.getByLabel('Table 4 column').selectOption('naturalness');
    await page.getByRole('button', { name: 'Reproduce Table 4' }).click();
    const paper = page.getByTestId('paper-table');
    await paper.waitFor({ timeout: 180_000 });
    assert.deepEqual(asked, [
      'data/topical_chat.json',
      ...['geval', 'geval_no_auto_cot', 'llm_eval_no_cot', 'rate_explain', 'analyze_rate'].map((m) => `results/topical_chat/gpt3.5_nat_${m}.json`),
    ]);
    // The published table: every printed value and the recomputed one beside it.
    assert.match(await page.locator('table[data-table="paper-table4"]').evaluate((t) => t.closest('section').innerText), /10 of 10 values recomputed from the released answers equal the printed value/);
    const rows = await paper.locator('tbody tr').evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll('th, td')].map((c) => c.innerText.trim())));
    assert.deepEqual(rows.map((r) => r[0]), ['G-Eval (auto CoT, score only)', 'G-Eval without auto CoT', 'Score only', 'Rate-explain', 'Analyze-rate']);
    assert.deepEqual(rows[3].slice(1), ['0.621', '0.621', '0.512', '0.512']);
    assert.deepEqual(rows.map((r) => r[2]), ['0.445', '0.431', '0.572', '0.621', '0.573']);
    // The Results table itself shows the same document-level r, over 360 responses.
    const results = new ResultsPage(page);
    assert.equal(await page.getByLabel('Level', { exact: true }).inputValue(), 'document');
    const cells = await results.cellDetails();
    assert.deepEqual(cells.map((r) => r[0].value), ['0.445', '0.431', '0.572', '0.621', '0.573']);
    assert.equal(await page.getByTestId('dataset-name').count(), 0, 'the Results screen is open');
    // A new workspace named for it; the one open before is kept.
    await page.getByRole('tab', { name: 'Data' }).click();
    assert.equal(await page.getByTestId('dataset-name').innerText(), 'topical_chat.json');
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Chiang & Lee Table 4, naturalness');
    await page.getByLabel('Saved workspaces').waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.getByLabel('Saved workspaces').locator('option').allInnerTexts(), ['Chiang & Lee Table 4, naturalness', 'Mine'], 'the earlier workspace is kept');

    // The bundle carries the runs; `concord report` prints the same comparison, byte for byte.
    await page.getByRole('tab', { name: 'Results' }).click();
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    execFileSync(CLI, ['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')], { encoding: 'utf8' });
    assert.equal(await results.exportTable('paper-table4'), readFileSync(join(dir, 'cli', 'paper-table4.csv'), 'utf8'));
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('Reproduce Table 4: a damaged or unreachable file is named and nothing changes', { timeout: 120_000 }, async (t) => {
  const missing = missingShared(RELEASED);
  if (missing) return t.skip(missing);
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    let mode = 'damage';
    await serveUpstream(page, (path) => (path.endsWith('gpt3.5_gro_analyze_rate.json') ? mode : null));
    await page.goto(CONCORD_URL);
    const before = await page.getByTestId('dataset-name').innerText();
    await page.getByLabel('Table 4 column').selectOption('groundedness');
    await page.getByRole('button', { name: 'Reproduce Table 4' }).click();
    const error = page.getByTestId('load-error');
    await error.filter({ hasText: 'gpt3.5_gro_analyze_rate.json is not the file released at d223302/A-Closer-Look-To-LLM-Evaluation@90084422: its SHA-256 is' }).waitFor({ timeout: 90_000 });
    assert.equal(await page.getByTestId('dataset-name').innerText(), before, 'the open dataset stays');
    mode = 'abort';
    await page.getByRole('button', { name: 'Reproduce Table 4' }).click();
    await error.filter({ hasText: /Could not download https:\/\/raw\.githubusercontent\.com\/.*gpt3\.5_gro_analyze_rate\.json/ }).waitFor({ timeout: 90_000 });
    assert.equal(await page.getByTestId('dataset-name').innerText(), before);
    await page.getByRole('tab', { name: 'Results' }).click();
    await page.getByTestId('results-empty').waitFor();
  } finally {
    await browser.close();
  }
});

test('the presets are pinned: a checked download opens, a changed one is refused, offline is said', { timeout: 120_000 }, async (t) => {
  const missing = missingShared(RELEASED);
  if (missing) return t.skip(missing);
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    let mode = 'damage';
    const asked = await serveUpstream(page, () => mode);
    await page.route('https://raw.githubusercontent.com/nlpyang/geval/**', (route) => route.abort('internetdisconnected'));
    await page.goto(CONCORD_URL);
    const before = await page.getByTestId('dataset-name').innerText();
    const error = page.getByTestId('load-error');
    await page.getByRole('button', { name: "Topical-Chat (Chiang & Lee's copy)" }).click();
    await error.filter({ hasText: 'topical_chat.json is not the file released at d223302/A-Closer-Look-To-LLM-Evaluation@90084422' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('dataset-name').innerText(), before, 'a changed file is not opened');
    assert.deepEqual(asked, ['data/topical_chat.json'], 'the preset is downloaded from the pinned commit');
    await page.getByRole('button', { name: "SummEval (G-Eval's summeval.json)" }).click();
    await error.filter({ hasText: /Could not download https:\/\/raw\.githubusercontent\.com\/nlpyang\/geval\/6f84404ce4503d2ba0cde0293c5d402ecf2976a8\/data\/summeval\.json: .*load it from disk/ }).waitFor({ timeout: 60_000 });
    mode = null;
    await page.getByRole('button', { name: "Topical-Chat (Chiang & Lee's copy)" }).click();
    await page.getByTestId('dataset-name').filter({ hasText: 'topical_chat.json' }).waitFor({ timeout: 60_000 });
    assert.equal(await error.count(), 0);
  } finally {
    await browser.close();
  }
});
