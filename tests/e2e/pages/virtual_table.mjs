// Page object for a virtualized table (src/components/virtual_table.rs): a scroll region
// `{testid}-scroll`, the table `{testid}` with aria-rowcount, spacer rows, and a row count.
export class VirtualTable {
  constructor(page, testid) {
    this.page = page;
    this.testid = testid;
    this.scroll = page.getByTestId(`${testid}-scroll`);
    this.table = page.getByTestId(testid);
    this.rows = page.locator(`[data-testid="${testid}"] tbody tr:not(.spacer)`);
    this.count = page.getByTestId(`${testid}-count`);
  }

  /** Data rows the table says it has (aria-rowcount counts the header row). */
  async rowCount() {
    return Number(await this.table.getAttribute('aria-rowcount')) - 1;
  }

  /** `tr` elements in the DOM (data rows and spacers). */
  async domRows() {
    return this.table.locator('tr').count();
  }

  /** The rendered rows as { index (0-based), cells: [text] }. */
  async rendered() {
    return this.rows.evaluateAll((rows) => rows.map((r) => ({
      index: Number(r.getAttribute('aria-rowindex')) - 2,
      cells: [...r.querySelectorAll('td')].map((c) => c.textContent.trim()),
    })));
  }

  /** Rendered rows whose box lies inside the scroll region's box, as 0-based indices. */
  async visibleIndices() {
    return this.scroll.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const head = el.querySelector('thead').getBoundingClientRect().height;
      return [...el.querySelectorAll('tbody tr:not(.spacer)')]
        .filter((r) => { const b = r.getBoundingClientRect(); return b.top >= box.top + head - 1 && b.bottom <= box.bottom + 1; })
        .map((r) => Number(r.getAttribute('aria-rowindex')) - 2);
    });
  }

  /** Scrolls with the mouse wheel, `step` pixels at a time, until the bottom; returns the steps. */
  async wheelToEnd(step = 3000) {
    await this.scroll.hover();
    let steps = 0;
    for (;;) {
      const atEnd = await this.scroll.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 1);
      if (atEnd || steps > 1000) return steps;
      await this.page.mouse.wheel(0, step);
      await this.page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
      steps += 1;
    }
  }

  /** Waits until data row `index` (0-based) is rendered; with `first`, until it is the first rendered row. */
  async waitRendered(index, { first = false } = {}) {
    await this.page.waitForFunction(([id, aria, f]) => {
      const rows = [...document.querySelectorAll(`[data-testid="${id}"] tbody tr:not(.spacer)`)];
      return f ? rows[0]?.getAttribute('aria-rowindex') === aria : rows.some((r) => r.getAttribute('aria-rowindex') === aria);
    }, [this.testid, String(index + 2), first]);
  }

  /** Focuses the region and presses `key` (Home, End, PageDown, ArrowDown…). */
  async press(key) {
    await this.scroll.focus();
    await this.page.keyboard.press(key);
    await this.page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  }
}
