// The Data screen's other ways in: a URL on the site's own origin, a URL the page's CSP does
// not allow (the message says why and what to do), drag and drop, and the diagnostics list
// naming line and field of each problem in a partly wrong file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL } from './browser.mjs';
import { DataPage } from './pages/data_page.mjs';

test('load from a URL: the site\'s own file loads; an origin outside the CSP is explained', { timeout: 60_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    await page.getByLabel('Dataset URL').fill(new URL('demo/example.csv', CONCORD_URL).href);
    await page.getByRole('button', { name: 'Load from URL' }).click();
    await data.datasetName.filter({ hasText: /^example\.csv$/ }).waitFor();
    // demo/example.csv is the built-in example's text: 15 outputs, raters r1 and r2, both
    // attributes rated over the whole 1–5 range.
    assert.deepEqual(await data.summary(), { items: 15, raters: 2, attributes: 'coherence (1–5), fluency (1–5)' });
    assert.deepEqual(seen.problems, []);

    // Not in connect-src: the browser refuses before any request; the page says why.
    await page.getByLabel('Dataset URL').fill('http://datasets.example.org/summeval.jsonl');
    await page.getByRole('button', { name: 'Load from URL' }).click();
    const error = await data.loadError.innerText();
    assert.match(error, /Could not download http:\/\/datasets\.example\.org\/summeval\.jsonl/);
    // The cause, not a guess: plain http:// to another computer is refused by the page itself.
    assert.match(error, /Content-Security-Policy refused/);
    assert.doesNotMatch(error, /CORS/);
    assert.match(error, /https:\/\//);
    assert.match(error, /load it from disk/);
    // The dataset that was open stays open.
    assert.equal(await data.datasetName.innerText(), 'example.csv');
  } finally {
    await browser.close();
  }
});

test('drag and drop a file; the diagnostics list names line and field', { timeout: 60_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    const data = new DataPage(page);
    await data.open(CONCORD_URL);
    // Row 3 has a rating that is not a number, row 4 an empty output.
    const csv = 'doc_id,system_id,source,output,quality\nd1,s1,src one,out one,4\nd1,s2,src one,out two,high\nd2,s1,src two,,3\nd2,s2,src two,out four,2\n';
    await page.locator('.dropzone').evaluate((zone, text) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([text], 'dropped.csv', { type: 'text/csv' }));
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }, csv);
    await data.datasetName.filter({ hasText: 'dropped.csv' }).waitFor();
    assert.equal(Number(await data.itemCount.innerText()), 3, 'the row without an output is skipped');
    const lines = await data.diagnostics.allInnerTexts();
    assert.ok(lines.some((l) => /dropped\.csv:3/.test(l) && /quality/.test(l) && /"high" is not a number/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /dropped\.csv:4/.test(l) && /empty output/.test(l)), lines.join('\n'));
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
