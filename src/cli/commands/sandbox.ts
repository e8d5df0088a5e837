/**
 * `mopac sandbox`: the narrowest Deno permission flags a run with these flags and
 * this config needs (the run's own flags are accepted: -a, --tools, --record, …).
 */
import type { Io } from "../io.ts";
import { parseRunArgs, splitCommon } from "../flags.ts";
import { EXIT } from "../exit_codes.ts";

export async function sandboxCommand(argv: string[], io: Io): Promise<number> {
  // The same one-line errors for --cwd, --config and --data-dir as every other command.
  splitCommon(argv);
  const run = parseRunArgs(argv);
  const { resolveRun } = await import("../../app/resolve_run.ts");
  const { sandboxFlags } = await import("../../deno_perms/needs.ts");
  const resolved = await resolveRun(run);
  io.out(sandboxFlags(resolved.needs).join(" ") + "\n");
  return EXIT.ok;
}
