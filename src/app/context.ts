/**
 * Gathers what the system prompt says about the project: context files from the
 * git root down to the cwd and from the user's config dir, the environment and
 * git state, and Agent Skills. Everything optional is skipped quietly when the
 * sandbox does not allow it.
 */
import { join, relative, resolve } from "node:path";
import type { ContextFile, EnvironmentInfo, Skill } from "../agent/system_prompt.ts";
import { readEnv } from "../util/env.ts";

const CONTEXT_NAMES = [
  "AGENTS.md",
  "CRUSH.md",
  "CLAUDE.md",
  "GEMINI.md",
  ".cursorrules",
  ".github/copilot-instructions.md",
];
/** Each name also in its `.local` variant: AGENTS.local.md, .cursorrules.local … */
const NAMES = CONTEXT_NAMES.flatMap((n) => [n, localVariant(n)]);

function localVariant(name: string): string {
  return name.endsWith(".md") ? name.replace(/\.md$/, ".local.md") : `${name}.local`;
}

/** Folders from the workspace root down to cwd (cwd outside the root → just cwd). */
export function foldersDown(root: string, cwd: string): string[] {
  const rel = relative(root, cwd);
  if (rel.startsWith("..") || rel === cwd) return [cwd];
  const out = [root];
  let cur = root;
  for (const seg of rel.split("/").filter(Boolean)) {
    cur = join(cur, seg);
    out.push(cur);
  }
  return out;
}

export async function findContextFiles(
  root: string,
  cwd: string,
  extraPaths: string[] = [],
): Promise<ContextFile[]> {
  const files: ContextFile[] = [];
  const seen = new Set<string>();
  const add = async (path: string) => {
    const abs = resolve(cwd, path);
    if (seen.has(abs)) return;
    seen.add(abs);
    const content = await readText(abs);
    if (content === undefined) return;
    const shown = abs.startsWith(root + "/") ? relative(root, abs) : abs;
    files.push({ path: shown, content });
  };
  const configHome = readEnv("XDG_CONFIG_HOME") ??
    (readEnv("HOME") ? join(readEnv("HOME")!, ".config") : undefined);
  if (configHome) {
    for (const name of ["AGENTS.md", "MOPAC.md"]) await add(join(configHome, "mopac", name));
  }
  for (const dir of foldersDown(root, cwd)) {
    for (const name of NAMES) await add(join(dir, name));
    for (const rule of await listDir(join(dir, ".cursor", "rules"))) await add(rule);
  }
  for (const p of extraPaths) {
    const abs = resolve(root, p);
    const entries = await listDir(abs);
    if (entries.length > 0) { for (const e of entries) await add(e); }
    else await add(abs);
  }
  return files;
}

/** Folders holding a SKILL.md under each skills path; name and description from its front matter. */
export async function findSkills(root: string, paths: string[]): Promise<Skill[]> {
  const skills: Skill[] = [];
  for (const p of paths) {
    const base = resolve(root, p);
    for (const dir of await listDir(base)) {
      const file = join(dir, "SKILL.md");
      const text = await readText(file);
      if (text === undefined) continue;
      const meta = frontMatter(text);
      skills.push({
        name: meta.name ?? dir.split("/").at(-1)!,
        description: meta.description ?? "",
        path: file,
      });
    }
  }
  return skills;
}

function frontMatter(text: string): Record<string, string> {
  const m = /^---\n([\s\S]*?)\n---/.exec(text);
  const out: Record<string, string> = {};
  for (const line of m?.[1].split("\n") ?? []) {
    const i = line.indexOf(":");
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim().replace(/^["']|["']$/g, "");
  }
  return out;
}

export async function environmentInfo(cwd: string, now: Date): Promise<EnvironmentInfo> {
  const info: EnvironmentInfo = {
    cwd,
    os: `${Deno.build.os} ${Deno.build.arch}`,
    date: now.toISOString().slice(0, 10),
  };
  const branch = await git(cwd, ["rev-parse", "--abbrev-ref", "HEAD"]);
  if (branch === undefined) return info;
  info.git = {
    branch: branch.trim(),
    status: (await git(cwd, ["status", "--short"])) ?? "",
    commits: (await git(cwd, ["log", "--oneline", "-3"])) ?? "",
  };
  return info;
}

/** Runs git with a time bound; undefined when git is missing, not allowed, slow or fails. */
async function git(cwd: string, args: string[]): Promise<string | undefined> {
  try {
    const cmd = new Deno.Command("git", {
      args: ["--no-pager", ...args],
      cwd,
      stdout: "piped",
      stderr: "null",
      stdin: "null",
      signal: AbortSignal.timeout(2000),
    });
    const out = await cmd.output();
    if (!out.success) return undefined;
    return new TextDecoder().decode(out.stdout).slice(0, 4000);
  } catch {
    return undefined;
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    const out: string[] = [];
    for await (const e of Deno.readDir(dir)) out.push(join(dir, e.name));
    return out.sort();
  } catch {
    return [];
  }
}
