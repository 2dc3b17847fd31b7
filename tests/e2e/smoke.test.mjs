// Smoke test: the app starts cleanly, opens on the built-in example, loads a CSV through the
// file input, and works from a sub-path without requests to any other origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_SUBPATH_URL } from './browser.mjs';
import { withApp } from './harness.mjs';

const SMALL_CSV = [
  'doc_id,system_id,source,output,fluency',
  'a,s1,"First source, with a comma",Output one,3',
  'a,s2,First source,Output two,4',
  'b,s1,Second source,"Output ""three""",2',
  'b,s2,Second source,Output four,5',
  'c,s1,Third source,Output five,1',
  'c,s2,Third source,Output six,4',
  'd,s1,Fourth source,Output seven,2',
].join('\n');

test('opens on the built-in example and loads a CSV through the file input', async () => {
  await withApp({}, async ({ page, data, screens }) => {
    assert.match(await data.datasetName.textContent(), /concord-example\.csv/);
    assert.equal(await data.itemCount.textContent(), '15');
    assert.equal(await data.documentCount.textContent(), '5');
    assert.equal(await data.systemCount.textContent(), '3');
    assert.ok((await data.previewRows.count()) >= 15, 'preview shows the example rows');
    if (process.env.CONCORD_SCREENSHOTS) {
      await page.screenshot({ path: `${process.env.CONCORD_SCREENSHOTS}/data.png` });
    }

    await data.loadFile('small.csv', SMALL_CSV);
    assert.equal(await data.itemCount.textContent(), '7');
    assert.equal(await data.documentCount.textContent(), '4');

    // The screen tabs by keyboard: one tab stop, arrows move, Home / End jump, and the panel
    // is labelled by the selected tab.
    assert.equal(await screens.tabStops(), 1);
    await screens.tab('Data').focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await screens.selected(), 'Judge');
    assert.equal(await screens.focusedText(), 'Judge');
    await page.keyboard.press('End');
    assert.equal(await screens.selected(), 'Class');
    await page.keyboard.press('ArrowRight');
    assert.equal(await screens.selected(), 'Data', 'wraps around');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await screens.selected(), 'Class');
    await page.keyboard.press('Home');
    assert.equal(await screens.selected(), 'Data');
    assert.equal(await screens.panel('Data').count(), 1);
    assert.equal(await screens.main.count(), 1, 'the tab panel does not replace the main landmark');
    assert.equal(await data.itemCount.textContent(), '7', 'the data survived the trip');
  });
});

test('works under a sub-path with no request to another origin', { skip: !CONCORD_SUBPATH_URL }, async () => {
  await withApp({ url: CONCORD_SUBPATH_URL }, async ({ data, seen }) => {
    assert.equal(await data.itemCount.textContent(), '15');
    const origin = new URL(CONCORD_SUBPATH_URL).origin;
    const foreign = seen.requests.filter((u) => !u.startsWith(origin + '/some/path/'));
    assert.deepEqual(foreign, [], 'every request stays under the sub-path of the site');
  });
});
