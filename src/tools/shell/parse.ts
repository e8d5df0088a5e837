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
import type { ShellAccess, ShellAssignment, ShellCommand } from "../../permission/types.ts";
import {
  type BinaryCmd,
  type CallExpr,
  type DeclClause,
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
import { commandName } from "../../permission/command_name.ts";
import {
  assignmentOf,
  builtinAssignments,
  declAssignments,
  expressionAssignment,
  letAssignments,
} from "./assignments.ts";
import { candidateCwds, noteCd, redirectOf } from "./redirects.ts";
import { builtinEvaluations, evaluationsOf } from "./evaluations.ts";
import { plainWords } from "./plain.ts";
import { loadShellParser, ParserNotLoadedError } from "./sh_syntax.ts";

export { loadShellParser, ParserNotLoadedError };

/** Scripts inside scripts (`bash -c "bash -c '…'"`) are followed this deep. */
const MAX_DEPTH = 8;

/** Where a command's standard input comes from, as far as the script says. */
type Stdin =
  | { kind: "terminal" | "pipe" | "file" | "unknown" }
  | { kind: "text"; text: string };

/** What was found so far, over the script and the scripts inside it. */
type Found = Omit<ShellAccess, "script" | "parse_error" | "cwds">;

/**
 * Parses `script` for the gate. With `cwd` (the folder the call runs in), the
 * result also lists the folders its commands may run in (`cwds`). A plain command
 * (plain.ts) is read without the full parser; any other script needs it loaded
 * (`loadShellParser`), else ParserNotLoadedError. `full`: every script through the
 * parser, plain ones too.
 */
export function parseShell(
  script: string,
  options: { cwd?: string; full?: boolean } = {},
): ShellAccess {
  const found: Found = {
    commands: [],
    assignments: [],
    redirects: [],
    evaluations: [],
    cd: { targets: [], unknown: false },
  };
  try {
    collect(script, 0, [], found, options.full === true);
  } catch (err) {
    if (err instanceof ShellSyntaxError) return { script, ...found, parse_error: err.message };
    throw err;
  }
  const access: ShellAccess = { script, ...found };
  if (options.cwd !== undefined) access.cwds = candidateCwds(options.cwd, found.cd);
  return access;
}

/**
 * parseShell, loading the full parser first when the script turns out to need it (a
 * script that is not plain, or a plain one whose inner script is not): a plain command
 * never waits for it.
 */
export async function parseShellLoading(
  script: string,
  options: { cwd?: string } = {},
): Promise<ShellAccess> {
  try {
    return parseShell(script, options);
  } catch (err) {
    if (!(err instanceof ParserNotLoadedError)) throw err;
    await loadShellParser();
    return parseShell(script, options);
  }
}

/**
 * Collects what one script does. `inherited`: the environment assignments in front of
 * the command that runs this script (`A=1 bash -c '…'`), which its commands get too.
 */
function collect(
  script: string,
  depth: number,
  inherited: ShellAssignment[],
  out: Found,
  full: boolean,
): void {
  const plain = full ? undefined : plainWords(script);
  if (plain) {
    // What the parser gives for it: one command of static words, stdin untouched.
    const words = plain.map((w) => ({ value: w, static: true, expands: false, text: w }));
    const where: Where = {
      stdin: { kind: "terminal" },
      depth,
      placeholder: undefined,
      assigns: [...inherited],
      appended: false,
      full,
    };
    follow(words, script.trim(), where, out);
    return;
  }
  const file = parseBash(script);
  const src = new SourceText(script);
  // Nodes come back as fresh JS wrappers on every visit, so they are keyed by their span.
  const piped = new Set<string>();
  const stmtOf = new Map<string, Stmt>();
  // Walk is pre-order: a pipe and a statement are seen before the commands below them.
  walk(file, (node, type) => {
    out.evaluations.push(...evaluationsOf(node, type, src));
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
      const own = call.Assigns.map((a) => assignmentOf(a, src));
      if (call.Args.length === 0) {
        // Only assignments (`A=1`); their values are walked anyway.
        out.assignments.push(...own);
        return;
      }
      const assigns = [...inherited, ...own];
      const words = call.Args.map((w) => resolveWord(w, src));
      const stdin = stdinOf(stmtOf.get(span(call)), piped.has(span(call)), src);
      const where: Where = { stdin, depth, placeholder: undefined, assigns, appended: false, full };
      follow(words, src.of(call), where, out);
    } else if (type === "DeclClause") {
      out.assignments.push(...declAssignments(node as DeclClause, src));
    } else if (type === "LetClause") {
      out.assignments.push(...letAssignments((node as unknown as { Exprs: Node[] }).Exprs, src));
    } else if (type === "Redirect") {
      checkRedirect(node as Redirect, src, out);
    } else {
      const set = expressionAssignment(node, type, src);
      if (set) out.assignments.push(set);
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
  /** The environment assignments in front of the command and of its wrappers. */
  assigns: ShellAssignment[];
  /** A wrapper adds arguments at run time. */
  appended: boolean;
  /** Every script through the full parser, plain ones too (tests compare the two). */
  full: boolean;
}

function follow(words: ResolvedWord[], text: string, where: Where, out: Found): void {
  const name = words[0];
  const placeholder = where.placeholder;
  // `$HOME/bin/tool`: the directory is unknown, the program's name is not.
  const known = name.static ? name.value : name.basename;
  if (known === undefined || name.expands || (placeholder && name.value.includes(placeholder))) {
    out.commands.push(command(words, text, true, where));
    return;
  }
  const peeled = peelWrapper(commandName(known), words);
  if (!peeled) {
    report(words, text, where, out);
    return;
  }
  if (peeled.keepSelf) report(words, text, where, out);
  const inner: Where = {
    ...where,
    placeholder: peeled.placeholder ?? placeholder,
    assigns: [...where.assigns, ...(peeled.assigns ?? []).map((w) => envAssignment(w))],
    appended: where.appended || peeled.appends === true,
  };
  for (const cmd of peeled.commands) follow(cmd, text, inner, out);
  for (const s of peeled.scripts) {
    const replaced = inner.placeholder !== undefined && s.value.includes(inner.placeholder);
    if (!s.static || replaced) out.commands.push(command(words, text, true, where));
    else nested(s.value, words, text, inner, out);
  }
  if (peeled.readsStdin) {
    const stdin = where.stdin;
    if (stdin.kind === "text") nested(stdin.text, words, text, inner, out);
    else if (stdin.kind === "pipe" || stdin.kind === "unknown") {
      out.commands.push(command(words, text, true, where));
    }
  }
}

/** A command the script runs: recorded with what it sets and where it moves. */
function report(words: ResolvedWord[], text: string, where: Where, out: Found): void {
  out.commands.push(command(words, text, false, where));
  const name = commandName(words[0].static ? words[0].value : words[0].basename ?? "");
  out.assignments.push(...builtinAssignments(name, words, text));
  out.evaluations.push(...builtinEvaluations(name, words, text));
  if (name === "cd" || name === "pushd" || name === "popd") noteCd(name, words, out.cd);
}

/** `env NAME=value` operands as assignments (the name is unknown when it is not written out). */
function envAssignment(w: ResolvedWord): ShellAssignment {
  const eq = w.value.indexOf("=");
  const name = w.static ? w.value.slice(0, eq) : undefined;
  return {
    name: name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : undefined,
    value: w.value.slice(eq + 1),
    text: w.text,
  };
}

/** Parses a script found inside the script; too deep is treated as unknowable. */
function nested(
  script: string,
  words: ResolvedWord[],
  text: string,
  where: Where,
  out: Found,
) {
  if (where.depth + 1 > MAX_DEPTH) {
    out.commands.push(command(words, text, true, where));
    return;
  }
  try {
    collect(script, where.depth + 1, where.assigns, out, where.full);
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

/**
 * Every redirection to a file is recorded for the path rules. Bash itself opens
 * network connections for `/dev/tcp/host/port` and `/dev/udp/…`: those are also
 * reported as commands, so the ban list sees them.
 */
function checkRedirect(r: Redirect, src: SourceText, out: Found): void {
  const redirect = redirectOf(r, src);
  if (!redirect) return;
  out.redirects.push(redirect);
  if (redirect.static && /^\/dev\/(tcp|udp)\//.test(redirect.target)) {
    out.commands.push({ argv: [redirect.target], dynamic: false, text: redirect.text });
  } else if (!redirect.static && /^["']?\/dev\//.test(redirect.target)) {
    out.commands.push({ argv: [redirect.target], dynamic: true, text: redirect.text });
  }
}

function command(
  words: ResolvedWord[],
  text: string,
  dynamic: boolean,
  where: Pick<Where, "assigns" | "appended">,
): ShellCommand {
  const argv = words.map((w) => w.value);
  // A name whose directory is dynamic is reported by what is known: `…/tool`.
  if (!dynamic && !words[0].static && words[0].basename) argv[0] = `…/${words[0].basename}`;
  const cmd: ShellCommand = { argv, dynamic, text };
  const dyn = words.flatMap((w, i) => (w.static ? [] : [i]));
  if (dyn.length > 0) cmd.dynamic_args = dyn;
  if (where.assigns.length > 0) cmd.assigns = where.assigns;
  if (where.appended) cmd.appended = true;
  return cmd;
}
