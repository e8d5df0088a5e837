/**
 * Near-miss suggestions for names the model got slightly wrong: a file name with a
 * typo, an argument named the way another harness names it (`timeout_ms`, `path`).
 */

/** Levenshtein distance, capped: anything further apart than `cap` returns cap + 1. */
export function editDistance(a: string, b: string, cap = 2): number {
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return Math.min(prev[b.length], cap + 1);
}

/**
 * The candidates `name` most likely meant: those within two edits, or that contain
 * it or are contained in it (at least 3 characters shared), ignoring case, `-` and `_`.
 */
export function nearMisses(name: string, candidates: readonly string[]): string[] {
  const flat = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const want = flat(name);
  return candidates.filter((c) => {
    const have = flat(c);
    if (editDistance(want, have) <= 2) return true;
    const [short, long] = want.length < have.length ? [want, have] : [have, want];
    return short.length >= 3 && long.includes(short);
  });
}

/**
 * The best of `nearMisses`: those at the smallest distance (ties kept, at most `max`),
 * so "yy" suggests "y" and not also "x".
 */
export function closest(name: string, candidates: readonly string[], max = 3): string[] {
  const flat = (s: string) => s.toLowerCase().replace(/[-_]/g, "");
  const scored = nearMisses(name, candidates).map((c) => ({
    c,
    // A containing match that is no near edit ranks after any near edit.
    d: editDistance(flat(name), flat(c), 2),
  }));
  const best = Math.min(...scored.map((s) => s.d));
  return scored.filter((s) => s.d === best).slice(0, max).map((s) => s.c);
}
