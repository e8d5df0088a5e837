/**
 * What mopac takes from an untrusted project's config file: only what cannot widen
 * anything or reach anything. Nothing in the file is expanded (`$VAR`, `${VAR}` and
 * `$(…)` stay literal text), and every key below not named here is ignored and
 * reported:
 *  - `models.large|small`: which model, among the providers and models the operator's
 *    config and the catalog define (checked once every layer is known), and how to
 *    sample it; never a provider, URL, header, key or extra body;
 *  - `options.context_paths` / `skills_paths`: entries that resolve inside the project
 *    (`~/…` is the home folder, so outside), added to the operator's; `options.disabled_tools`, added to the operator's;
 *  - `permissions.allowed_tools`: one more list every profile is narrowed by;
 *  - `limits` and, for a profile the operator's config or mopac defines,
 *    `agents.<name>.allowed_tools` (narrows), `bash.deny` and `paths.deny` (added),
 *    `bash.network: "none"` (no network for its jailed commands) and its limits: caps
 *    over every other limit, flags included; the lowest wins.
 * `$schema`, `lsp`, `recent_models` and crush's TUI options mean nothing to mopac even
 * from a trusted file, so they are skipped without a word.
 */
import { resolve } from "node:path";
import * as z from "zod";
import { ConfigError } from "../util/errors.ts";
import { dotted, type JsonPath, locate, type ParsedFile } from "./jsonc.ts";
import { isPlainObject } from "./merge.ts";
import { LimitsSchema } from "./schema_agents.ts";
import { OPERATOR_ONLY_REASON, realPathOf, within } from "./trust.ts";
import {
  emptyNarrowing,
  type IgnoredKey,
  type LimitCaps,
  type Narrowing,
  type ProfileNarrowing,
} from "./narrowing.ts";

/** What one untrusted file contributes. */
export interface SanitizedFile {
  /** Merged at the file's place among the layers: the model choice. */
  choice: Record<string, unknown>;
  /** Added to the operator's lists once every layer is merged. */
  appends: { context_paths: string[]; skills_paths: string[]; disabled_tools: string[] };
  narrowing: Narrowing;
  ignored: IgnoredKey[];
}

const MODEL_CHOICE_KEYS = new Set([
  "model",
  "provider",
  "reasoning_effort",
  "think",
  "temperature",
  "top_p",
  "top_k",
  "frequency_penalty",
  "presence_penalty",
]);
const CRUSH_TUI_OPTIONS = new Set([
  "tui",
  "debug_lsp",
  "disable_provider_auto_update",
  "attribution",
  "disable_metrics",
  "initialize_as",
  "auto_lsp",
  "progress",
  "notifications",
]);
const LIMIT_KEYS = ["max_turns", "max_tokens", "max_cost", "timeout"] as const;
const Strings = z.array(z.string());

export const NOT_ACCEPTED = "an untrusted project may not set this";

export async function sanitizeUntrusted(
  parsed: ParsedFile,
  project: { root: string; realRoot: string },
): Promise<SanitizedFile> {
  const out: SanitizedFile = {
    choice: {},
    appends: { context_paths: [], skills_paths: [], disabled_tools: [] },
    narrowing: emptyNarrowing(),
    ignored: [],
  };
  const ignore = (path: JsonPath, reason = NOT_ACCEPTED) =>
    out.ignored.push({ file: parsed.file, key: dotted(path), reason });
  /** The value at `path` checked against `schema`; a bad value is an error at its spot. */
  const checked = <T>(schema: z.ZodType<T>, value: unknown, path: JsonPath): T => {
    const result = schema.safeParse(value, { jitless: true }); // parsed once: see validate.ts
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const at = [...path, ...(issue.path as JsonPath)];
    throw new ConfigError(`${dotted(at)}: ${issue.message.replace(/^Invalid input: /, "")}`, {
      where: locate(parsed, at).where,
    });
  };
  const caps = (block: Record<string, unknown>, path: JsonPath, into: LimitCaps) => {
    for (const key of LIMIT_KEYS) {
      if (block[key] === undefined) continue;
      into[key] = checked(LimitsSchema.shape[key], block[key], [...path, key]) as number;
    }
  };
  const insideProject = async (entry: string) => {
    // The readers take `~/` as the home folder (app/project_context.ts, app/skills.ts).
    if (entry === "~" || entry.startsWith("~/")) return false;
    const abs = resolve(project.root, entry);
    return within(abs, project.root) && within(await realPathOf(abs), project.realRoot);
  };

  for (const [key, value] of Object.entries(parsed.value)) {
    if (key === "$schema" || key === "lsp" || key === "recent_models") continue;
    if (key === "models" && isPlainObject(value)) {
      const models: Record<string, Record<string, unknown>> = {};
      for (const [role, sel] of Object.entries(value)) {
        if ((role !== "large" && role !== "small") || !isPlainObject(sel)) {
          ignore(["models", role]);
          continue;
        }
        for (const [k, v] of Object.entries(sel)) {
          if (MODEL_CHOICE_KEYS.has(k)) (models[role] ??= {})[k] = v;
          else ignore(["models", role, k]);
        }
      }
      if (Object.keys(models).length > 0) out.choice.models = models;
    } else if (key === "options" && isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (CRUSH_TUI_OPTIONS.has(k)) continue;
        const path = ["options", k];
        if (k === "context_paths" || k === "skills_paths") {
          for (const [i, entry] of checked(Strings, v, path).entries()) {
            if (await insideProject(entry)) out.appends[k].push(entry);
            else ignore([...path, i], "resolves outside the project");
          }
        } else if (k === "disabled_tools") {
          out.appends.disabled_tools.push(...checked(Strings, v, path));
        } else if (k === "sandbox") {
          ignore(path, OPERATOR_ONLY_REASON);
        } else ignore(path);
      }
    } else if (key === "permissions" && isPlainObject(value)) {
      for (const [k, v] of Object.entries(value)) {
        if (k === "allowed_tools") {
          out.narrowing.allowed_tools.push(checked(Strings, v, ["permissions", k]));
        } else ignore(["permissions", k]);
      }
    } else if (key === "limits" && isPlainObject(value)) {
      caps(value, ["limits"], out.narrowing.limits);
      for (const k of Object.keys(value)) {
        if (!(LIMIT_KEYS as readonly string[]).includes(k)) ignore(["limits", k]);
      }
    } else if (key === "agents" && isPlainObject(value)) {
      for (const [name, agent] of Object.entries(value)) {
        if (!isPlainObject(agent)) {
          ignore(["agents", name]);
          continue;
        }
        out.narrowing.agents[name] = profileNarrowing(agent, ["agents", name], {
          checked,
          caps,
          ignore,
        });
      }
    } else if (key === "trusted_projects") {
      ignore([key], "only the operator's config can trust a project");
    } else ignore([key]);
  }
  return out;
}

function profileNarrowing(
  agent: Record<string, unknown>,
  path: JsonPath,
  fns: {
    checked: <T>(schema: z.ZodType<T>, value: unknown, path: JsonPath) => T;
    caps: (block: Record<string, unknown>, path: JsonPath, into: LimitCaps) => void;
    ignore: (path: JsonPath, reason?: string) => void;
  },
): ProfileNarrowing {
  const out: ProfileNarrowing = { allowed_tools: [], bash_deny: [], paths_deny: [], limits: {} };
  fns.caps(agent, path, out.limits);
  for (const [k, v] of Object.entries(agent)) {
    if ((LIMIT_KEYS as readonly string[]).includes(k)) continue;
    if (k === "allowed_tools") {
      out.allowed_tools.push(fns.checked(Strings, v, [...path, k]));
    } else if ((k === "bash" || k === "paths") && isPlainObject(v)) {
      for (const [rule, list] of Object.entries(v)) {
        if (k === "bash" && rule === "network") {
          // The jail's network: "none" narrows; anything else could widen it.
          if (list === "none") out.bash_network_none = true;
          else fns.ignore([...path, k, rule], 'an untrusted project may only set it to "none"');
          continue;
        }
        if (rule !== "deny") {
          fns.ignore([...path, k, rule]);
          continue;
        }
        const patterns = fns.checked(Strings, list, [...path, k, rule]);
        (k === "bash" ? out.bash_deny : out.paths_deny).push(...patterns);
      }
    } else fns.ignore([...path, k]);
  }
  return out;
}
