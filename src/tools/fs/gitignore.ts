/**
 * .gitignore rules for a directory walk (npm:ignore does the pattern semantics).
 * Deeper .gitignore files win over shallower ones, as in git. Rules from the
 * parents of the walk root apply up to the enclosing git repository's root (or
 * the filesystem root when there is none): the same parent rules ripgrep uses with
 * --no-require-git, so the built-in search and rg see the same files. npm:ignore (a
 * CommonJS package) is loaded at the first .gitignore read, not at start.
 */
import type { Ignore } from "ignore";
import * as path from "node:path";
import { loadOnce } from "../../util/load_once.ts";

type MakeIgnore = (options: { allowRelativePaths: boolean }) => Ignore;
const ignoreLib = loadOnce((): Promise<MakeIgnore> => import("ignore").then((m) => m.default));

export type IgnoreVerdict = "ignored" | "unignored" | "none";

export class GitIgnoreTree {
  readonly #rules = new Map<string, Ignore>();
  readonly #top: string;

  private constructor(top: string) {
    this.#top = top;
  }

  /** Rules for a walk of `root`: its own .gitignore and its parents'. */
  static async create(root: string): Promise<GitIgnoreTree> {
    let top = root;
    const parents: string[] = [];
    if (!(await hasGitDir(root))) {
      for (let dir = path.dirname(root);; dir = path.dirname(dir)) {
        parents.push(dir);
        top = dir;
        if (dir === path.dirname(dir) || (await hasGitDir(dir))) break;
      }
    }
    const tree = new GitIgnoreTree(top);
    for (const dir of [root, ...parents]) await tree.load(dir);
    return tree;
  }

  /** Reads `dir/.gitignore` if there is one (call when the walk enters `dir`). */
  async load(dir: string): Promise<void> {
    let text: string;
    try {
      text = await Deno.readTextFile(path.join(dir, ".gitignore"));
    } catch {
      return; // none, unreadable, or outside what Deno may read: no rules from it
    }
    const ignore = await ignoreLib();
    this.#rules.set(dir, ignore({ allowRelativePaths: true }).add(text));
  }

  /** What the rules say about `abs`: the nearest .gitignore with an opinion decides. */
  verdict(abs: string, isDir: boolean): IgnoreVerdict {
    return this.forDir(path.dirname(abs))(path.basename(abs), isDir);
  }

  /**
   * A checker for the entries of one folder. The walk calls it once per folder:
   * the chain of .gitignore files above that folder is worked out once, not per entry.
   */
  forDir(dir: string): (name: string, isDir: boolean) => IgnoreVerdict {
    const chain: Array<{ rules: Ignore; prefix: string }> = [];
    for (let d = dir;; d = path.dirname(d)) {
      const rules = this.#rules.get(d);
      if (rules) {
        const rel = path.relative(d, dir).split(path.sep).join("/");
        chain.push({ rules, prefix: rel === "" ? "" : rel + "/" });
      }
      if (d === this.#top || d === path.dirname(d)) break;
    }
    if (chain.length === 0) return () => "none";
    return (name, isDir) => {
      for (const { rules, prefix } of chain) {
        const result = rules.test(prefix + name + (isDir ? "/" : ""));
        if (result.ignored) return "ignored";
        if (result.unignored) return "unignored";
      }
      return "none";
    };
  }
}

async function hasGitDir(dir: string): Promise<boolean> {
  try {
    await Deno.lstat(path.join(dir, ".git"));
    return true;
  } catch {
    return false;
  }
}
