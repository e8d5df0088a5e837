/**
 * The vocabulary the wrapper table (wrappers.ts) is written in: what a wrapper
 * runs (`Peeled`), a scan over its options that knows which ones take a value,
 * and the shapes most wrappers share (run the operands as a command; run an
 * option's value as a script).
 */
import type { ResolvedWord } from "./words.ts";

export interface Peeled {
  /** Report the wrapper itself as a command too (find, sudo, `bash script.sh`, …). */
  keepSelf: boolean;
  /** Commands the wrapper runs, as words (peeled again by the caller). */
  commands: ResolvedWord[][];
  /** Strings the wrapper runs as shell scripts (`bash -c S`, `eval`, `su -c S`, `watch S`). */
  scripts: ResolvedWord[];
  /** The wrapper reads its script from standard input (`bash` with no -c and no file). */
  readsStdin?: boolean;
  /** Text replaced at run time inside inner commands (`{}` of find and xargs -I). */
  placeholder?: string;
  /** `NAME=value` words the wrapper puts in the inner commands' environment (`env A=1 cmd`). */
  assigns?: ResolvedWord[];
  /** The inner commands get more arguments at run time (xargs, parallel). */
  appends?: boolean;
}

export interface OptionSpec {
  /** Short options that take a value (`-u NAME` or `-uNAME`). */
  short?: string;
  /** Long options that take a value when written without `=` (`--user NAME`). */
  long?: string[];
  /** `+o opt` style options count too (shells). */
  plus?: boolean;
}

export interface Scan {
  /** Index of the first operand. */
  next: number;
  /** Options seen, each as `-x` or `--long`, with its value when it took one. */
  seen: Map<string, ResolvedWord | undefined>;
}

/** A word written as `value` with no quoting or expansion. */
export const literal = (value: string): ResolvedWord => ({
  value,
  static: true,
  expands: false,
  text: value,
});

/** Skips the options at the front of `args` (starting at `from`). */
export function scanOptions(args: ResolvedWord[], from: number, spec: OptionSpec): Scan {
  const seen = new Map<string, ResolvedWord | undefined>();
  let i = from;
  while (i < args.length) {
    const w = args[i];
    const v = w.value;
    if (!w.static || v === "-" || !(v.startsWith("-") || (spec.plus && v.startsWith("+")))) break;
    i++;
    if (v === "--") break;
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq < 0 ? v : v.slice(0, eq);
      if (eq >= 0) seen.set(name, literal(v.slice(eq + 1)));
      else if (spec.long?.includes(name)) seen.set(name, args[i++]);
      else seen.set(name, undefined);
      continue;
    }
    const sign = v[0];
    for (let k = 1; k < v.length; k++) {
      const flag = sign + v[k];
      if (spec.short?.includes(v[k])) {
        seen.set(flag, k + 1 < v.length ? literal(v.slice(k + 1)) : args[i++]);
        break;
      }
      seen.set(flag, undefined);
    }
  }
  return { next: i, seen };
}

export const has = (scan: Scan, ...names: string[]) => names.some((n) => scan.seen.has(n));

/** Words joined by spaces, as a shell would join them into one script. */
export function joinWords(words: ResolvedWord[]): ResolvedWord {
  return {
    value: words.map((w) => w.value).join(" "),
    static: words.every((w) => w.static),
    expands: false,
    text: words.map((w) => w.text).join(" "),
  };
}

export const runsCommands = (commands: ResolvedWord[][], keepSelf = false): Peeled => ({
  keepSelf,
  commands: commands.filter((c) => c.length > 0),
  scripts: [],
});
export const runsScripts = (scripts: ResolvedWord[], keepSelf = false): Peeled => ({
  keepSelf,
  commands: [],
  scripts,
});

/** Runs the operands as a command after skipping options (and `skip` leading operands). */
export function passThrough(spec: OptionSpec, skip = 0, keepSelf = false) {
  return (args: ResolvedWord[]): Peeled => {
    const scan = scanOptions(args, 1, spec);
    return runsCommands([args.slice(scan.next + skip)], keepSelf);
  };
}

/** Options whose value is a script: `su -c S`, `script -c S`. */
export function scriptOption(spec: OptionSpec, names: string[], keepSelf: boolean) {
  return (args: ResolvedWord[]): Peeled => {
    const scan = scanOptions(args, 1, spec);
    for (const n of names) {
      if (scan.seen.has(n)) return runsScripts([scan.seen.get(n) ?? literal("")], keepSelf);
    }
    return runsCommands([], true);
  };
}
