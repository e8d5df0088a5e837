/**
 * How many times a benchmark repeats its measurement: `--runs N`, which
 * `deno task bench -- --runs N` hands to every benchmark, or the bare `N` some took
 * before. Anything else on the command line, or an N that is not a positive integer,
 * ends the benchmark with exit 2 and says why.
 */
import { parseArgs } from "node:util";

export function runsFrom(args: string[], name: string, fallback: number): number {
  let text: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { runs: { type: "string" } },
      allowPositionals: true,
    });
    if (positionals.length > 1) throw new Error(`one count, not ${positionals.join(" ")}`);
    text = values.runs ?? positionals[0];
  } catch (err) {
    console.error(`${name}: ${(err as Error).message} (it takes --runs N)`);
    Deno.exit(2);
  }
  const runs = text === undefined ? fallback : Number(text);
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`${name}: --runs must be a positive integer, not ${text}`);
    Deno.exit(2);
  }
  return runs;
}
