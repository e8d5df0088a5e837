/**
 * `bash.allow` and `bash.deny` patterns. A pattern is words: `*` and `?` are globs
 * inside a word, a trailing `*` word (or `:*`) also matches no further words, and
 * `*` alone matches every command. Leading `NAME=glob` words are assignments the
 * pattern allows (`"PATH=* make"`; `"PATH=*"` alone allows the assignment anywhere).
 *
 * Allow patterns are read literally, as a prefix of the command's words: "npm test"
 * allows `npm test --watch` and nothing that merely resembles it (`npm --prefix x
 * test` must be allowed on its own), which errs towards refusing.
 *
 * Deny patterns are read for what the command means (command_shapes.ts), so a
 * deny is not undone by reordering options: the program by basename, the pattern's
 * first word against the subcommand with global options skipped (`git -C . push`),
 * its other words in order among the command's positional words, and each of its
 * options among the command's options in any spelling (`rm -rf` denies `rm -fr`,
 * `rm -r -f`, `rm --recursive --force`).
 */
import { commandName } from "./command_name.ts";
import { patternOptions, shapeOf } from "./command_shapes.ts";
import type { ShellAssignment } from "./types.ts";

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export interface Pattern {
  /** `NAME=glob` words the pattern allows. */
  assigns: string[];
  /** Command words; empty for a pattern that only allows assignments. */
  words: string[];
}

export function parsePattern(pattern: string): Pattern {
  const tokens = pattern.trim().replace(/:\*$/, "").split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < tokens.length && ASSIGNMENT.test(tokens[i])) i++;
  const words = tokens.slice(i);
  while (words.length > 1 && words[words.length - 1] === "*") words.pop();
  return { assigns: tokens.slice(0, i), words };
}

/**
 * An allow pattern's words against a command: a prefix of its words, globs inside
 * words. `byBasename` (deny lists) also lets the first word match the basename.
 */
export function matchesPattern(
  pattern: string,
  argv: readonly string[],
  byBasename: boolean,
): boolean {
  const tokens = parsePattern(pattern).words;
  if (tokens.length === 0) return false;
  if (tokens.length === 1 && tokens[0] === "*") return true;
  if (argv.length < tokens.length) return false;
  return tokens.every((t, i) => {
    const re = globToRegExp(t);
    if (re.test(argv[i])) return true;
    return i === 0 && byBasename && re.test(commandName(argv[0]));
  });
}

/** Whether an allow pattern lets this assignment through (for the command `argv`, if any). */
export function allowsAssignment(
  pattern: string,
  set: ShellAssignment,
  argv?: readonly string[],
): boolean {
  if (set.name === undefined) return false;
  const p = parsePattern(pattern);
  const written = `${set.name}=${set.value}`;
  if (!p.assigns.some((a) => globToRegExp(a).test(written))) return false;
  if (p.words.length === 0) return true;
  return argv !== undefined && matchesPattern(pattern, argv, false);
}

/** A deny pattern against a command, read for what the command means. */
export function deniesCommand(pattern: string, argv: readonly string[]): boolean {
  const words = parsePattern(pattern).words;
  if (words.length === 0) return false;
  if (words.length === 1 && words[0] === "*") return true;
  if (!globToRegExp(words[0]).test(commandName(argv[0] ?? ""))) {
    // A pattern naming a path (`/usr/bin/git push`) still matches as written.
    return matchesPattern(pattern, argv, true);
  }
  const shape = shapeOf(argv);
  const wanted = words.slice(1);
  const positional = wanted.filter((w) => !w.startsWith("-") || w === "-");
  const options = wanted.filter((w) => w.startsWith("-") && w !== "-" && w !== "*");
  for (const option of options) {
    const atoms = patternOptions(option, shape.name);
    if (!atoms.every((a) => [...shape.options].some((o) => globToRegExp(a).test(o)))) {
      return false;
    }
  }
  if (positional.length === 0) return true;
  if (shape.anySub) return true;
  const [sub, ...rest] = positional;
  const [first, ...others] = shape.positionals;
  if (first === undefined) return false;
  const canon = shapeOf([argv[0] ?? "", sub]).positionals[0] ?? sub;
  if (!globToRegExp(sub).test(first) && !globToRegExp(canon).test(first)) return false;
  // The remaining words in order, anywhere after the subcommand.
  let k = 0;
  for (const w of others) {
    if (k < rest.length && (rest[k] === "*" || globToRegExp(rest[k]).test(w))) k++;
  }
  return rest.slice(k).every((w) => w === "*");
}

const globCache = new Map<string, RegExp>();
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(
      /\?/g,
      "[\\s\\S]",
    );
    re = new RegExp(`^${body}$`);
    globCache.set(glob, re);
  }
  return re;
}
