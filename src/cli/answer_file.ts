/**
 * `--output-last-message FILE` (codex's flag): the final answer, as text mode's
 * stdout carries it, written to a file in every output format. A run without a
 * final answer leaves the file empty, so an answer from an earlier run never passes
 * for this one's.
 */
import type { RunOutcome } from "../agent/types.ts";
import { UsageError } from "../util/errors.ts";
import { finalAnswer } from "./render.ts";

/** `answered`: the outcome of a run that succeeded; undefined leaves the file empty. */
export async function writeAnswerFile(path: string, answered?: RunOutcome): Promise<void> {
  const answer = answered && finalAnswer({
    is_error: false,
    result: answered.text,
    structured_output: answered.structured_output,
  });
  await Deno.writeTextFile(path, answer ?? "");
}

/** Best effort, for runs that failed before they started: a file that cannot be written stays. */
export async function emptyAnswerFile(path: string): Promise<void> {
  try {
    await Deno.writeTextFile(path, "");
  } catch {
    // the run's own error is what gets reported
  }
}

export function answerFileError(flag: string, err: unknown): UsageError {
  return new UsageError(
    `cannot write --output-last-message ${flag}: ${(err as Error).message}`,
    { cause: err },
  );
}
