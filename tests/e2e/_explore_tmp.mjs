import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from '/work/main/tests/e2e/browser.mjs';
import { MetaPage } from '/work/main/tests/e2e/pages/meta_page.mjs';
const DATA = '/work/shared/data/meta-evaluation';
const list = (dir) => readdirSync(join(DATA, dir)).filter((n) => n.endsWith('.jsonl')).sort().map((n) => join(DATA, dir, n));
const files = [...list('evaluator_results/pairwise'), ...list('evaluator_results/pointwise'), ...list('meta-evaluator_results/pairwise/JDEval'), ...list('meta-evaluator_results/pointwise/JDEval-i'), ...list('meta-evaluator_results/pointwise/BSMEval')];
const b = await launch();
const page = await b.context.newPage();
const meta = new MetaPage(page);
await meta.open('http://127.0.0.1:8091/');
const t0 = Date.now();
await meta.loadFiles(files);
await page.waitForFunction(() => /Computed in/.test(document.querySelector('[data-testid="elo-status"]')?.textContent ?? ''));
console.log('load ms', Date.now() - t0);
const dump = await page.evaluate(() => {
  const out = {};
  for (const t of document.querySelectorAll('[data-table]')) {
    out[t.dataset.table] = [...t.querySelectorAll('td[data-cell]')].map((c) => [c.dataset.cell, c.dataset.value, c.textContent]);
  }
  return out;
});
for (const [k, v] of Object.entries(dump)) if (!/table1|table5|table6/.test(k)) console.log(k, JSON.stringify(v));
console.log(await page.locator('#meta-select option').allTextContents());
console.log(await page.locator('#tie-convention option').evaluateAll((os) => os.map((o) => [o.value, o.textContent, o.selected])));
console.log(await meta.heatmap.locator('title').allTextContents());
console.log(await page.locator('[data-table^="bradley-terry"]').evaluateAll((ts) => ts.map((t) => t.closest('figure').querySelector('figcaption').textContent)));
await b.close();
