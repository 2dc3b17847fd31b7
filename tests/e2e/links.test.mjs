// Links to any view: the address holds the screen and the Results view (statistic, level,
// baseline, cell, item); a link opens that exact view, inside a bundle too; back and forward
// move between views; "Copy link" hands out the address of what is shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';

const VIEW = 'screen=results&stat=spearman&level=document&baseline=score-only&method=rate-explain&attribute=coherence&item=row3';

/** The query parameters of the page's address, as an object. */
const params = async (page) => Object.fromEntries(new URL(page.url()).searchParams);

test('a link opens a bundle at the exact view, and the address follows the view', { timeout: 120_000 }, async () => {
  await withApp({ url: null }, async ({ page, browser, results, screens }) => {
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&${VIEW}`);
    await results.cellHeading('rate-explain · coherence').waitFor({ timeout: 60_000 });
    assert.equal(await results.statistic.inputValue(), 'spearman');
    assert.equal(await results.level.inputValue(), 'document');
    assert.equal(await results.baseline.inputValue(), 'score-only');
    await results.itemHeading(/^Item row3 /).waitFor();
    // The bundle was opened (and is now the workspace): the address keeps the view, not the bundle.
    assert.deepEqual(await params(page), {
      screen: 'results', stat: 'spearman', level: 'document', baseline: 'score-only',
      method: 'rate-explain', attribute: 'coherence', item: 'row3',
    });

    // Copy link: the address of this view, with the bundle it came from.
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(CONCORD_URL).origin });
    await results.copyLink();
    const link = await results.viewLink.inputValue();
    const copied = new URL(link);
    assert.equal(copied.searchParams.get('bundle'), 'demo/example-bundle.json');
    assert.equal(copied.searchParams.get('method'), 'rate-explain');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await results.cellText('Link copied: it opens the bundle at this view.').waitFor();

    // Another statistic replaces the entry; another screen is a new one: back returns to the cell.
    await results.setStatistic('pearson');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('stat') === 'pearson');
    await screens.tab('Judge').click();
    await page.waitForFunction(() => location.search === '?screen=judge');
    await page.goBack();
    await results.cellHeading('rate-explain · coherence').waitFor();
    assert.equal(await results.statistic.inputValue(), 'pearson');
    await results.itemDetail.waitFor();
    // Another cell is another view.
    await results.clickFirstRowCell(1);
    await results.cellHeading('score-only · fluency').waitFor();
    assert.equal((await params(page)).item, undefined, 'a new cell shows no item yet');
    await page.goBack();
    await results.cellHeading('rate-explain · coherence').waitFor();
    await page.goForward();
    await results.cellHeading('score-only · fluency').waitFor();
    // A reload shows the same view (the saved workspace, the address's view).
    await page.reload();
    await results.cellHeading('score-only · fluency').waitFor({ timeout: 60_000 });

    // The copied link, opened elsewhere, shows the view it was copied from.
    await withApp({ url: null, problems: 'allowed' }, async (other) => {
      await other.page.goto(link);
      await other.results.itemHeading(/^Item row3 /).waitFor({ timeout: 60_000 });
      assert.equal(await other.results.statistic.inputValue(), 'spearman');
    });
  });
});

test('a link with a wrong part says which, and shows the rest', { timeout: 60_000 }, async () => {
  await withApp({ url: null, problems: 'allowed' }, async (app) => {
    const { page, screens, results } = app;
    await page.goto(`${CONCORD_URL}?screen=graphs&stat=mean&method=nothing&attribute=here`);
    await screens.linkProblem.waitFor({ timeout: 30_000 });
    assert.match(await screens.linkProblem.innerText(), /the link names the screen “graphs”; the screens are data, judge, run, results, rate, meta, coeval, class; the link asks for the statistic “mean”/);
    await screens.selectedTab('Data').waitFor();
    await page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=results&method=nothing&attribute=here`);
    await results.cellMissing('The link selects the cell nothing · here, which this table does not have.').waitFor({ timeout: 60_000 });
    await page.goto(`${CONCORD_URL}?screen=rate`);
    await screens.selectedTab('Rate it yourself').waitFor({ timeout: 30_000 });
    // A bundle link to another screen with a cell in it: the bundle opens on Results, the link
    // moves on at once; nothing of the Results screen left behind may break (split build).
    const other = await app.newPage();
    await other.page.goto(`${CONCORD_URL}?bundle=demo/example-bundle.json&screen=data&method=rate-explain&attribute=coherence&item=row3`);
    await other.screens.selectedTab('Data').waitFor({ timeout: 60_000 });
    await other.data.named('concord-example.csv').waitFor();
    await other.page.waitForTimeout(1500);
    await other.screens.tab('Results').click();
    await other.results.table.waitFor({ timeout: 30_000 });
    assert.deepEqual(other.seen.problems, []);
  });
});
