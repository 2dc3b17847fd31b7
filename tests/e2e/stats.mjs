// The statistics the classroom tests recompute in JavaScript, to check the page's numbers
// against: Pearson r, Kendall τ-b, Krippendorff's interval α (every value present), and a
// comparison within 1e-9.
import assert from 'node:assert/strict';

export function pearson(x, y) {
  const mx = x.reduce((a, b) => a + b) / x.length;
  const my = y.reduce((a, b) => a + b) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  x.forEach((_, i) => { sxy += (x[i] - mx) * (y[i] - my); sxx += (x[i] - mx) ** 2; syy += (y[i] - my) ** 2; });
  return sxy / Math.sqrt(sxx * syy);
}

export function kendallB(x, y) {
  let c = 0, d = 0, tx = 0, ty = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const a = Math.sign(x[i] - x[j]), b = Math.sign(y[i] - y[j]);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  }
  return (c - d) / Math.sqrt((c + d + tx) * (c + d + ty));
}

/** Krippendorff's interval α of raters × items, every value present. */
export function alpha(matrix) {
  const units = matrix[0].map((_, i) => matrix.map((r) => r[i]));
  const all = units.flat();
  const n = all.length;
  let dO = 0;
  for (const u of units) {
    let s = 0;
    for (const a of u) for (const b of u) s += (a - b) ** 2;
    dO += s / (u.length - 1);
  }
  dO /= n;
  let dE = 0;
  for (const a of all) for (const b of all) dE += (a - b) ** 2;
  dE /= n * (n - 1);
  return 1 - dO / dE;
}

export const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} against ${b}`);
