/**
 * Agent Skills (agentskills.io): folders holding a SKILL.md whose front matter has a
 * `name` and a `description`. The system prompt lists them; the model opens the
 * SKILL.md with `view` when one fits. Unreadable paths and invalid files are skipped.
 */
import { join, resolve } from "node:path";
import type { Skill } from "../agent/system_prompt.ts";
import { canRead, expandHome, readCapped } from "./project_context.ts";
import { within } from "../config/mod.ts";
import { readEnv } from "../util/env.ts";

const SKILL_FILE = "SKILL.md";
/** How deep below a skills path SKILL.md files are looked for, and how many are taken. */
const MAX_DEPTH = 4;
const MAX_SKILLS = 200;
const MAX_DESCRIPTION = 1_024;

export interface SkillOptions {
  /** `options.skills_paths`, relative to the workspace root; `~/` is the home folder. */
  paths: string[];
  /** `options.disabled_skills`: names left out. */
  disabled?: string[];
  home?: string;
  /**
   * An untrusted project's real root: a SKILL.md inside the project whose real path
   * lies outside it is skipped (see project_context.ts).
   */
  confineTo?: string;
}

/** Sorted by path; a later skill with the same name replaces an earlier one. */
export async function findSkills(root: string, opts: SkillOptions): Promise<Skill[]> {
  const files: string[] = [];
  // `~/` is the home folder, as in a shell (not a folder named "~" in the workspace).
  const home = opts.home ?? readEnv("HOME");
  for (const p of opts.paths) {
    await collect(resolve(root, expandHome(p, home)), 0, files);
  }
  const byName = new Map<string, Skill>();
  for (const file of files) {
    if (opts.confineTo && within(file, root) && !(await realInside(file, opts.confineTo))) {
      continue;
    }
    const text = await readCapped(file, 64 * 1024);
    if (text === undefined) continue;
    const meta = frontMatter(text.content);
    if (!meta || !meta.name || !meta.description) continue;
    if (meta["disable-model-invocation"] === "true") continue;
    byName.delete(meta.name);
    byName.set(meta.name, {
      name: meta.name,
      description: meta.description.slice(0, MAX_DESCRIPTION),
      path: file,
    });
  }
  const disabled = new Set(opts.disabled ?? []);
  return [...byName.values()].filter((s) => !disabled.has(s.name));
}

async function realInside(file: string, realRoot: string): Promise<boolean> {
  try {
    return within(await Deno.realPath(file), realRoot);
  } catch {
    return false;
  }
}

async function collect(dir: string, depth: number, out: string[]): Promise<void> {
  if (depth > MAX_DEPTH || out.length >= MAX_SKILLS || !canRead(dir)) return;
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.name === SKILL_FILE && (e.isFile || e.isSymlink)) out.push(join(dir, e.name));
      else if ((e.isDirectory || e.isSymlink) && !e.name.startsWith(".")) names.push(e.name);
    }
  } catch {
    return;
  }
  for (const name of names.sort()) await collect(join(dir, name), depth + 1, out);
}

/**
 * The flat `key: value` pairs of a YAML front matter block, plus folded (`>`) and
 * literal (`|`) block scalars, which descriptions often use. Nested values are ignored.
 * Undefined when the text has no front matter.
 */
export function frontMatter(text: string): Record<string, string> | undefined {
  const lines = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").split("\n");
  let i = lines.findIndex((l) => l.trim() !== "");
  if (i < 0 || lines[i].trim() !== "---") return undefined;
  const end = lines.findIndex((l, n) => n > i && l.trim() === "---");
  if (end < 0) return undefined;
  const out: Record<string, string> = {};
  for (i = i + 1; i < end; i++) {
    const m = /^([A-Za-z0-9_-]+):\s*(.*)$/.exec(lines[i]);
    if (!m) continue;
    const [, key, raw] = m;
    const block = /^([>|])[+-]?$/.exec(raw.trim());
    if (block) {
      const body: string[] = [];
      while (i + 1 < end && (/^\s/.test(lines[i + 1]) || lines[i + 1].trim() === "")) {
        body.push(lines[++i].trim());
      }
      out[key] = block[1] === ">" ? body.filter(Boolean).join(" ") : body.join("\n").trim();
    } else {
      out[key] = unquote(raw.trim());
    }
  }
  return out;
}

function unquote(v: string): string {
  if (v.length >= 2 && (v[0] === '"' || v[0] === "'") && v.at(-1) === v[0]) {
    return v.slice(1, -1);
  }
  return v.replace(/\s+#.*$/, "");
}
