/**
 * `mopac doctor`: checks what a run depends on (src/app/doctor.ts) and prints one
 * line per check, with what to fix under each failure; `--json` prints them as one
 * object. It takes the flags of `mopac run` (a profile, a model, --config, -c …)
 * because they change what a run needs. Exit 0 only when every check passes; else
 * the exit code a run would end with for the first problem (2, 5 or 6).
 */
import type { Io } from "../io.ts";
import { parseRunArgs, splitCommon } from "../flags.ts";
import { EXIT } from "../exit_codes.ts";
import { UsageError } from "../../util/errors.ts";
import { DOCTOR_HELP } from "../help.ts";

export async function doctorCommand(argv: string[], io: Io): Promise<number> {
  splitCommon(argv);
  const json = argv.includes("--json");
  const run = parseRunArgs(argv.filter((a) => a !== "--json"));
  if (run.help) {
    io.out(DOCTOR_HELP);
    return EXIT.ok;
  }
  if (run.prompt.length > 0) {
    throw new UsageError(`doctor takes no prompt, got '${run.prompt.join(" ")}'`, {
      hint: "mopac doctor [--json] [run flags]",
    });
  }
  const { runDoctor } = await import("../../app/doctor.ts");
  const checks = await runDoctor(run, { warn: (line) => run.quiet || io.err(`${line}\n`) });
  const problems = checks.filter((c) => !c.ok);
  if (json) {
    io.out(JSON.stringify({ ok: problems.length === 0, checks }, null, 2) + "\n");
  } else {
    for (const c of checks) {
      io.out(`${c.ok ? "ok  " : "FAIL"}  ${c.check}: ${c.detail}\n`);
      if (c.fix) io.out(`      fix: ${c.fix}\n`);
    }
    io.out(
      problems.length === 0 ? "everything works\n" : `${problems.length} problem(s) found\n`,
    );
  }
  return problems[0]?.code ?? (problems.length > 0 ? EXIT.usage : EXIT.ok);
}
