/**
 * `mopac doctor`: everything a run depends on, checked without a model call, each
 * with what to fix: the Deno runtime, the config, Deno's permissions for a run with
 * these flags, the OS jail, every configured provider (reachable, key accepted: a
 * models list request) and every MCP server (starts, answers a ping). A check that
 * fails says which exit code a run would end with for it.
 */
import { join } from "node:path";
import { keyOf, providerEntries, type ProviderEntry } from "../catalog/mod.ts";
import { logsDir } from "../config/mod.ts";
import { preflight } from "../deno_perms/needs.ts";
import { createMcpManager } from "../mcp/manager.ts";
import { errorText } from "../mcp/errors.ts";
import { MopacError, SandboxError } from "../util/errors.ts";
import { readEnv } from "../util/env.ts";
import { checkJail, jailedServersOf } from "./jail.ts";
import { mcpManagerOptions } from "./tooling.ts";
import { runSecrets } from "../secrets/sources.ts";
import { type ResolvedRun, resolveRun, type RunOptions } from "./resolve_run.ts";

export interface DoctorCheck {
  /** `deno`, `config`, `permissions`, `jail`, `provider NAME`, `mcp NAME`. */
  check: string;
  ok: boolean;
  detail: string;
  /** What to do about it (set when not ok). */
  fix?: string;
  /** The exit code a run would end with for this problem (2, 5 or 6). */
  code?: number;
}

/** The oldest Deno mopac is known to run on (it is built and tested on 2.9.6). */
export const MIN_DENO = "2.9.0";
const REQUEST_TIMEOUT_MS = 10_000;

export async function runDoctor(
  args: RunOptions,
  opts: { warn: (line: string) => void },
): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [denoCheck()];
  let resolved: ResolvedRun;
  try {
    resolved = await resolveRun(args);
  } catch (err) {
    if (!(err instanceof MopacError)) throw err;
    checks.push(failed("config", err, 2));
    return checks;
  }
  const { loaded } = resolved;
  checks.push({
    check: "config",
    ok: true,
    detail: `${loaded.files.length} file(s); profile ${resolved.profile.name}; model ` +
      `${resolved.model.provider_id}/${resolved.model.model_id}`,
  });
  try {
    preflight(resolved.required);
    checks.push({ check: "permissions", ok: true, detail: "Deno grants what a run needs" });
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
    checks.push(failed("permissions", err, 2));
  }
  checks.push(await jailCheck(resolved));
  for (const entry of providersOf(resolved)) {
    checks.push(await providerCheck(entry, resolved.loaded.referencedEnv));
  }
  checks.push(...await mcpChecks(resolved, opts.warn));
  return checks;
}

/** The OS jail's probe, when the profile offers bash (MCP servers in the jail are checked below). */
async function jailCheck(resolved: ResolvedRun): Promise<DoctorCheck> {
  if (!resolved.jail.needed) {
    return {
      check: "jail",
      ok: true,
      detail: `not needed: profile ${resolved.profile.name} offers no bash`,
    };
  }
  const jail = await checkJail(resolved);
  const cause = jail.lines.find((l) => l.startsWith("cause: "))?.slice(7);
  const fix = jail.lines.find((l) => l.startsWith("fix: "))?.slice(5);
  return {
    check: "jail",
    ok: jail.ok,
    detail: cause ?? jail.lines.filter((l) => !l.startsWith("fix: ")).join("; "),
    ...(jail.ok ? {} : { fix: fix ?? "see mopac sandbox --check", code: 2 }),
  };
}

function denoCheck(): DoctorCheck {
  const version = Deno.version.deno;
  const ok = compareVersions(version, MIN_DENO) >= 0;
  return {
    check: "deno",
    ok,
    detail: `Deno ${version}`,
    ...(ok
      ? {}
      : { fix: `mopac needs Deno ${MIN_DENO} or newer: npm install -g deno@2.9.6`, code: 2 }),
  };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((n) => parseInt(n, 10) || 0);
  const pb = b.split(/[.-]/).map((n) => parseInt(n, 10) || 0);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

function failed(check: string, err: MopacError, code: number): DoctorCheck {
  return { check, ok: false, detail: err.message, ...(err.hint ? { fix: err.hint } : {}), code };
}

/** The providers config sets up, and those of the run's models. */
function providersOf(resolved: ResolvedRun): ProviderEntry[] {
  const used = new Set(
    [resolved.model, resolved.smallModel, resolved.fallbackModel].flatMap((m) =>
      m ? [m.provider_id] : []
    ),
  );
  return providerEntries(resolved.loaded.config)
    .filter((e) => !e.disabled && (e.configured || used.has(e.id)));
}

/** One GET of the provider's models list: it answers, and takes the key. */
async function providerCheck(e: ProviderEntry, referenced: string[]): Promise<DoctorCheck> {
  const check = `provider ${e.id}`;
  if (!e.base_url) {
    return {
      check,
      ok: false,
      detail: "no base URL",
      fix: `set providers.${e.id}.base_url`,
      code: 2,
    };
  }
  const state = keyOf(e, readEnv);
  if (!state.ok) return { check, ok: false, detail: "no API key", fix: state.hint, code: 2 };
  // "$VAR (providers.x.api_key)": the variable is what a user would fix.
  const variable = state.key && referenced.find((n) => readEnv(n) === state.key);
  const key = variable ? { ...state, source: `$${variable} (${state.source})` } : state;
  const url = `${e.base_url.replace(/\/+$/, "")}/models`;
  const headers: Record<string, string> = { ...e.extra_headers };
  if (key.key) headers.authorization = `Bearer ${key.key}`;
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable) {
      const host = new URL(url).host;
      return {
        check,
        ok: false,
        detail: `Deno does not let mopac reach ${host}`,
        fix: `add --allow-net=${host}`,
        code: 2,
      };
    }
    return {
      check,
      ok: false,
      detail: `${url}: ${(err as Error).message}`,
      fix: `check providers.${e.id}.base_url and that the server runs`,
      code: 5,
    };
  }
  const body = await res.text().catch(() => "");
  if (res.status === 401 || res.status === 403) {
    return {
      check,
      ok: false,
      detail: `${url}: HTTP ${res.status}: the key from ${key.source} was refused`,
      fix: `check the key in ${key.source}`,
      code: 5,
    };
  }
  if (res.status === 404 || res.status === 405) {
    return {
      check,
      ok: true,
      detail: `${e.base_url} answers (no models list); key from ${key.source}`,
    };
  }
  if (!res.ok) {
    return {
      check,
      ok: false,
      detail: `${url}: HTTP ${res.status} ${body.slice(0, 200)}`.trim(),
      fix: "the provider answers but fails; try again later or check its logs",
      code: 5,
    };
  }
  let count = "";
  try {
    const list = (JSON.parse(body) as { data?: unknown[] }).data;
    if (Array.isArray(list)) count = `, ${list.length} model(s)`;
  } catch {
    // A gateway's list in another shape still shows the endpoint answers.
  }
  return { check, ok: true, detail: `${e.base_url} answers${count}; key from ${key.source}` };
}

/** Every configured MCP server (in the OS jail where it asks for one): starts and answers a ping. */
async function mcpChecks(
  resolved: ResolvedRun,
  warn: (line: string) => void,
): Promise<DoctorCheck[]> {
  const { loaded } = resolved;
  if (Object.keys(loaded.config.mcp ?? {}).length === 0) return [];
  let jailed;
  try {
    jailed = await jailedServersOf(loaded, warn);
  } catch (err) {
    if (!(err instanceof MopacError)) throw err;
    return [failed("mcp", err, 2)];
  }
  // Started exactly as a run starts them: redacted logs, OAuth logins, roots.
  const redactor = runSecrets(loaded, []);
  const manager = createMcpManager(
    jailed.servers,
    mcpManagerOptions(
      loaded.config,
      { dataDir: loaded.dataDir, workspace: loaded.workspaceRoot },
      redactor,
      (line) => warn(redactor.redact(line)),
    ),
  );
  try {
    await manager.start();
    return await Promise.all(
      manager.statuses().map(async (s): Promise<DoctorCheck> => {
        const check = `mcp ${s.name}`;
        const log = join(logsDir(loaded.dataDir), `mcp-${s.name}.log`);
        if (s.status === "disabled") return { check, ok: true, detail: "disabled in config" };
        if (s.status === "failed") {
          return { check, ok: false, detail: s.error ?? "failed", fix: `see ${log}`, code: 6 };
        }
        try {
          await manager.connection(s.name)!.ping();
          return { check, ok: true, detail: `connected, ${s.tools} tool(s), answers a ping` };
        } catch (err) {
          return {
            check,
            ok: false,
            detail: `ping: ${errorText(err)}`,
            fix: `see ${log}`,
            code: 6,
          };
        }
      }),
    );
  } finally {
    await manager.close();
    await jailed.close();
  }
}
