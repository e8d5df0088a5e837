/**
 * Content search through ripgrep. The flags pin rg to the rules the built-in
 * search implements, so both give the same matches:
 * - only .gitignore files count (no .ignore/.rgignore, no global or
 *   .git/info/exclude rules), also outside a git repository (--no-require-git);
 * - no user config (--no-config, and a cleared environment);
 * - the `include` filter is applied afterwards by the caller: rg's --glob would
 *   override .gitignore and hidden-file rules, which a filter must not do;
 * - `paths.deny` becomes `--glob '!…'` exclusions (there overriding .gitignore is the
 *   point: a `!.npmrc` line cannot bring a denied file back), and every match is
 *   checked against the read rules again before it is returned.
 * Returns null when rg cannot be used (not installed, not allowed by Deno's
 * permissions, or the pattern is valid JS but not Rust regex syntax), so the
 * caller falls back to the built-in search.
 */
import * as path from "node:path";
import type { SearchMatch, SearchRequest } from "./search_js.ts";
import { granted } from "../../deno_perms/needs.ts";

interface RgText {
  text?: string;
  bytes?: string;
}

interface RgMessage {
  type: string;
  data: { path?: RgText; lines?: RgText; line_number?: number };
}

export async function searchWithRg(req: SearchRequest, rg: string): Promise<SearchMatch[] | null> {
  if (!mayRun(rg)) return null;
  const args = [
    "--json",
    "--no-config",
    "--no-require-git",
    "--no-ignore-dot",
    "--no-ignore-exclude",
    "--no-ignore-global",
    "--no-messages",
    "--max-count",
    String(req.maxPerFile),
    "--max-filesize",
    String(req.maxFileBytes),
    ...(req.rgExclude ?? []).flatMap((g) => ["--glob", g]),
    "-e",
    req.pattern,
    "--",
    req.root,
  ];
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(rg, {
      args,
      // rg anchors `--glob '!/x'` at its working folder, not at the folder searched.
      cwd: req.root,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: {},
      signal: req.signal,
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) return null;
    throw err;
  }
  req.signal?.throwIfAborted();
  // 0: matches, 1: none, 2: an error (a bad regex, or some file could not be read).
  if (output.code === 2 && isPatternError(output.stderr)) return null;
  if (output.code !== 0 && output.code !== 1 && output.code !== 2) return null;
  return parseJsonLines(output.stdout, req);
}

/** Spawning a command Deno has not granted would prompt on a terminal; never try. */
function mayRun(rg: string): boolean {
  return granted({ name: "run", command: rg });
}

function isPatternError(stderr: Uint8Array): boolean {
  return /regex parse error|error parsing regex|error: .*regex/i.test(
    new TextDecoder().decode(stderr),
  );
}

function parseJsonLines(stdout: Uint8Array, req: SearchRequest): SearchMatch[] {
  const out: SearchMatch[] = [];
  const text = new TextDecoder().decode(stdout);
  for (const line of text.split("\n")) {
    if (!line.startsWith('{"type":"match"')) continue;
    let msg: RgMessage;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    const file = decodeRgText(msg.data.path);
    if (file === null || msg.data.line_number === undefined) continue;
    const rel = path.relative(req.root, file).split(path.sep).join("/");
    if (req.include && !req.include(rel)) continue;
    if (req.readable && !readableAll(req.readable, req.root, rel)) continue;
    const lineText = (decodeRgText(msg.data.lines) ?? "").replace(/\n$/, "");
    out.push({ rel, line: msg.data.line_number, text: lineText });
  }
  return out;
}

/** The file and every folder between it and the root may be read. */
function readableAll(readable: (abs: string) => boolean, root: string, rel: string): boolean {
  const parts = rel.split("/");
  for (let i = 1; i <= parts.length; i++) {
    if (!readable(path.join(root, ...parts.slice(0, i)))) return false;
  }
  return true;
}

/** rg sends text as `text`, or as base64 `bytes` when it is not valid UTF-8. */
function decodeRgText(value: RgText | undefined): string | null {
  if (!value) return null;
  if (value.text !== undefined) return value.text;
  if (value.bytes === undefined) return null;
  const binary = atob(value.bytes);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
