// Downloads the pages start: a table's export buttons (named "… as CSV", carrying the table's
// id) and what a click on any download button saves.
import { readFileSync } from 'node:fs';

/** The button that exports table `id` of `scope` (a page or a locator) in `format` (CSV, Markdown, LaTeX, JSON). */
export function tableExportButton(scope, id, format) {
  return scope.locator(`button[aria-label$=" as ${format}"][data-table="${id}"]`);
}

/** Clicks `button` and returns the download it starts: { name, text, download }. */
export async function downloadOf(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8'), download };
}
