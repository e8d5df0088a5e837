/**
 * The files a script's redirections open and the folders `cd` takes it to, for the
 * shell policy: `< .env` reads a file, `> /elsewhere/f` writes one, and both must
 * pass the same path rules as the file tools. A target the script does not spell
 * out (`> $f`, `> ~/x`, `> *.log`) is reported as not static, and a `cd` whose
 * target is only known at run time makes every relative path unknowable.
 */
import * as path from "node:path";
import type { ShellAccess, ShellRedirect } from "../../permission/types.ts";
import { nodeType, OP, type Redirect } from "./sh_syntax.ts";
import { type ResolvedWord, resolveWord, type SourceText } from "./words.ts";
import { scanOptions } from "./wrapper_args.ts";
import { resolvePath } from "../fs/paths.ts";

// Read at the first redirect, not when the module loads: a command without one never
// needs the parser's operator codes.
const isWrite = (op: number) =>
  [OP.rdrOut, OP.appOut, OP.clbOut, OP.rdrAll, OP.appAll, OP.dplOut].includes(op);
const isHeredoc = (op: number) => [OP.hdoc, OP.dashHdoc, OP.wordHdoc].includes(op);
/** `>&2`, `<&0`, `>&-`, `3>&1-`: a descriptor, not a file. */
const DESCRIPTOR = /^(\d+-?|-)$/;

/** The file a redirection opens, or undefined for here-documents and descriptor copies. */
export function redirectOf(r: Redirect, src: SourceText): ShellRedirect | undefined {
  if (!r.Word || isHeredoc(r.Op)) return undefined;
  // `done < <(find …)`: a pipe to a command the policy checks on its own, not a file.
  if (r.Word.Parts.length === 1 && nodeType(r.Word.Parts[0]) === "ProcSubst") return undefined;
  const target = resolveWord(r.Word, src);
  const dup = r.Op === OP.dplOut || r.Op === OP.dplIn;
  if (dup && target.static && DESCRIPTOR.test(target.value)) return undefined;
  const mode = r.Op === OP.rdrInOut ? "readwrite" : isWrite(r.Op) ? "write" : "read";
  // bash expands `~` and globs in a redirection's word: neither is what is written.
  const known = target.static && !target.expands && !target.tilde;
  return { mode, target: known ? target.value : target.text, static: known, text: src.of(r) };
}

/** Records where a `cd`, `pushd` or `popd` goes (`words` already peeled of wrappers). */
export function noteCd(name: string, words: ResolvedWord[], cd: ShellAccess["cd"]): void {
  if (name === "popd") {
    cd.unknown = true;
    return;
  }
  const scan = scanOptions(words, 1, {});
  const target = words[scan.next];
  if (target === undefined) {
    if (name === "cd") cd.targets.push("~"); // `cd` alone goes home
    else cd.unknown = true; // `pushd` alone swaps with the stack
    return;
  }
  if (!target.static || target.expands || target.value === "-" || /^[+-]\d/.test(target.value)) {
    cd.unknown = true;
  } else if (target.tilde) {
    cd.targets.push(target.value);
    cd.unknown = true;
  } else {
    cd.targets.push(target.value);
  }
}

/** At most this many candidate folders; beyond it the script's folder counts as unknown. */
const MAX_CWDS = 64;

/**
 * The folders a script may be in when one of its commands runs: `cwd` (the call's)
 * and each static `cd` target resolved from every folder before it. Home-relative
 * targets (`~`) are left to the caller (`unknown` is set for them).
 */
export function candidateCwds(cwd: string, cd: ShellAccess["cd"]): string[] {
  const out = new Set([path.resolve(cwd)]);
  for (const target of cd.targets) {
    if (target.startsWith("~")) continue;
    const from = path.isAbsolute(target) ? ["/"] : [...out];
    for (const base of from) out.add(path.resolve(base, target));
    if (out.size > MAX_CWDS) {
      cd.unknown = true;
      break;
    }
  }
  return [...out];
}

/** Devices and descriptors are named as written: resolving them would name a pipe or a tty. */
const LEXICAL = /^\/(dev|proc\/self\/fd)\//;

/**
 * The files the redirections open, for the gate: each static target from every
 * folder the script may be in, symlinks resolved like the file tools' paths. Targets
 * the script does not spell out are refused by the shell rules before paths count.
 */
export async function redirectPaths(
  access: ShellAccess,
): Promise<{ reads: string[]; writes: string[] }> {
  const reads = new Set<string>();
  const writes = new Set<string>();
  const cwds = access.cwds ?? [];
  for (const r of access.redirects) {
    if (!r.static) continue;
    const from = path.isAbsolute(r.target) ? ["/"] : cwds;
    for (const base of from) {
      const lexical = path.resolve(base, r.target);
      const real = LEXICAL.test(lexical) ? lexical : (await resolvePath(lexical, base)).real;
      if (r.mode !== "write") reads.add(real);
      if (r.mode !== "read") writes.add(real);
    }
  }
  return { reads: [...reads], writes: [...writes] };
}
