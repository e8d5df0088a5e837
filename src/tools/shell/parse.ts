/**
 * Finds every command a bash script would run, for the permission gate. The
 * script is parsed (never run); every simple command anywhere in the tree is
 * collected: pipelines, lists, subshells, blocks, loops, function bodies, command
 * and process substitutions, arithmetic, redirections and here-documents. Words
 * are resolved to the strings bash would pass (quotes and escapes removed), and
 * wrappers (env, xargs, timeout, sudo, find -exec, …) and scripts handed to a shell
 * (`bash -c`, `eval`, `su -c`, here-strings fed to `sh`) are followed recursively.
 * Whatever cannot be known without running it is marked dynamic, which the gate denies.
 */
import type { ShellAccess, ShellCommand } from "../../permission/types.ts";
import {
  type BinaryCmd,
  type CallExpr,
  isStdinRedirect,
  type Node,
  OP,
  parseBash,
  type Redirect,
  ShellSyntaxError,
  type Stmt,
  walk,
} from "./sh_syntax.ts";
import { type ResolvedWord, resolveWord, SourceText } from "./words.ts";
import { peelWrapper } from "./wrappers.ts";
import { commandName } from "../../permission/shell_ban_check.ts";

/** Scripts inside scripts (`bash -c "bash -c '…'"`) are followed this deep. */
const MAX_DEPTH = 8;

/** Where a command's standard input comes from, as far as the script says. */
type Stdin =
  | { kind: "terminal" | "pipe" | "file" | "unknown" }
  | { kind: "text"; text: string };

export function parseShell(script: string): ShellAccess {
  const commands: ShellCommand[] = [];
  try {
    collect(script, 0, commands);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return { script, commands, parse_error: err.message };
    throw err;
  }
  return { script, commands };
}

function collect(script: string, depth: number, out: ShellCommand[]): void {
  const file = parseBash(script);
  const src = new SourceText(script);
  // Nodes come back as fresh JS wrappers on every visit, so they are keyed by their span.
  const piped = new Set<string>();
  const stmtOf = new Map<string, Stmt>();
  // Walk is pre-order: a pipe and a statement are seen before the commands below them.
  walk(file, (node, type) => {
    if (type === "BinaryCmd") {
      const bin = node as BinaryCmd;
      if (bin.Op === OP.pipe || bin.Op === OP.pipeAll) {
        walk(bin.Y, (n, t) => {
          if (t === "CallExpr") piped.add(span(n));
        });
      }
    } else if (type === "Stmt") {
      const stmt = node as Stmt;
      if (stmt.Cmd) stmtOf.set(span(stmt.Cmd), stmt);
    } else if (type === "CallExpr") {
      const call = node as CallExpr;
      if (call.Args.length === 0) return; // only assignments; their values are walked anyway
      const words = call.Args.map((w) => resolveWord(w, src));
      const stdin = stdinOf(stmtOf.get(span(call)), piped.has(span(call)), src);
      follow(words, src.of(call), { stdin, depth, placeholder: undefined }, out);
    } else if (type === "Redirect") {
      checkRedirect(node as Redirect, src, out);
    }
  });
}

function span(node: Node): string {
  return `${node.Pos().Offset()}:${node.End().Offset()}`;
}

interface Where {
  stdin: Stdin;
  depth: number;
  /** Text that find/xargs replace at run time: a command name containing it is dynamic. */
  placeholder: string | undefined;
}

function follow(words: ResolvedWord[], text: string, where: Where, out: ShellCommand[]): void {
  const name = words[0];
  const placeholder = where.placeholder;
  // `$HOME/bin/tool`: the directory is unknown, the program's name is not.
  const known = name.static ? name.value : name.basename;
  if (known === undefined || name.expands || (placeholder && name.value.includes(placeholder))) {
    out.push(command(words, text, true));
    return;
  }
  const peeled = peelWrapper(commandName(known), words);
  if (!peeled) {
    out.push(command(words, text, false));
    return;
  }
  if (peeled.keepSelf) out.push(command(words, text, false));
  const inner: Where = { ...where, placeholder: peeled.placeholder ?? placeholder };
  for (const cmd of peeled.commands) follow(cmd, text, inner, out);
  for (const s of peeled.scripts) {
    const replaced = inner.placeholder !== undefined && s.value.includes(inner.placeholder);
    if (!s.static || replaced) out.push(command(words, text, true));
    else nested(s.value, words, text, where.depth, out);
  }
  if (peeled.readsStdin) {
    const stdin = where.stdin;
    if (stdin.kind === "text") nested(stdin.text, words, text, where.depth, out);
    else if (stdin.kind === "pipe" || stdin.kind === "unknown") {
      out.push(command(words, text, true));
    }
  }
}

/** Parses a script found inside the script; too deep is treated as unknowable. */
function nested(
  script: string,
  words: ResolvedWord[],
  text: string,
  depth: number,
  out: ShellCommand[],
) {
  if (depth + 1 > MAX_DEPTH) {
    out.push(command(words, text, true));
    return;
  }
  try {
    collect(script, depth + 1, out);
  } catch (err) {
    if (err instanceof ShellSyntaxError) {
      throw new ShellSyntaxError(`in the script run by \`${text}\`: ${err.message}`);
    }
    throw err;
  }
}

function stdinOf(stmt: Stmt | undefined, piped: boolean, src: SourceText): Stdin {
  let stdin: Stdin = { kind: piped ? "pipe" : "terminal" };
  for (const r of stmt?.Redirs ?? []) {
    if (!isStdinRedirect(r)) continue;
    if (r.Op === OP.hdoc || r.Op === OP.dashHdoc || r.Op === OP.wordHdoc) {
      const body = r.Op === OP.wordHdoc ? r.Word : r.Hdoc;
      const w = body ? resolveWord(body, src) : undefined;
      stdin = w?.static
        ? { kind: "text", text: w.value }
        : w
        ? { kind: "unknown" }
        : { kind: "text", text: "" };
    } else {
      stdin = { kind: r.Op === OP.dplIn ? "unknown" : "file" };
    }
  }
  return stdin;
}

/** Bash itself opens network connections for `/dev/tcp/host/port` and `/dev/udp/…`. */
function checkRedirect(r: Redirect, src: SourceText, out: ShellCommand[]): void {
  if (!r.Word || r.Op === OP.hdoc || r.Op === OP.dashHdoc || r.Op === OP.wordHdoc) return;
  const target = resolveWord(r.Word, src);
  if (target.static && /^\/dev\/(tcp|udp)\//.test(target.value)) {
    out.push({ argv: [target.value], dynamic: false, text: src.of(r) });
  } else if (!target.static && /^["']?\/dev\//.test(target.text)) {
    out.push({ argv: [target.text], dynamic: true, text: src.of(r) });
  }
}

function command(words: ResolvedWord[], text: string, dynamic: boolean): ShellCommand {
  const argv = words.map((w) => w.value);
  // A name whose directory is dynamic is reported by what is known: `…/tool`.
  if (!dynamic && !words[0].static && words[0].basename) argv[0] = `…/${words[0].basename}`;
  const cmd: ShellCommand = { argv, dynamic, text };
  const dyn = words.flatMap((w, i) => (w.static ? [] : [i]));
  if (dyn.length > 0) cmd.dynamic_args = dyn;
  return cmd;
}
