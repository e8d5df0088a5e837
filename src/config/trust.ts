/**
 * Whether the project's own config files are trusted. Config comes from two kinds
 * of layers: the operator's (built-in defaults, /etc/mopac, the user's XDG files,
 * `--config`, `MOPAC_*` variables, flags), which are in charge, and the project's
 * (files found from the git root down to the cwd, and a data-dir file inside the
 * project), which a stranger may have written. A project is untrusted unless the
 * operator says otherwise: `--trust-project`, `MOPAC_TRUST_PROJECT=1`, or an entry of
 * `trusted_projects` in an operator layer that matches the project's root.
 */
import { isAbsolute, join, relative, resolve } from "node:path";
import picomatch from "picomatch";
import { ConfigError } from "../util/errors.ts";
import { dotted, type JsonPath, locate } from "./jsonc.ts";
import type { Layer } from "./layers.ts";

export interface TrustDecision {
  trusted: boolean;
  /** What trusted the project: the flag, the variable, or `trusted_projects in FILE`. */
  by?: string;
}

export const TRUST_ENV = "MOPAC_TRUST_PROJECT";

/**
 * Keys only the operator may set (flags, MOPAC_*, --config, system and user config),
 * even when the project is trusted: the project does not get to turn off what
 * protects the operator from it.
 */
export const OPERATOR_ONLY: readonly JsonPath[] = [["options", "sandbox"]];
export const OPERATOR_ONLY_REASON = "only the operator may set it (flags, MOPAC_* variables, " +
  "--config, user or system config)";

type Compile = (glob: string, options?: { dot?: boolean }) => (input: string) => boolean;
const compile = picomatch as unknown as Compile & { scan(glob: string): { isGlob: boolean } };

export function decideTrust(input: {
  /** `--trust-project`. */
  flag?: boolean;
  env: (name: string) => string | undefined;
  /** Operator file layers (their values expanded), lowest first. */
  operatorLayers: readonly Layer[];
  /** The project root (git root, else the cwd) and its real path. */
  root: string;
  realRoot: string;
  home?: string;
}): TrustDecision {
  if (input.flag) return { trusted: true, by: "--trust-project" };
  if (envSaysTrust(input.env(TRUST_ENV))) return { trusted: true, by: TRUST_ENV };
  for (const layer of input.operatorLayers) {
    const list = layer.value.trusted_projects;
    if (!Array.isArray(list)) continue; // validation reports a wrong type later
    for (const [i, entry] of list.entries()) {
      if (typeof entry !== "string") continue;
      const path = ["trusted_projects", i];
      const where = layer.parsed ? locate(layer.parsed, path).where : layer.name;
      if (matchesRoot(entry, input, where)) {
        return { trusted: true, by: `trusted_projects in ${layer.name}` };
      }
    }
  }
  return { trusted: false };
}

/** 1/true/yes/on trusts, 0/false/no/off or empty does not; anything else is a mistake to report. */
function envSaysTrust(raw: string | undefined): boolean {
  const value = raw?.trim() ?? "";
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)?$/i.test(value)) return false;
  throw new ConfigError(`${TRUST_ENV}: expected 1 or 0, got ${JSON.stringify(raw)}`, {
    where: `env ${TRUST_ENV}`,
  });
}

function matchesRoot(
  entry: string,
  input: { root: string; realRoot: string; home?: string },
  where: string,
): boolean {
  let pattern = entry.trim();
  if (pattern === "~" || pattern.startsWith("~/")) {
    // Without a known home (Deno may hide HOME) the entry names nothing: it trusts nothing.
    if (!input.home) return false;
    pattern = join(input.home, pattern.slice(2));
  }
  if (!isAbsolute(pattern)) {
    throw new ConfigError(
      `${dotted(["trusted_projects"])}: ${JSON.stringify(entry)} is not an absolute path or glob`,
      { where, hint: 'write the project root as "/abs/path", "~/path" or a glob like "/ci/*"' },
    );
  }
  const roots = [input.root, input.realRoot];
  if (compile.scan(pattern).isGlob) {
    const matches = compile(pattern, { dot: true });
    return roots.some((r) => matches(r));
  }
  return roots.some((r) => resolve(pattern) === r);
}

/** True when `path` is `root` or below it (both absolute and normalised). */
export function within(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * The real path of `path`, following symlinks as far as the path exists (the rest
 * is appended as written), so a missing file under a symlinked folder still counts
 * as where the folder leads.
 */
export async function realPathOf(path: string): Promise<string> {
  const parts: string[] = [];
  let at = resolve(path);
  while (true) {
    try {
      return join(await Deno.realPath(at), ...parts.reverse());
    } catch {
      const parent = resolve(at, "..");
      if (parent === at) return resolve(path);
      parts.push(at.slice(parent.length).replace(/^[/\\]/, ""));
      at = parent;
    }
  }
}
