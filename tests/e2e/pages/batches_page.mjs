// Page helpers for the Run screen's Batches panel.

/** Presses "Check now" until the newest batch's status matches `pattern`; returns the status. */
export async function checkUntil(page, pattern, timeout = 60_000) {
  const status = page.getByTestId('batch').first().getByTestId('batch-status');
  const deadline = Date.now() + timeout;
  for (;;) {
    const text = await status.innerText();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`batch status never matched ${pattern}: ${text}`);
    const button = page.getByRole('button', { name: 'Check now' });
    if (await button.isEnabled()) await button.click();
    await page.waitForTimeout(400);
  }
}

/** The Run screen's batch mode and its Batches panel. */
export class BatchesPanel {
  constructor(page) {
    this.page = page;
    this.newest = page.getByTestId('batch').first();
  }
  /** Interactive or batch runs. */
  async setMode(mode) { await this.page.getByTestId('run-mode').selectOption(mode); }
  async submit() { await this.page.getByRole('button', { name: 'Submit batch' }).click(); }
  async rerunFailed() { await this.page.getByRole('button', { name: 'Re-run failed as a new batch' }).click(); }
  /** Marks the base URL as a proxy for the provider. */
  async markProxy() { await this.page.getByTestId('proxy-choice').locator('input').check(); }
  /** What the newest batch's card says it cost. */
  get cost() { return this.newest.getByTestId('batch-cost'); }
  /** What the newest batch says the API refused. */
  get rejected() { return this.newest.getByTestId('batch-rejected'); }
  /** Presses "Check now" until the newest batch's status matches `pattern`; returns it. */
  checkUntil(pattern, timeout) { return checkUntil(this.page, pattern, timeout); }
  /** Every batch card's text, newest first. */
  async cards() { return this.page.getByTestId('batch').allInnerTexts(); }
  /** Presses "Check now" (when it can be) until some batch card's text matches `pattern`; returns every card's text. */
  async checkUntilAny(pattern, timeout = 90_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const texts = await this.cards();
      if (texts.some((t) => pattern.test(t))) return texts;
      if (Date.now() > deadline) throw new Error(`no batch ever matched ${pattern}:\n${texts.join('\n---\n')}`);
      const button = this.page.getByRole('button', { name: 'Check now' });
      if (await button.count() && await button.isEnabled()) await button.click();
      await this.page.waitForTimeout(400);
    }
  }
}
