// Workspaces that persist (issue 24, defect 1): a reload after a finished run brings back the
// dataset, the study with its prompt edits, the provider settings without the key, the runs on
// the Results table and the view; a workspace is named, duplicated, switched, cleared,
// exported and opened; a damaged saved workspace is said, and the app starts on the example
// with nothing else lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, watch, CONCORD_URL, MOCK_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';
import { JudgePage, RunPage, ResultsPage } from './pages/workbench_pages.mjs';
import { gradedCsv } from './fixtures.mjs';

const SECRET = 'sk-test-WORKSPACE-SECRET-42';

async function scenario(body) {
  const res = await fetch(`${MOCK_URL}/__mock/scenario`, { method: 'POST', body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  await fetch(`${MOCK_URL}/__mock/reset`, { method: 'POST' });
}

/** Waits until the saved workspace is restored (the page marks `<html>`). */
async function ready(page) {
  await page.locator('html[data-workspace="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
}

/** How many times this page saved its workspace. */
const saves = (page) => page.evaluate(() => Number(document.documentElement.dataset.workspaceSaves ?? 0));

/** Waits for a save made after `since` saves (the save of the changes made just before). */
async function savedAfter(page, since) {
  await page.waitForFunction((n) => Number(document.documentElement.dataset.workspaceSaves ?? 0) > n, since, { timeout: 30_000 });
}

/** Every IndexedDB record of the `concord` database (bytes and Blobs decoded) and localStorage, as one string. */
async function storageText(page) {
  return page.evaluate(async () => {
    const out = [JSON.stringify({ ...localStorage })];
    const db = await new Promise((ok, err) => { const r = indexedDB.open('concord'); r.onsuccess = () => ok(r.result); r.onerror = err; });
    for (const name of db.objectStoreNames) {
      const all = await new Promise((ok, err) => { const r = db.transaction(name).objectStore(name).getAll(); r.onsuccess = () => ok(r.result); r.onerror = err; });
      for (const v of all) out.push(typeof v === 'string' ? v : v instanceof Blob ? await v.text() : new TextDecoder().decode(v));
    }
    db.close();
    return out.join('\n');
  });
}

/** Writes `value` under `key` in the `concord` database's object store `store`. */
async function putRecord(page, store, key, value) {
  await page.evaluate(async ([store, key, value]) => {
    const db = await new Promise((ok, err) => { const r = indexedDB.open('concord'); r.onsuccess = () => ok(r.result); r.onerror = err; });
    await new Promise((ok, err) => {
      const tx = db.transaction(store, 'readwrite');
      tx.objectStore(store).put(Array.isArray(value) ? new Uint8Array(value) : value, key);
      tx.oncomplete = ok; tx.onerror = err;
    });
    db.close();
  }, [store, key, value]);
}

test('a reload after a finished run brings the workspace back, without the key', { skip: !MOCK_URL, timeout: 180_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await ready(page);
    await data.loadFile('graded.csv', gradedCsv());
    await scenario({ reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 5 });
    const judge = new JudgePage(page);
    await judge.open();
    await judge.addMethods({ modes: ['score-only', 'rate-explain'], n: 1 });
    // A prompt edit made after the run is kept too (the runs keep the prompt they were made with).
    const run = new RunPage(page);
    await run.open();
    await run.connect({ provider: 'vllm', baseUrl: `${MOCK_URL}/v1`, model: 'mock-model', key: SECRET, itemLimit: 20 });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    await judge.open();
    const part = page.locator('textarea#part-0');
    await part.click();
    await part.press('End');
    await page.keyboard.type(' KEPT-EDIT');
    await page.getByRole('heading', { name: 'Prompt', exact: true }).click();
    const results = new ResultsPage(page);
    await results.open();
    await results.setStatistic('spearman');
    await results.setLevel('document');
    const table = await results.cells();
    assert.equal(table.length, 2, 'two runs on the table');
    const before = await saves(page);
    await page.getByRole('tab', { name: 'Data' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Graded trial');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    await page.getByLabel('Name', { exact: true }).blur();
    await savedAfter(page, before);

    await page.reload();
    await ready(page);
    await data.datasetName.filter({ hasText: 'graded.csv' }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Graded trial');
    await judge.open();
    assert.deepEqual(await judge.methods.locator('td:first-child').allInnerTexts(), ['score-only', 'rate-explain']);
    assert.match(await page.locator('textarea#part-0').inputValue(), / KEPT-EDIT/);
    await run.open();
    assert.equal(await page.getByRole('combobox', { name: 'Provider' }).inputValue(), 'vllm');
    assert.equal(await page.getByLabel('Base URL', { exact: true }).inputValue(), `${MOCK_URL}/v1`);
    assert.equal(await page.getByLabel('Model', { exact: true }).inputValue(), 'mock-model');
    assert.equal(await page.getByLabel('Rate only the first N items').inputValue(), '20');
    assert.equal(await page.getByLabel('API key').inputValue(), '', 'the key was not remembered, so it is not back');
    await results.open();
    assert.equal(await page.getByLabel('Statistic', { exact: true }).inputValue(), 'spearman');
    assert.equal(await page.getByLabel('Level', { exact: true }).inputValue(), 'document');
    assert.deepEqual(await results.cells(), table, 'the same runs, the same numbers');
    assert.equal(await page.getByTestId('bundle-source').count(), 0, 'runs made here are not said to come from a bundle');
    assert.ok(!(await storageText(page)).includes(SECRET), 'the key is nowhere in storage');
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('a workspace is renamed, duplicated, switched, cleared, exported and opened', { timeout: 120_000 }, async () => {
  const browser = await launch();
  const dir = mkdtempSync(join(tmpdir(), 'concord-workspace-'));
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    page.on('dialog', (d) => d.accept());
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await ready(page);
    const name = page.getByLabel('Name', { exact: true });
    const message = page.getByTestId('workspace-message');
    let n = await saves(page);
    await data.loadFile('first.csv', gradedCsv());
    await name.fill('First');
    await name.blur();
    await savedAfter(page, n);

    // Duplicate: the copy is open, the original kept.
    await page.getByRole('button', { name: 'Duplicate' }).click();
    await message.filter({ hasText: '“First (copy)” is open; “First” is kept as it was.' }).waitFor();
    assert.equal(await name.inputValue(), 'First (copy)');
    n = await saves(page);
    await data.loadFile('second.csv', gradedCsv().replace('Summary 0.', 'Summary zero.'));
    await savedAfter(page, n);
    const saved = page.getByLabel('Saved workspaces');
    assert.deepEqual(await saved.locator('option').allInnerTexts(), ['First', 'First (copy)']);
    await saved.selectOption({ label: 'First' });
    await message.filter({ hasText: 'Opened “First”.' }).waitFor();
    await data.datasetName.filter({ hasText: 'first.csv' }).waitFor();
    // A reload opens the workspace switched to.
    await page.reload();
    await ready(page);
    await data.datasetName.filter({ hasText: 'first.csv' }).waitFor();
    assert.equal(await name.inputValue(), 'First');
    await saved.selectOption({ label: 'First (copy)' });
    await data.datasetName.filter({ hasText: 'second.csv' }).waitFor();

    // Export, then Open the file as a new workspace.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export', exact: true }).click(),
    ]);
    const path = join(dir, 'exported-second.json');
    await download.saveAs(path);

    // Clear (confirmed): back to the example, still "First (copy)", and so after a reload.
    n = await saves(page);
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await data.datasetName.filter({ hasText: 'example' }).waitFor();
    await savedAfter(page, n);
    await page.reload();
    await ready(page);
    await data.datasetName.filter({ hasText: 'example' }).waitFor();
    assert.equal(await name.inputValue(), 'First (copy)');

    await page.getByLabel('Open a bundle as a new workspace').setInputFiles(path);
    await message.filter({ hasText: /^Opened exported-second\.json as “exported-second”; “First \(copy\)” is kept\.$/ }).waitFor({ timeout: 30_000 });
    await page.getByRole('tab', { name: 'Data' }).click();
    await data.datasetName.filter({ hasText: 'second.csv' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('#workspace-switch option').length === 3, null, { timeout: 30_000 });
    assert.deepEqual(await saved.locator('option').allInnerTexts(), ['exported-second', 'First', 'First (copy)']);
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a damaged saved workspace is said; the app starts on the example and nothing else is lost', { timeout: 90_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await ready(page);
    const example = await data.datasetName.innerText();
    const n = await saves(page);
    await data.loadFile('doomed.csv', gradedCsv());
    await savedAfter(page, n);
    // A stored answer that must survive, and the saved workspace's bytes damaged.
    await putRecord(page, 'responses', 'some-cache-key', '{"kept":true}');
    const index = JSON.parse(await page.evaluate(async () => {
      const db = await new Promise((ok) => { const r = indexedDB.open('concord'); r.onsuccess = () => ok(r.result); });
      const text = await new Promise((ok) => { const r = db.transaction('settings').objectStore('settings').get('workspaces'); r.onsuccess = () => ok(r.result); });
      db.close();
      return text;
    }));
    await putRecord(page, 'workspaces', index.current, [0x7b, 0x22, 0x6e, 0xff, 0x00]);
    await page.reload();
    await ready(page);
    await page.getByTestId('workspace-message').filter({ hasText: /the saved workspace “My workspace” could not be read \(.+\); Concord opened the built-in example instead/ }).waitFor();
    assert.equal(await data.datasetName.innerText(), example);
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByTestId('cache-info').filter({ hasText: /^1 stored answer in this browser/ }).waitFor();

    // A damaged list of workspaces: said the same way.
    await putRecord(page, 'settings', 'workspaces', '{not json');
    await page.reload();
    await ready(page);
    await page.getByTestId('workspace-message').filter({ hasText: /the list of saved workspaces is damaged/ }).waitFor();
    assert.equal(await data.datasetName.innerText(), example);
  } finally {
    await browser.close();
  }
});
