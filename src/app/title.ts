/**
 * The session title. A title from the prompt's first line is written at once; when
 * a small model is configured it writes a better one in the background. That
 * request never delays the answer and its failure changes nothing.
 */
import type { Provider } from "../provider/types.ts";
import type { SessionWriter } from "../session/types.ts";
import { textOf, userMessage } from "../domain/message.ts";

const TITLE_SYSTEM = `Write a title of at most 8 words for a coding task given by the user. \
Reply with the title only: no quotes, no trailing period.`;

export function promptTitle(prompt: string): string {
  const line = prompt.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}

/** Returns a promise that never rejects; the caller need not wait for it. */
export function startTitle(
  small: Provider | undefined,
  prompt: string,
  writer: SessionWriter,
  warn: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  const quick = writer.saveMeta({ title: promptTitle(prompt) });
  if (!small) return quick.catch(() => {});
  const better = small.complete({
    system: TITLE_SYSTEM,
    messages: [userMessage("title", prompt.slice(0, 4000), Date.now())],
    tools: [],
    signal,
  }, () => {}).then(async (turn) => {
    const title = textOf(turn).trim().split("\n")[0].replace(/^["']|["'.]$/g, "").slice(0, 80);
    if (title) await writer.saveMeta({ title });
  });
  return Promise.all([quick, better]).then(() => {}, (err) => {
    if (!signal?.aborted) warn(`mopac: no title from the small model: ${(err as Error).message}`);
  });
}
