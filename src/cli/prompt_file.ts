/**
 * `-f FILE`: the prompt comes from a file (relative to --cwd), or with `-f -` from
 * stdin, instead of piped stdin; words given as arguments follow it after a blank
 * line. Stdin is read only when asked for (`-f -`). The session's title is made from
 * the words when there are any, else from the file's text (as prompt_input.ts does).
 */
import { resolve } from "node:path";
import { UsageError } from "../util/errors.ts";
import type { PromptInput } from "./prompt_input.ts";

export async function promptFromFile(
  file: string,
  opts: { words: readonly string[]; cwd?: string; noStdin: boolean },
): Promise<PromptInput> {
  if (opts.words.includes("-")) {
    throw new UsageError("-f and '-' both want to be the prompt", {
      hint: "use -f - to read the prompt from stdin",
    });
  }
  let text: string;
  if (file === "-") {
    if (opts.noStdin) {
      throw new UsageError("-f - reads the prompt from stdin, and --no-stdin forbids reading it");
    }
    text = await new Response(Deno.stdin.readable).text();
  } else {
    const path = resolve(opts.cwd ?? Deno.cwd(), file);
    try {
      text = await Deno.readTextFile(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new UsageError(`-f ${file}: no such file (${path})`);
      }
      if (err instanceof Deno.errors.IsADirectory || (err as { code?: string }).code === "EISDIR") {
        throw new UsageError(`-f ${file}: is a directory`);
      }
      throw err;
    }
  }
  const fromFile = text.trimEnd();
  const words = opts.words.join(" ");
  return {
    prompt: [fromFile, words].filter((s) => s.trim() !== "").join("\n\n"),
    title: words || fromFile,
  };
}
