/**
 * The session a resuming run (`-C`, `-s ID`) continues and the model it comes back
 * on, found right after config is loaded and before any model is resolved: resuming
 * needs no `-m`, and an unknown session is named as such, not as "no model selected".
 * The run's preflight then covers the restored model's provider, since it is the
 * model the run resolves.
 */
import type { LoadedConfig } from "../config/mod.ts";
import { type ResolveContext, resolveModel } from "../catalog/mod.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { openSessionStore } from "../session/mod.ts";
import { granted } from "../deno_perms/needs.ts";
import { SandboxError, UsageError } from "../util/errors.ts";
import { isNotCapable } from "../deno_perms/not_capable.ts";

export interface ResumeTarget {
  /** The full id of the session to open. */
  id: string;
  /** `provider/model` of its last assistant message. */
  lastModel?: string;
}

/** The session `-C` or `-s` names, read without taking its lock; undefined for a new session. */
export async function findResumeTarget(
  dataDir: string,
  opts: { continue: boolean; session?: string },
): Promise<ResumeTarget | undefined> {
  if (!opts.continue && opts.session === undefined) return undefined;
  if (!granted({ name: "read", path: dataDir })) {
    throw new SandboxError(
      `Deno's permissions do not let mopac read the data dir ${dataDir}, where the session to ` +
        "continue is",
      `--allow-read=${dataDir}`,
    );
  }
  // A data dir without sessions stays untouched: there is nothing to continue there.
  const store = await openSessionStore(dataDir, { existingOnly: true });
  try {
    const summary = opts.continue ? await store.latestTopLevel() : store.resolve(opts.session!);
    if (!summary) {
      throw new UsageError(`no session to continue in ${dataDir}`, {
        hint: "start one with mopac run PROMPT, or pick one with -s ID",
      });
    }
    const loaded = await store.read(summary.id);
    return { id: summary.id, lastModel: loaded.last_model };
  } finally {
    store.close();
  }
}

/**
 * The resumed session's model, when it can come back: a model this config still
 * resolves and, in an untrusted checkout, a listed one (a checkout may carry its own
 * sessions, and an unlisted model has no price for --max-cost). Otherwise undefined,
 * with the reason in `notes`. A refused Deno permission is not a reason to switch
 * models quietly: it is thrown.
 */
export function restoreModel(
  lastModel: string,
  ctx: ResolveContext,
  loaded: LoadedConfig,
  notes: string[],
): ResolvedModel | undefined {
  let restored: ResolvedModel;
  try {
    restored = resolveModel(lastModel, ctx);
  } catch (err) {
    if (err instanceof SandboxError || isNotCapable(err)) throw err;
    notes.push(`mopac: cannot restore model ${lastModel}: ${(err as Error).message}`);
    return undefined;
  }
  if (restored.unlisted && !loaded.project.trusted) {
    notes.push(
      `mopac: not restoring ${lastModel}: not a listed model, and the project is untrusted`,
    );
    return undefined;
  }
  return restored;
}
