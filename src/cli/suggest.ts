/**
 * "Did you mean …?" for what a user typed wrong on the command line: a command, a
 * subcommand or a flag, from the names the command table knows.
 */
import type { ParseArgsOptionsConfig } from "node:util";
import { closest } from "../util/similar.ts";

/** "did you mean 'mopac run'?" or "" when nothing is close. */
export function didYouMean(given: string, candidates: readonly string[], show = (s: string) => s) {
  const near = closest(given, candidates);
  return near.length > 0 ? `did you mean ${near.map((n) => `'${show(n)}'`).join(" or ")}?` : "";
}

/** For parseArgs' "Unknown option '--modle'": the flags of `options` it may have meant. */
export function flagSuggestion(message: string, options: ParseArgsOptionsConfig): string {
  const m = /Unknown option '(-{1,2})([^'=]+)/.exec(message);
  if (!m) return "";
  const [, dashes, name] = m;
  if (dashes === "-") {
    // "-M": a short flag in the wrong case, or a long one written with one dash.
    const short = Object.entries(options).find(([, o]) =>
      o.short?.toLowerCase() === name.toLowerCase()
    );
    if (short) return `did you mean '-${short[1].short}' (--${short[0]})?`;
  }
  return didYouMean(name, Object.keys(options), (n) => `--${n}`);
}
