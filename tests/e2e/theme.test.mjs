// The dark theme: it follows the system's preference until the user picks one, the choice is
// kept on this device, the page's colours follow it (text stays readable on its background),
// and plots stay light cards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONCORD_URL } from './browser.mjs';
import { withApp } from './harness.mjs';

/** Relative luminance of a CSS `rgb(…)` colour (WCAG). */
function luminance(css) {
  const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}


test('the theme follows the system until chosen, is kept on this device, and stays readable', { timeout: 90_000 }, async () => {
  await withApp({ url: null }, async ({ page, data, results, screens }) => {
    const colours = () => screens.colours();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.goto(CONCORD_URL);
    await data.datasetName.waitFor();
    let c = await colours();
    assert.equal(c.theme, 'dark', 'Auto follows the system');
    assert.ok(luminance(c.bg) < 0.05, `a dark background: ${c.bg}`);
    assert.ok(contrast(c.fg, c.bg) >= 7, `text on the page: ${c.fg} on ${c.bg}`);
    assert.ok(contrast(c.fg, c.panelBg) >= 7, `text on a panel: ${c.fg} on ${c.panelBg}`);
    assert.ok(contrast(c.muted, c.panelBg) >= 4.5, `muted text on a panel: ${c.muted} on ${c.panelBg}`);

    // Light, chosen: kept across a reload although the system is dark.
    await screens.theme.selectOption('light');
    c = await colours();
    assert.equal(c.theme, 'light');
    assert.ok(luminance(c.bg) > 0.8, `a light background: ${c.bg}`);
    await page.reload();
    await data.datasetName.waitFor();
    assert.equal((await colours()).theme, 'light');
    assert.equal(await screens.theme.inputValue(), 'light');

    // Auto again: the system's dark, and a change of the system's preference is followed.
    await screens.theme.selectOption('auto');
    assert.equal((await colours()).theme, 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await screens.waitTheme('light');

    // Dark, chosen: the demo's plots are light cards on the dark page.
    await screens.theme.selectOption('dark');
    await data.openDemoRun();
    await results.firstCellButton.click();
    const plot = results.firstPlot;
    await plot.waitFor();
    const plotBg = await plot.evaluate((el) => getComputedStyle(el).backgroundColor);
    assert.ok(luminance(plotBg) > 0.9, `plots keep their light background: ${plotBg}`);
  });
});

test('no screen scrolls sideways at 375 px, with every folded panel open and the demo loaded', { timeout: 90_000 }, async () => {
  await withApp({ url: null, viewport: { width: 375, height: 800 }, problems: 'allowed' }, async ({ page, data, results, screens }) => {
    await page.goto(CONCORD_URL);
    await data.openDemoRun();
    await results.firstCellButton.waitFor();
    const wide = {};
    for (const tab of ['Data', 'Judge', 'Run', 'Results', 'Rate it yourself', 'Pairwise & meta-evaluation', 'CoEval']) {
      await screens.tab(tab).click();
      await page.waitForTimeout(300);
      await screens.unfoldAll();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > 375) wide[tab] = width;
    }
    assert.deepEqual(wide, {}, 'screens wider than the phone');
  });
});
