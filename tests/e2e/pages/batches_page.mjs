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
