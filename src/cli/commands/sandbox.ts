/**
 * `mopac sandbox`: the narrowest Deno permission flags a run with these flags and
 * this config needs (the run's own flags are accepted: -a, --tools, --record, …).
 * `mopac sandbox --check`: the OS jail this machine gives the model's processes,
 * its version and whether the preflight probe passes (exit 2 when it does not).
 */
import type { Io } from "../io.ts";
import { parseRunArgs, splitCommon } from "../flags.ts";
import { EXIT } from "../exit_codes.ts";

export async function sandboxCommand(argv: string[], io: Io): Promise<number> {
  // The same one-line errors for --cwd, --config and --data-dir as every other command.
  splitCommon(argv);
  const check = argv.includes("--check");
  const run = parseRunArgs(argv.filter((a) => a !== "--check"));
  const { resolveSandbox } = await import("../../app/resolve_run.ts");
  // From the effective config only: an untrusted project's providers and servers are not in it.
  const resolved = await resolveSandbox(run);
  const { projectNotice } = await import("../../app/load_config.ts");
  const notice = projectNotice(resolved.loaded, resolved.projectIgnored);
  if (notice) io.err(`${notice}\n`);
  for (const note of resolved.notes) io.err(`${note}\n`);
  if (check) {
    const { checkJail } = await import("../../app/jail.ts");
    const report = await checkJail(resolved);
    io.out(report.lines.join("\n") + "\n");
    return report.ok ? EXIT.ok : EXIT.usage;
  }
  const { sandboxFlags } = await import("../../deno_perms/needs.ts");
  io.out(sandboxFlags(resolved.needs).join(" ") + "\n");
  return EXIT.ok;
}
