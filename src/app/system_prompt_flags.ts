/**
 * `--system-prompt-file FILE` and `--append-system-prompt TEXT`: the operator's own
 * words for the run's system prompt. The file replaces mopac's base instructions
 * (who the agent is, how it works and how the run ends); the note on untrusted
 * content, the environment block, context files, the profile's prompt, MCP
 * instructions, skills and --output-schema's section stay. The text is appended last.
 * Sub-agents keep their own prompt. Both are recorded in the session (`system_prompt`).
 */
import { resolve } from "node:path";
import { UsageError } from "../util/errors.ts";

export interface SystemPromptFlags {
  /** The replacement of the base instructions, and the file it came from. */
  base?: { file: string; text: string };
  appended?: string;
}

export async function loadSystemPromptFlags(
  args: { systemPromptFile?: string; appendSystemPrompt?: string },
  cwd: string,
): Promise<SystemPromptFlags> {
  const out: SystemPromptFlags = {};
  if (args.systemPromptFile !== undefined) {
    const file = resolve(cwd, args.systemPromptFile);
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new UsageError(
          `--system-prompt-file ${args.systemPromptFile}: no such file (${file})`,
        );
      }
      throw err;
    }
    if (text.trim() === "") {
      throw new UsageError(`--system-prompt-file ${args.systemPromptFile}: the file is empty`, {
        hint: "leave the flag out to use mopac's own instructions",
      });
    }
    out.base = { file, text };
  }
  if (args.appendSystemPrompt !== undefined) out.appended = args.appendSystemPrompt;
  return out;
}

/** What the session records of them (nothing when neither flag was given). */
export function systemPromptRecord(flags: SystemPromptFlags) {
  if (!flags.base && flags.appended === undefined) return undefined;
  return {
    ...(flags.base ? { file: flags.base.file, text: flags.base.text } : {}),
    ...(flags.appended !== undefined ? { appended: flags.appended } : {}),
  };
}
