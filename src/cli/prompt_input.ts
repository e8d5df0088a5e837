/**
 * Where `mopac run` takes its prompt from: the arguments, with piped stdin (a pipe
 * or a file, never a terminal or /dev/null) in front of them; `-` as the prompt
 * reads the prompt from stdin whatever it is; `--no-stdin` never reads it, for runs
 * inside `while read …; do mopac run …; done < list` loops whose stdin is the list.
 * A read that has not ended after a second says so on stderr, once: a CI step whose
 * stdin stays open would otherwise wait in silence.
 */
import { UsageError } from "../util/errors.ts";
import type { Io } from "./io.ts";

export interface PromptInput {
  /** What the model gets: stdin's text, a blank line, then the arguments. */
  prompt: string;
  /** What the session title is made of: the operator's own words, else stdin's text. */
  title: string;
}

/** How long a read of stdin goes on before stderr says what mopac is waiting for. */
const WAIT_NOTE_MS = 1000;

export async function readPrompt(
  args: { prompt: string[]; noStdin: boolean; quiet: boolean },
  io: Pick<Io, "err">,
): Promise<PromptInput> {
  const dash = args.prompt.includes("-");
  if (dash && args.prompt.length > 1) {
    throw new UsageError("'-' (the prompt is stdin) stands alone, without other prompt words", {
      hint: "to add words to piped text, leave the '-' out: git diff | mopac run \"review this\"",
    });
  }
  if (dash && args.noStdin) {
    throw new UsageError("'-' reads the prompt from stdin, and --no-stdin forbids reading it");
  }
  const fromArgs = dash ? "" : args.prompt.join(" ");
  let piped = "";
  if (dash || (!args.noStdin && await stdinIsPiped())) {
    const note = dash
      ? "mopac: reading the prompt from stdin until it ends (Ctrl-D on a terminal)"
      : "mopac: waiting for stdin to end: piped text is read into the prompt " +
        "(--no-stdin leaves stdin alone)";
    piped = await readStdin(() => args.quiet || io.err(`${note}\n`));
  }
  return {
    prompt: [piped, fromArgs].filter((s) => s !== "").join("\n\n"),
    title: fromArgs || piped,
  };
}

/** A pipe or a file: what a caller meant as input (not a terminal, /dev/null or a socket). */
async function stdinIsPiped(): Promise<boolean> {
  if (Deno.stdin.isTerminal()) return false;
  const kind = stdinKindByPath();
  if (kind) return kind === "piped";
  try {
    // Loads Node's fs layer (~15 ms of a start, measured): only where the path cannot say.
    const { fstatSync } = await import("node:fs");
    const info = fstatSync(0);
    return info.isFIFO() || info.isFile();
  } catch {
    return false;
  }
}

/**
 * stdin's kind from `/dev/stdin` (the open descriptor itself, on Linux and macOS), which
 * Deno lets mopac stat only with read access everywhere (it checks /proc/self/fd/0's
 * target): what the installed command and the binaries have. Undefined elsewhere.
 */
function stdinKindByPath(): "piped" | "other" | undefined {
  if (Deno.build.os === "windows") return undefined;
  if (Deno.permissions.querySync({ name: "read" }).state !== "granted") return undefined;
  try {
    const info = Deno.statSync("/dev/stdin");
    return info.isFifo || info.isFile ? "piped" : "other";
  } catch {
    return undefined;
  }
}

/** stdin to its end; `waiting` runs once if that takes longer than WAIT_NOTE_MS. */
async function readStdin(waiting: () => void): Promise<string> {
  const timer = setTimeout(waiting, WAIT_NOTE_MS);
  try {
    return (await new Response(Deno.stdin.readable).text()).trimEnd();
  } finally {
    clearTimeout(timer);
  }
}
