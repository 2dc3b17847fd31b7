// Smoke test: the app starts cleanly, opens on the built-in example, loads a CSV through the
// file input, and works from a sub-path without requests to any other origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL, CONCORD_SUBPATH_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';

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
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
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
    const tabs = page.getByRole('tablist', { name: 'Screens' });
    const selected = () => tabs.locator('[role="tab"][aria-selected="true"]').innerText();
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    assert.equal(await tabs.locator('[role="tab"][tabindex="0"]').count(), 1);
    await page.getByRole('tab', { name: 'Data' }).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'Judge');
    assert.equal(await focused(), 'Judge');
    await page.keyboard.press('End');
    assert.equal(await selected(), 'Class');
    await page.keyboard.press('ArrowRight');
    assert.equal(await selected(), 'Data', 'wraps around');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await selected(), 'Class');
    await page.keyboard.press('Home');
    assert.equal(await selected(), 'Data');
    assert.equal(await page.getByRole('tabpanel', { name: 'Data' }).count(), 1);
    assert.equal(await page.getByRole('main').count(), 1, 'the tab panel does not replace the main landmark');
    assert.equal(await data.itemCount.textContent(), '7', 'the data survived the trip');
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});

test('works under a sub-path with no request to another origin', { skip: !CONCORD_SUBPATH_URL }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_SUBPATH_URL);
    assert.equal(await data.itemCount.textContent(), '15');
    const origin = new URL(CONCORD_SUBPATH_URL).origin;
    const foreign = seen.requests.filter((u) => !u.startsWith(origin + '/some/path/'));
    assert.deepEqual(foreign, [], 'every request stays under the sub-path of the site');
    assert.deepEqual(seen.problems, [], 'no console or page errors');
  } finally {
    await browser.close();
  }
});
