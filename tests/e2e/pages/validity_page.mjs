// Page object for the Results screen's "Can the judge replace the annotators?" panel.
export class ValidityPanel {
  constructor(page) {
    this.page = page;
    this.panel = page.getByTestId('validity-panel');
    this.computeButton = page.getByTestId('validity-compute');
  }

  /** The coverage–agreement figure. */
  get figure() { return this.page.getByTestId('validity-figure'); }
  /** The text of the figure around table `id` (its caption and notes). */
  async tableFigureText(id) { return this.panel.locator(`table[data-table="${id}"]`).locator('xpath=ancestor::figure').innerText(); }
  /** Saves the figure as SVG; returns the download. */
  async exportFigure() {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.figure.getByRole('button', { name: /SVG$/ }).click(),
    ]);
    return download;
  }
  /** Waits until the figure around the cell keyed `key` says `text` (a recomputation is shown). */
  async waitCellFigure(key, text, timeout = 60_000) {
    await this.page.waitForFunction(([k, t]) => document.querySelector(`[data-cell="${k}"]`)?.closest('figure')?.innerText.includes(t), [key, text], { timeout });
  }

  /** The annotators' kind: experts, skilled or crowd (ε 0.2, 0.15, 0.1). */
  async setAnnotators(kind) { await this.page.locator('#validity-epsilon-preset').selectOption(kind); }
  async setEpsilon(x) { await this.fill('#validity-epsilon', x); }
  async setAlpha(x) { await this.fill('#validity-alpha', x); }
  async setDelta(x) { await this.fill('#validity-delta', x); }
  async setHalfWidth(x) { await this.fill('#validity-half-width', x); }
  async setStrata(by) { await this.page.locator('#validity-strata').selectOption(by); }

  async fill(selector, value) {
    const input = this.page.locator(selector);
    await input.fill(String(value));
    await input.dispatchEvent('change');
  }

  /** Presses "Test the judges" (or "Compute again") and waits until every part is shown. */
  async compute(timeout = 120_000) {
    await this.computeButton.click();
    await this.waitComputed(timeout);
  }

  /** Waits until no computation is running and the panel's tables are shown. */
  async waitComputed(timeout = 120_000) {
    await this.panel.locator('table[data-table="validity-stability"]').waitFor({ timeout });
    await this.page.getByTestId('validity-progress').waitFor({ state: 'detached', timeout });
  }

  /** The ids of the tables shown, in order. */
  async tableIds() {
    return this.panel.locator('table[data-table]').evaluateAll((ts) => ts.map((t) => t.dataset.table));
  }

  /** A table's rows as { label, cells } (the cells' shown text). */
  async rows(id) {
    return this.panel.locator(`table[data-table="${id}"] tbody tr`).evaluateAll((rows) => rows.map((r) => ({
      label: r.querySelector('th').innerText.trim(),
      cells: [...r.querySelectorAll('td')].map((td) => td.innerText.trim()),
    })));
  }

  /** The full-precision value of the cell keyed `key`, or null. */
  async value(key) {
    const v = await this.panel.locator(`td[data-cell="${key}"]`).first().getAttribute('data-value');
    return v === null ? null : Number(v);
  }

  /** Saves table `id` in `label` (CSV, Markdown, LaTeX, JSON); returns the download. */
  async exportTable(id, label) {
    // Chromium refuses a download now and then when a page starts many in a few seconds.
    await this.page.waitForTimeout(500);
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.panel.locator(`button[aria-label$=" as ${label}"][data-table="${id}"]`).click(),
    ]);
    return download;
  }
}
