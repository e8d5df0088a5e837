/**
 * `--input-format stream-json`: user messages as JSON lines, the shape `claude -p
 * --input-format stream-json` reads, so drivers written for it work unchanged:
 *   {"type":"user","message":{"role":"user","content":"fix the build"}}
 *   {"type":"user","message":{"role":"user","content":[
 *     {"type":"text","text":"what is this?"},
 *     {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBOR…"}}]}}
 * Other fields (session_id, parent_tool_use_id, …) are ignored; blank lines are
 * skipped; anything else is a usage error naming the line.
 */
import type { ImagePart } from "../domain/message.ts";
import { UsageError } from "../util/errors.ts";

export interface InputMessage {
  text: string;
  images: ImagePart[];
}

const FLAG = "--input-format stream-json";
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function parseInputLine(line: string, n: number): InputMessage {
  const bad = (what: string) =>
    new UsageError(`${FLAG}: line ${n}: ${what}`, {
      hint: 'each line is {"type":"user","message":{"role":"user","content":"…"}}',
    });
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw bad(`not JSON (${(err as Error).message})`);
  }
  const obj = value as Record<string, unknown> | null;
  if (!obj || typeof obj !== "object" || Array.isArray(obj)) throw bad("not a JSON object");
  if (obj.type !== "user") throw bad(`type ${JSON.stringify(obj.type)}: only "user" messages`);
  const message = obj.message as Record<string, unknown> | undefined;
  if (!message || typeof message !== "object" || message.role !== "user") {
    throw bad('no "message" with "role": "user"');
  }
  const content = message.content;
  if (typeof content === "string") return { text: content, images: [] };
  if (!Array.isArray(content)) throw bad('"content" is neither a string nor a list of blocks');
  const texts: string[] = [];
  const images: ImagePart[] = [];
  for (const [i, block] of content.entries()) {
    const b = block as Record<string, unknown>;
    if (b?.type === "text" && typeof b.text === "string") texts.push(b.text);
    else if (b?.type === "image") {
      const src = b.source as Record<string, unknown> | undefined;
      const mime = src?.media_type;
      if (src?.type !== "base64" || typeof src.data !== "string" || typeof mime !== "string") {
        throw bad(`content[${i}]: an image needs a base64 source with media_type and data`);
      }
      if (!IMAGE_TYPES.has(mime)) {
        throw bad(`content[${i}]: media_type ${mime} is not an image mopac sends`);
      }
      images.push({ type: "image", mime_type: mime, data: src.data });
    } else throw bad(`content[${i}]: a block is {"type":"text"} or {"type":"image"}`);
  }
  return { text: texts.join("\n"), images };
}

/** Lines of a byte stream, as they arrive; the last one may lack its newline. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      yield pending.slice(0, nl).replace(/\r$/, "");
      pending = pending.slice(nl + 1);
    }
  }
  if (pending !== "") yield pending;
}
