// Data the end-to-end tests share.

/** 30 graded outputs (10 documents × 3 systems): the grade is planted in the text for the mock to echo. */
export function gradedCsv() {
  const rows = ['doc,sys,source,output,coherence,fluency'];
  for (let i = 0; i < 30; i++) {
    const q = 1 + ((i * 7) % 5);
    const planted = Math.min(5, q + (i % 4 === 0 ? 1 : 0));
    const f = Math.max(1, Math.min(5, q + ((i % 3) - 1)));
    rows.push(`d${Math.floor(i / 3)},s${i % 3},"Article ${Math.floor(i / 3)} text.","Summary ${i}. RATING=${planted}",${q},${f}`);
  }
  return rows.join('\n') + '\n';
}
