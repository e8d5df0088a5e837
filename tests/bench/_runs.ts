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
  return text === undefined ? fallback : positiveInt(name, "--runs", text);
}

/** `text` as a positive integer, or exit 2 saying which option of `name` it was. */
export function positiveInt(name: string, option: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`${name}: ${option} must be a positive integer, not ${text}`);
    Deno.exit(2);
  }
  return n;
}
