/**
 * Which paths a recursive delete must never reach: the file system's root and the
 * folders right below it (`/`, `//`, `/./`, `/*`, `/usr`), a home folder and what
 * holds it (`~`, `$HOME`, `"$HOME"/`, `~/*`, `~/..`), and the folders above the one a
 * command runs in (`rm -rf ..`, `cd / && rm -rf .`). A word known only at run time
 * counts when it could be one of those: `"$X"`, `$X/` and `"$X/"*` are `/` when X is
 * empty.
 */
import * as path from "node:path";
import { readEnv } from "../util/env.ts";

/** Where the script may be when the command runs. */
export interface CwdCandidates {
  /** Absolute folders (the call's, and static `cd` targets). */
  dirs: readonly string[];
  /** A `cd` took the script home (`cd`, `cd ~`). */
  home: boolean;
  /** A `cd` target is known only at run time. */
  unknown: boolean;
}

/** One word of the command: its value (or source text when dynamic). */
export interface PathWord {
  value: string;
  dynamic: boolean;
}

const GLOB = /[*?[]/;
const HOMEISH = /\$\{?(HOME|PWD|OLDPWD|USERPROFILE)\b/;

/** Why deleting `word` recursively is banned, or undefined when it is not. */
export function protectedPath(word: PathWord, cwds: CwdCandidates): string | undefined {
  if (word.dynamic) return dynamicPath(word.value);
  const v = word.value;
  if (v.startsWith("~")) {
    // `~`, `~/`, `~/*`, `~user`, `~/..`: the home folder, everything in it, or above it.
    const rest = v.replace(/^~[^/]*/, "");
    const within = path.posix.normalize(`/h/${rest}`).replace(/(.)\/+$/, "$1");
    if (
      within === "/h" || within === "/" ||
      (path.posix.dirname(within) === "/h" && GLOB.test(within))
    ) {
      return `${v} (a home folder)`;
    }
    return undefined;
  }
  if (path.posix.isAbsolute(v)) return absolutePath(v, cwds.dirs);
  // Relative: from every folder the script may be in.
  for (const dir of cwds.dirs) {
    const why = absolutePath(path.posix.join(dir, v), cwds.dirs, v);
    if (why) return why;
  }
  const here = path.posix.normalize(v).replace(/\/+$/, "");
  const climbs = here === "." || here === ".." || here.startsWith("../") ||
    GLOB.test(here.split("/")[0]);
  if (cwds.home && climbs) return `${v} (in the home folder)`;
  if (cwds.unknown && climbs) return `${v} (after a cd whose target is known only at run time)`;
  return undefined;
}

/** An absolute path: the root, one level below it, a home folder, or above the command's folder. */
function absolutePath(p: string, cwds: readonly string[], written = p): string | undefined {
  const n = path.posix.normalize(p).replace(/(.)\/+$/, "$1");
  const parts = n.split("/").filter(Boolean);
  if (parts.length <= 1) return `${written} (the root or a top-level folder)`;
  if (parts.length === 2 && GLOB.test(parts[1])) return `${written} (every folder in /${parts[0]})`;
  const home = readEnv("HOME");
  if (home && home !== "/" && isAncestorOrSelf(n, path.posix.normalize(home))) {
    return `${written} (the home folder or above it)`;
  }
  for (const dir of cwds) {
    if (n !== dir && isAncestorOrSelf(n, dir)) return `${written} (a folder above ${dir})`;
  }
  return undefined;
}

function isAncestorOrSelf(p: string, of: string): boolean {
  return of === p || of.startsWith(p.endsWith("/") ? p : `${p}/`);
}

/**
 * A word with a part known only at run time: `$HOME`-like anywhere with nothing
 * deeper after it, or a leading expansion with nothing after it but `/`, `*` or `.`
 * (`"$X"`, `$X/`, `"$X/"*`: the root when X is empty).
 */
function dynamicPath(text: string): string | undefined {
  const skeleton = text
    .replace(/\$\{[^}]*\}|\$\([^)]*\)|`[^`]*`|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]/g, "\0")
    .replace(/["']/g, "");
  const dyn = skeleton.lastIndexOf("\0");
  const after = path.posix.normalize(`/${skeleton.slice(dyn + 1)}`);
  const shallow = after === "/" ||
    (after.split("/").filter(Boolean).length === 1 && GLOB.test(after));
  if (HOMEISH.test(text) && shallow) return `${text} (a home or working folder)`;
  if (skeleton.startsWith("\0") && shallow && !skeleton.slice(0, dyn).replace(/\0/g, "")) {
    return `${text} (known only at run time; / when it is empty)`;
  }
  return undefined;
}
