// Workspaces that persist (issue 24, defect 1): a reload after a finished run brings back the
// dataset, the study with its prompt edits, the provider settings without the key, the runs on
// the Results table and the view; a workspace is named, duplicated, switched, cleared,
// exported and opened; a damaged saved workspace is said, and the app starts on the example
// with nothing else lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MOCK_URL } from './browser.mjs';
import { withApp } from './harness.mjs';
import { waitWorkspaceSaved as savedAfter, workspaceSaves as saves } from './pages/workbench_pages.mjs';
import { GRADED, gradedCsv } from './fixtures.mjs';

const SECRET = 'sk-test-WORKSPACE-SECRET-42';

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
  await withApp({ data: GRADED, scenario: { reply: { mode: 'echo_rating', marker: 'RATING=' }, latency_ms: 5 } }, async (app) => {
    const { page, data, judge, run, results, screens } = app;
    await judge.open();
    await judge.addMethods({ modes: ['score-only', 'rate-explain'], n: 1 });
    // A prompt edit made after the run is kept too (the runs keep the prompt they were made with).
    await app.connectMock({ key: SECRET, itemLimit: 20 });
    await run.run();
    assert.match(await run.waitFinished(), /Run complete/);
    await judge.open();
    const part = judge.promptPart(0);
    await part.click();
    await part.press('End');
    await page.keyboard.type(' KEPT-EDIT');
    await judge.leaveEditor();
    await results.open();
    await results.setStatistic('spearman');
    await results.setLevel('document');
    const table = await results.cells();
    assert.equal(table.length, 2, 'two runs on the table');
    const before = await saves(page);
    await screens.tab('Data').click();
    await data.workspaceName.fill('Graded trial');
    await data.workspaceName.press('Enter');
    await data.workspaceName.blur();
    await savedAfter(page, before);

    await app.reload();
    await data.named('graded.csv').waitFor();
    assert.equal(await data.workspaceName.inputValue(), 'Graded trial');
    await judge.open();
    assert.deepEqual(await judge.firstColumn(), ['score-only', 'rate-explain']);
    assert.match(await judge.promptPart(0).inputValue(), / KEPT-EDIT/);
    await run.open();
    assert.equal(await run.provider.inputValue(), 'vllm');
    assert.equal(await run.baseUrl.inputValue(), `${MOCK_URL}/v1`);
    assert.equal(await run.model.inputValue(), 'mock-model');
    assert.equal(await run.itemLimit.inputValue(), '20');
    assert.equal(await run.apiKey.inputValue(), '', 'the key was not remembered, so it is not back');
    await results.open();
    assert.equal(await results.statistic.inputValue(), 'spearman');
    assert.equal(await results.level.inputValue(), 'document');
    assert.deepEqual(await results.cells(), table, 'the same runs, the same numbers');
    assert.equal(await results.source.count(), 0, 'runs made here are not said to come from a bundle');
    assert.ok(!(await storageText(page)).includes(SECRET), 'the key is nowhere in storage');
  });
});

test('a workspace is renamed, duplicated, switched, cleared, exported and opened', { timeout: 120_000 }, async () => {
  await withApp({}, async (app) => {
    const { page, data, screens } = app;
    const dir = app.tempDir('concord-workspace-');
    page.on('dialog', (d) => d.accept());
    const name = data.workspaceName;
    let n = await saves(page);
    await data.loadFile('first.csv', gradedCsv());
    await name.fill('First');
    await name.blur();
    await savedAfter(page, n);

    // Duplicate: the copy is open, the original kept.
    await data.duplicateWorkspace();
    await data.workspaceMessage('“First (copy)” is open; “First” is kept as it was.').waitFor();
    assert.equal(await name.inputValue(), 'First (copy)');
    n = await saves(page);
    await data.loadFile('second.csv', gradedCsv().replace('Summary 0.', 'Summary zero.'));
    await savedAfter(page, n);
    const saved = data.savedWorkspaces;
    assert.deepEqual(await data.savedWorkspaceNames(), ['First', 'First (copy)']);
    await saved.selectOption({ label: 'First' });
    await data.workspaceMessage('Opened “First”.').waitFor();
    await data.named('first.csv').waitFor();
    // A reload opens the workspace switched to.
    await app.reload();
    await data.named('first.csv').waitFor();
    assert.equal(await name.inputValue(), 'First');
    await saved.selectOption({ label: 'First (copy)' });
    await data.named('second.csv').waitFor();

    // Export, then Open the file as a new workspace.
    const download = await data.exportWorkspace();
    const path = join(dir, 'exported-second.json');
    await download.saveAs(path);

    // Clear (confirmed): back to the example, still "First (copy)", and so after a reload.
    n = await saves(page);
    await data.clearWorkspace();
    await data.named('example').waitFor();
    await savedAfter(page, n);
    await app.reload();
    await data.named('example').waitFor();
    assert.equal(await name.inputValue(), 'First (copy)');

    await data.openAsWorkspace(path);
    await data.workspaceMessage(/^Opened exported-second\.json as “exported-second”; “First \(copy\)” is kept\.$/).waitFor({ timeout: 30_000 });
    await screens.tab('Data').click();
    await data.named('second.csv').waitFor();
    await data.waitWorkspaceCount(3);
    assert.deepEqual(await data.savedWorkspaceNames(), ['exported-second', 'First', 'First (copy)']);
  });
});

test('a damaged saved workspace is said; the app starts on the example and nothing else is lost', { timeout: 90_000 }, async () => {
  await withApp({ problems: 'allowed' }, async (app) => {
    const { page, data, run, screens } = app;
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
    await app.reload();
    await data.workspaceMessage(/the saved workspace “My workspace” could not be read \(.+\); Concord opened the built-in example instead/).waitFor();
    assert.equal(await data.datasetName.innerText(), example);
    await screens.tab('Run').click();
    await run.cacheInfo(/^1 stored answer in this browser/).waitFor();

    // A damaged list of workspaces: said the same way.
    await putRecord(page, 'settings', 'workspaces', '{not json');
    await app.reload();
    await data.workspaceMessage(/the list of saved workspaces is damaged/).waitFor();
    assert.equal(await data.datasetName.innerText(), example);
  });
});
