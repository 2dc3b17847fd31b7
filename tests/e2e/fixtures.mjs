// Data the end-to-end tests share.
import { existsSync } from 'node:fs';

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

/**
 * Why a test on the released data must skip (`path` is absent), or `false` when it is there.
 * With CONCORD_REQUIRE_SHARED set (CI, where ../shared is always beside the checkout) an
 * absent path is an error instead: a skipped test would check nothing without saying so.
 */
export function missingShared(path) {
  if (existsSync(path)) return false;
  if (process.env.CONCORD_REQUIRE_SHARED) throw new Error(`${path} is absent and CONCORD_REQUIRE_SHARED is set`);
  return `absent: ${path}`;
}

/** A CoEval study in `combine_data.json`'s shape: one task (`tiny`), two instances (turbo,
 * human), two criteria, and the LLM's evaluation of each (conclusion, score, evidence quotes:
 * scores 4, 3 under "1. Fluent." and 5, 2 under "2. On topic."). */
export const COEVAL_TINY = JSON.stringify({
  tiny: {
    task_info: ['The task is to write a story.'],
    source_name: ['story requirement'], target_name: ['story'],
    source: ['A cat.', 'A dog.'], target: ['The cat slept.', 'The dog ran home.'],
    model_name: ['turbo', 'human'],
    criteria: ['1. Fluent.', '2. On topic.'],
    criteria_kv: {
      '1. Fluent.': [
        '1. It is fluent.\n\n2. Score: 4\n\n3. Evidence: "The cat slept."',
        '1. Fluent enough.\n\n2. Score: 3\n\n3. Evidence: "The dog" and "ran home"',
      ],
      '2. On topic.': [
        '1. On topic.\n\n2. Score: 5\n\n3. Evidence: "cat"',
        '1. Yes.\n\n2. Score: 2\n\n3. Evidence: none',
      ],
    },
  },
});

/** `gradedCsv()` as the file `graded.csv`, for `withApp({ data })`. */
export const GRADED = { name: 'graded.csv', text: gradedCsv() };
