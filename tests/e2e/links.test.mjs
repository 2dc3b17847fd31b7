// Links to any view: the address holds the screen and the Results view (statistic, level,
// baseline, cell, item); a link opens that exact view, inside a bundle too; back and forward
// move between views; "Copy link" hands out the address of what is shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, watch, CONCORD_URL } from './browser.mjs';

const VIEW = 'screen=results&stat=spearman&level=document&baseline=score-only&method=rate-explain&attribute=coherence&item=row3';

/** The query parameters of the page's address, as an object. */
const params = async (page) => Object.fromEntries(new URL(page.url()).searchParams);

test('a link opens a bundle at the exact view, and the address follows the view', { timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    const seen = watch(page);
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&${VIEW}`);
    const cell = page.getByTestId('cell-panel');
    await cell.locator('h2').filter({ hasText: 'rate-explain · coherence' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByLabel('Statistic', { exact: true }).inputValue(), 'spearman');
    assert.equal(await page.getByLabel('Level', { exact: true }).inputValue(), 'document');
    assert.equal(await page.getByLabel('Baseline', { exact: true }).inputValue(), 'score-only');
    await page.getByTestId('item-detail').locator('h3').filter({ hasText: /^Item row3 / }).waitFor();
    // The bundle was opened (and is now the workspace): the address keeps the view, not the bundle.
    assert.deepEqual(await params(page), {
      screen: 'results', stat: 'spearman', level: 'document', baseline: 'score-only',
      method: 'rate-explain', attribute: 'coherence', item: 'row3',
    });

    // Copy link: the address of this view, with the bundle it came from.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(CONCORD_URL).origin });
    await cell.getByRole('button', { name: 'Copy link' }).click();
    const link = await cell.getByTestId('view-link').inputValue();
    const copied = new URL(link);
    assert.equal(copied.searchParams.get('bundle'), 'demo/example-bundle.json');
    assert.equal(copied.searchParams.get('method'), 'rate-explain');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await cell.getByText('Link copied: it opens the bundle at this view.').waitFor();

    // Another statistic replaces the entry; another screen is a new one: back returns to the cell.
    await page.getByLabel('Statistic', { exact: true }).selectOption('pearson');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('stat') === 'pearson');
    await page.getByRole('tab', { name: 'Judge' }).click();
    await page.waitForFunction(() => location.search === '?screen=judge');
    await page.goBack();
    await cell.locator('h2').filter({ hasText: 'rate-explain · coherence' }).waitFor();
    assert.equal(await page.getByLabel('Statistic', { exact: true }).inputValue(), 'pearson');
    await page.getByTestId('item-detail').waitFor();
    // Another cell is another view.
    await page.getByTestId('results-table').locator('tbody tr').first().locator('td button').nth(1).click();
    await cell.locator('h2').filter({ hasText: 'score-only · fluency' }).waitFor();
    assert.equal((await params(page)).item, undefined, 'a new cell shows no item yet');
    await page.goBack();
    await cell.locator('h2').filter({ hasText: 'rate-explain · coherence' }).waitFor();
    await page.goForward();
    await cell.locator('h2').filter({ hasText: 'score-only · fluency' }).waitFor();
    // A reload shows the same view (the saved workspace, the address's view).
    await page.reload();
    await cell.locator('h2').filter({ hasText: 'score-only · fluency' }).waitFor({ timeout: 60_000 });

    // The copied link, opened elsewhere, shows the view it was copied from.
    const other = await launch();
    try {
      const p2 = await other.context.newPage();
      await p2.goto(link);
      await p2.getByTestId('item-detail').locator('h3').filter({ hasText: /^Item row3 / }).waitFor({ timeout: 60_000 });
      assert.equal(await p2.getByLabel('Statistic', { exact: true }).inputValue(), 'spearman');
    } finally {
      await other.close();
    }
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});

test('a link with a wrong part says which, and shows the rest', { timeout: 60_000 }, async () => {
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${CONCORD_URL}?screen=graphs&stat=mean&method=nothing&attribute=here`);
    const problem = page.getByTestId('link-problem');
    await problem.waitFor({ timeout: 30_000 });
    assert.match(await problem.innerText(), /the link names the screen “graphs”; the screens are data, judge, run, results, rate, meta, coeval, class; the link asks for the statistic “mean”/);
    await page.getByRole('tab', { name: 'Data', selected: true }).waitFor();
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=results&method=nothing&attribute=here`);
    await page.getByTestId('cell-missing').filter({ hasText: 'The link selects the cell nothing · here, which this table does not have.' }).waitFor({ timeout: 60_000 });
    await page.goto(`${CONCORD_URL}?screen=rate`);
    await page.getByRole('tab', { name: 'Rate it yourself', selected: true }).waitFor({ timeout: 30_000 });
    // A bundle link to another screen with a cell in it: the bundle opens on Results, the link
    // moves on at once; nothing of the Results screen left behind may break (split build).
    const other = await browser.context.newPage();
    const seen = watch(other);
    await other.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=data&method=rate-explain&attribute=coherence&item=row3`);
    await other.getByRole('tab', { name: 'Data', selected: true }).waitFor({ timeout: 60_000 });
    await other.getByTestId('dataset-name').filter({ hasText: 'concord-example.csv' }).waitFor();
    await other.waitForTimeout(1500);
    await other.getByRole('tab', { name: 'Results' }).click();
    await other.getByTestId('results-table').waitFor({ timeout: 30_000 });
    assert.deepEqual(seen.problems, []);
  } finally {
    await browser.close();
  }
});
