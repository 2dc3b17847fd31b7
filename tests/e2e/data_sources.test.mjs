// The Data screen's other ways in: a URL on the site's own origin, a URL the page's CSP does
// not allow (the message says why and what to do), drag and drop, and the diagnostics list
// naming line and field of each problem in a partly wrong file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';

test('load from a URL: the site\'s own file loads; an origin outside the CSP is explained', { timeout: 60_000 }, async () => {
  await withApp({ problems: 'allowed' }, async ({ data, seen }) => {
    await data.loadUrl(new URL('demo/example.csv', CONCORD_URL).href);
    await data.named(/^example\.csv$/).waitFor();
    // demo/example.csv is the built-in example's text: 15 outputs, raters r1 and r2, both
    // attributes rated over the whole 1–5 range.
    assert.deepEqual(await data.summary(), { items: 15, raters: 2, attributes: 'coherence (1–5), fluency (1–5)' });
    assert.deepEqual(seen.problems, []);

    // Not in connect-src: the browser refuses before any request; the page says why.
    await data.loadUrl('http://datasets.example.org/summeval.jsonl');
    const error = await data.loadError.innerText();
    assert.match(error, /Could not download http:\/\/datasets\.example\.org\/summeval\.jsonl/);
    // The cause, not a guess: plain http:// to another computer is refused by the page itself.
    assert.match(error, /Content-Security-Policy refused/);
    assert.doesNotMatch(error, /CORS/);
    assert.match(error, /https:\/\//);
    assert.match(error, /load it from disk/);
    // The dataset that was open stays open.
    assert.equal(await data.datasetName.innerText(), 'example.csv');
  });
});

test('drag and drop a file; the diagnostics list names line and field', { timeout: 60_000 }, async () => {
  await withApp({}, async ({ data }) => {
    // Row 3 has a rating that is not a number, row 4 an empty output.
    const csv = 'doc_id,system_id,source,output,quality\nd1,s1,src one,out one,4\nd1,s2,src one,out two,high\nd2,s1,src two,,3\nd2,s2,src two,out four,2\n';
    await data.dropFile('dropped.csv', csv);
    await data.named('dropped.csv').waitFor();
    assert.equal(Number(await data.itemCount.innerText()), 3, 'the row without an output is skipped');
    const lines = await data.diagnostics.allInnerTexts();
    assert.ok(lines.some((l) => /dropped\.csv:3/.test(l) && /quality/.test(l) && /"high" is not a number/.test(l)), lines.join('\n'));
    assert.ok(lines.some((l) => /dropped\.csv:4/.test(l) && /empty output/.test(l)), lines.join('\n'));
  });
});
