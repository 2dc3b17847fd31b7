// The first thing Concord shows a newcomer: seed 002's Table 4 recomputed from Chiang & Lee's
// released GPT-3.5 answers, downloaded from GitHub at a pinned commit (here the requests are
// answered from ../shared/data, byte-identical to that commit), every file's SHA-256 checked,
// opened as a new workspace; a damaged or unreachable file changes nothing and is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONCORD_URL } from './browser.mjs';
import { missingShared } from './fixtures.mjs';
import { ROOT, withApp, cli, waitReady } from './harness.mjs';
import { waitWorkspaceSaved, workspaceSaves } from './pages/workbench_pages.mjs';

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
  await withApp({ url: null }, async (app) => {
    const { page, data, results, screens } = app;
    const dir = app.tempDir('concord-paper-');
    const asked = await serveUpstream(page);
    await page.goto(CONCORD_URL);
    await waitReady(page);
    // The workspace open before: named, saved.
    const n = await workspaceSaves(page);
    await data.workspaceName.fill('Mine');
    await data.workspaceName.blur();
    await waitWorkspaceSaved(page, n);
    await data.reproduceTable4('naturalness');
    await results.paperTable.waitFor({ timeout: 180_000 });
    assert.deepEqual(asked, [
      'data/topical_chat.json',
      ...['geval', 'geval_no_auto_cot', 'llm_eval_no_cot', 'rate_explain', 'analyze_rate'].map((m) => `results/topical_chat/gpt3.5_nat_${m}.json`),
    ]);
    // The published table: every printed value and the recomputed one beside it.
    assert.match(await results.sectionText('paper-table4'), /10 of 10 values recomputed from the released answers equal the printed value/);
    const rows = await results.paperRows();
    assert.deepEqual(rows.map((r) => r[0]), ['G-Eval (auto CoT, score only)', 'G-Eval without auto CoT', 'Score only', 'Rate-explain', 'Analyze-rate']);
    assert.deepEqual(rows[3].slice(1), ['0.621', '0.621', '0.512', '0.512']);
    assert.deepEqual(rows.map((r) => r[2]), ['0.445', '0.431', '0.572', '0.621', '0.573']);
    // The Results table itself shows the same document-level r, over 360 responses.
    assert.equal(await results.level.inputValue(), 'document');
    const cells = await results.cellDetails();
    assert.deepEqual(cells.map((r) => r[0].value), ['0.445', '0.431', '0.572', '0.621', '0.573']);
    assert.equal(await data.datasetName.count(), 0, 'the Results screen is open');
    // A new workspace named for it; the one open before is kept.
    await screens.tab('Data').click();
    assert.equal(await data.datasetName.innerText(), 'topical_chat.json');
    assert.equal(await data.workspaceName.inputValue(), 'Chiang & Lee Table 4, naturalness');
    await data.savedWorkspaces.waitFor({ timeout: 30_000 });
    assert.deepEqual(await data.savedWorkspaceNames(), ['Chiang & Lee Table 4, naturalness', 'Mine'], 'the earlier workspace is kept');

    // The bundle carries the runs; `concord report` prints the same comparison, byte for byte.
    await results.open();
    const bundle = join(dir, 'bundle.json');
    await (await results.exportBundle()).saveAs(bundle);
    cli(['report', bundle, '--format', 'csv', '--out', join(dir, 'cli')]);
    assert.equal(await results.exportTable('paper-table4'), readFileSync(join(dir, 'cli', 'paper-table4.csv'), 'utf8'));
  });
});

test('Reproduce Table 4: a damaged or unreachable file is named and nothing changes', { timeout: 120_000 }, async (t) => {
  const missing = missingShared(RELEASED);
  if (missing) return t.skip(missing);
  await withApp({ url: null, problems: 'allowed' }, async ({ page, data, results }) => {
    let mode = 'damage';
    await serveUpstream(page, (path) => (path.endsWith('gpt3.5_gro_analyze_rate.json') ? mode : null));
    await page.goto(CONCORD_URL);
    const before = await data.datasetName.innerText();
    await data.reproduceTable4('groundedness');
    await data.loadErrorWith('gpt3.5_gro_analyze_rate.json is not the file released at d223302/A-Closer-Look-To-LLM-Evaluation@90084422: its SHA-256 is').waitFor({ timeout: 90_000 });
    assert.equal(await data.datasetName.innerText(), before, 'the open dataset stays');
    mode = 'abort';
    await data.reproduceTable4();
    await data.loadErrorWith(/Could not download https:\/\/raw\.githubusercontent\.com\/.*gpt3\.5_gro_analyze_rate\.json/).waitFor({ timeout: 90_000 });
    assert.equal(await data.datasetName.innerText(), before);
    await results.open();
    await results.empty.waitFor();
  });
});

test('the presets are pinned: a checked download opens, a changed one is refused, offline is said', { timeout: 120_000 }, async (t) => {
  const missing = missingShared(RELEASED);
  if (missing) return t.skip(missing);
  await withApp({ url: null, problems: 'allowed' }, async ({ page, data }) => {
    let mode = 'damage';
    const asked = await serveUpstream(page, () => mode);
    await page.route('https://raw.githubusercontent.com/nlpyang/geval/**', (route) => route.abort('internetdisconnected'));
    await page.goto(CONCORD_URL);
    const before = await data.datasetName.innerText();
    await data.preset("Topical-Chat (Chiang & Lee's copy)");
    await data.loadErrorWith('topical_chat.json is not the file released at d223302/A-Closer-Look-To-LLM-Evaluation@90084422').waitFor({ timeout: 60_000 });
    assert.equal(await data.datasetName.innerText(), before, 'a changed file is not opened');
    assert.deepEqual(asked, ['data/topical_chat.json'], 'the preset is downloaded from the pinned commit');
    await data.preset("SummEval (G-Eval's summeval.json)");
    await data.loadErrorWith(/Could not download https:\/\/raw\.githubusercontent\.com\/nlpyang\/geval\/6f84404ce4503d2ba0cde0293c5d402ecf2976a8\/data\/summeval\.json: .*load it from disk/).waitFor({ timeout: 60_000 });
    mode = null;
    await data.preset("Topical-Chat (Chiang & Lee's copy)");
    await data.named('topical_chat.json').waitFor({ timeout: 60_000 });
    assert.equal(await data.loadError.count(), 0);
  });
});
