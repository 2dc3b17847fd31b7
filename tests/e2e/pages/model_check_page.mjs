// Page object for the Run screen's "Check this model" panel and the Judge screen's flags of
// the methods the checked model cannot serve.

export class ModelCheckPage {
  constructor(page) {
    this.page = page;
    this.panel = page.getByTestId('model-check');
    this.connection = page.getByTestId('connection-result');
    /** The Judge screen's flags of the methods the checked model cannot serve. */
    this.flags = page.getByTestId('check-flags');
  }

  /** Presses "Check this model" and waits until the check is over (panel or a failure shown). */
  async check(timeout = 60_000) {
    const before = await this.panel.count() ? await this.panel.innerText() : '';
    await this.page.getByRole('button', { name: 'Check this model' }).click();
    await this.page.waitForFunction((prev) => {
      const busy = document.querySelector('[data-testid="check-progress"]');
      const panel = document.querySelector('[data-testid="model-check"]');
      const failed = document.querySelector('[data-testid="connection-result"].error-box');
      return !busy && (failed || (panel && panel.innerText !== prev));
    }, before, { timeout });
  }

  /** Every capability row: { probe, verdict, text }. */
  async rows() {
    return this.page.locator('[data-testid="check-row"]').evaluateAll((rows) => rows.map((r) => ({
      probe: r.dataset.probe, verdict: r.dataset.verdict, text: r.innerText,
    })));
  }

  /** The row of one probe (`plain`, `logprobs`, `samples`, `schema`, `reasoning`). */
  async row(probe) {
    return (await this.rows()).find((r) => r.probe === probe);
  }

  /** What the Judge screen flags: [{ method, text }]. */
  async judgeFlags() {
    return this.page.locator('[data-testid="check-flag"]').evaluateAll((items) => items.map((li) => ({
      method: li.querySelector('strong')?.innerText ?? '', text: li.innerText,
    })));
  }
}
