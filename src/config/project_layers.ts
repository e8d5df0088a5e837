/**
 * The project's config files (from the git root down to the cwd, and a data-dir
 * `mopac.json` that lies inside the project). A trusted project's files are layers
 * like any other. An untrusted project's files are never expanded: each gives only
 * what src/config/untrusted.ts accepts, and a file that is a symlink leading out of
 * the project, or is not a plain file of reasonable size, is not read at all.
 */
import { join } from "node:path";
import { UsageError } from "../util/errors.ts";
import { dotted, type ParsedFile } from "./jsonc.ts";
import { isPlainObject } from "./merge.ts";
import { type Layer, readConfigFile } from "./layers.ts";
import { combineNarrowing, emptyNarrowing, type IgnoredKey, type Narrowing } from "./narrowing.ts";
import { OPERATOR_ONLY, OPERATOR_ONLY_REASON, realPathOf, within } from "./trust.ts";
import { type SanitizedFile, sanitizeUntrusted } from "./untrusted.ts";

/** A project file larger than this is not read when the project is untrusted. */
const MAX_UNTRUSTED_BYTES = 1024 * 1024;

export interface ProjectContext {
  root: string;
  realRoot: string;
  trusted: boolean;
  /** Reads and expands a trusted file's layer. */
  expand: (parsed: ParsedFile) => Promise<Layer>;
}

/** What the project's files contribute, in layer order. */
export class ProjectLayers {
  /** Whole files (trusted), or each untrusted file's model choice, at the files' place. */
  readonly layers: Layer[] = [];
  /** Untrusted files' additions to the operator's lists, merged after every layer. */
  readonly appends: Layer[] = [];
  readonly ignored: IgnoredKey[] = [];
  /** Every project file read, trusted or not. */
  readonly files: string[] = [];
  /** Names of the layers that came from an untrusted file. */
  readonly untrusted = new Set<string>();
  readonly #narrowing: Array<{ file: string; narrowing: Narrowing }> = [];

  constructor(private readonly ctx: ProjectContext) {}

  /** Reads one candidate file; a missing one is skipped. */
  async add(file: string): Promise<void> {
    if (this.ctx.trusted) {
      const parsed = await readConfigFile(file, false);
      if (!parsed) return;
      this.files.push(file);
      const layer = await this.ctx.expand(parsed);
      this.#dropOperatorOnly(layer);
      this.layers.push(layer);
      return;
    }
    const refusal = await this.#refusal(file);
    if (refusal === "absent") return;
    this.files.push(file);
    if (refusal) {
      this.ignored.push({ file, key: "*", reason: refusal });
      return;
    }
    const parsed = await readConfigFile(file, false);
    if (!parsed) return;
    this.#take(parsed, await sanitizeUntrusted(parsed, this.ctx));
  }

  /**
   * The untrusted files' narrowing, all files combined. A profile the operator's
   * config and mopac do not define is not created by narrowing it: reported instead.
   */
  narrowing(knownProfiles: ReadonlySet<string>): {
    narrowing: Narrowing;
    perFile: Array<{ file: string; narrowing: Narrowing }>;
  } {
    let all = emptyNarrowing();
    for (const { file, narrowing } of this.#narrowing) {
      for (const name of Object.keys(narrowing.agents)) {
        if (knownProfiles.has(name)) continue;
        delete narrowing.agents[name];
        this.ignored.push({
          file,
          key: `agents.${name}`,
          reason: "not a profile the operator's config or mopac defines",
        });
      }
      all = combineNarrowing(all, narrowing);
    }
    return { narrowing: all, perFile: this.#narrowing };
  }

  /** Removes the operator-only keys from a trusted project file's layer, noting each. */
  #dropOperatorOnly(layer: Layer): void {
    for (const path of OPERATOR_ONLY) {
      let parent: unknown = layer.value;
      for (const key of path.slice(0, -1)) {
        parent = isPlainObject(parent) ? parent[key as string] : undefined;
      }
      const last = path[path.length - 1] as string;
      if (!isPlainObject(parent) || !Object.hasOwn(parent, last)) continue;
      delete parent[last];
      this.ignored.push({ file: layer.name, key: dotted(path), reason: OPERATOR_ONLY_REASON });
    }
  }

  #take(parsed: ParsedFile, s: SanitizedFile): void {
    this.untrusted.add(parsed.file);
    this.ignored.push(...s.ignored);
    this.#narrowing.push({ file: parsed.file, narrowing: s.narrowing });
    if (Object.keys(s.choice).length > 0) {
      this.layers.push({ name: parsed.file, value: s.choice, parsed });
    }
    const options: Record<string, string[]> = {};
    for (const [key, list] of Object.entries(s.appends)) if (list.length > 0) options[key] = list;
    if (Object.keys(options).length > 0) {
      this.appends.push({ name: parsed.file, value: { options } });
    }
  }

  /** Why an untrusted file is not read at all, "absent", or undefined to read it. */
  async #refusal(file: string): Promise<string | undefined> {
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(file);
      if (info.isSymlink) {
        const real = await realPathOf(file);
        if (!within(real, this.ctx.realRoot)) return "a symlink that leads outside the project";
        info = await Deno.stat(file);
      }
    } catch {
      // Missing, a dangling link, or hidden by Deno's sandbox: as if absent.
      return "absent";
    }
    if (info.isDirectory) return "absent";
    if (!info.isFile) return "not a plain file";
    if (info.size > MAX_UNTRUSTED_BYTES) return "larger than 1 MiB";
    return undefined;
  }
}

/**
 * A data dir inside an untrusted project must not lead elsewhere: a checkout could carry
 * `.mopac` (or `.mopac/logs`, `.mopac/index.db`, `.mopac/cache`, which the OS jail mounts
 * writable, …) as a symlink to a place outside it (or onto a file of the project), and
 * mopac would write sessions and logs there. A data dir mopac made holds no symlinks, so
 * any symlink there is refused.
 */
export async function checkDataDirLinks(dataDir: string): Promise<void> {
  // The folders mopac writes into (src/session's sessions/, the MCP logs).
  const places = [dataDir, join(dataDir, "sessions"), join(dataDir, "logs")];
  for (const place of places) {
    const entries: string[] = [place];
    try {
      for await (const e of Deno.readDir(place)) entries.push(join(place, e.name));
    } catch {
      // Missing or unreadable: nothing there to lead anywhere.
    }
    for (const entry of entries) {
      let link = false;
      try {
        link = (await Deno.lstat(entry)).isSymlink;
      } catch {
        continue;
      }
      if (link) {
        throw new UsageError(
          `${entry} is a symlink in an untrusted project; mopac will not write sessions or logs ` +
            "through it",
          { hint: "pass --data-dir DIR outside the checkout, or trust the project" },
        );
      }
    }
  }
}
