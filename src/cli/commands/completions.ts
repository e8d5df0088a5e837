/** `mopac completions bash|zsh|fish`: a completion script for the shell, on stdout. */
import type { Io } from "../io.ts";
import { EXIT } from "../exit_codes.ts";
import { parseFlags } from "../flags.ts";
import { COMMAND_SPECS } from "../command_specs.ts";
import { completionScript, SHELLS } from "../completion_scripts.ts";
import { UsageError } from "../../util/errors.ts";
import { didYouMean } from "../suggest.ts";

export function completionsCommand(argv: string[], io: Io): Promise<number> {
  const { positionals } = parseFlags(argv, COMMAND_SPECS.completions.options, "completions");
  const [shell, ...extra] = positionals;
  if (shell === undefined || extra.length > 0 || !(SHELLS as readonly string[]).includes(shell)) {
    const guess = shell ? didYouMean(shell, SHELLS) : "";
    throw new UsageError(
      shell === undefined
        ? "completions needs a shell"
        : `no completions for '${positionals.join(" ")}'`,
      { hint: `${guess ? `${guess} ` : ""}use mopac completions bash, zsh or fish` },
    );
  }
  io.out(completionScript(shell as (typeof SHELLS)[number]));
  return Promise.resolve(EXIT.ok);
}
