/**
 * Turns an MCP `tools/call` result into what the model gets: text for everything it
 * can read, image parts only when the model takes attachments (a placeholder line
 * otherwise), placeholders for audio and binary blobs, and `structuredContent` as
 * JSON only when the content has no blocks of its own to show (servers such as
 * server-filesystem repeat an image there as base64). Base64 never goes to the model
 * as text: long base64 strings in JSON become placeholders. `isError` becomes a tool error.
 */
import type { ImagePart } from "../domain/message.ts";
import type { ToolOutput } from "../tools/types.ts";

type Block = Record<string, unknown> & { type?: unknown };

export interface CallResultLike {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
  /** Results of pre-2024-11-05 servers. */
  toolResult?: unknown;
}

function base64Bytes(data: unknown): number {
  if (typeof data !== "string") return 0;
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - pad);
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function str(v: unknown, fallback = ""): string {
  return typeof v === "string" ? v : fallback;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const SIGNATURES: Array<[string, (b: string) => boolean]> = [
  ["image/png", (b) => b.startsWith("\x89PNG\r\n\x1a\n")],
  ["image/jpeg", (b) => b.startsWith("\xff\xd8\xff")],
  ["image/gif", (b) => b.startsWith("GIF87a") || b.startsWith("GIF89a")],
  ["image/webp", (b) => b.startsWith("RIFF") && b.slice(8, 12) === "WEBP"],
];

/**
 * The image type the data really has, or why it cannot go to a model. Endpoints take
 * PNG, JPEG, GIF and WebP and reject the whole request for a broken image, so a bad
 * one becomes a note; a wrong `mimeType` is replaced by what the bytes say.
 */
export function checkImage(raw: string): { mime: string; data: string } | { problem: string } {
  // Base64 wrapped at 76 columns is still base64, but not in a data URL.
  const data = raw.replace(/\s+/g, "");
  if (data === "" || !BASE64.test(data)) return { problem: "the data is not valid base64" };
  const head = atob(data.slice(0, 16));
  const found = SIGNATURES.find(([, matches]) => matches(head));
  if (!found) return { problem: "the data is not a PNG, JPEG, GIF or WebP image" };
  return { mime: found[0], data };
}

/** Shorter strings may be words or ids that happen to look like base64. */
const MIN_BASE64_IN_JSON = 256;

/** JSON of `value` with every long base64 string replaced by a placeholder. */
export function jsonWithoutBase64(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (typeof v !== "string" || v.length < MIN_BASE64_IN_JSON) return v;
    // Base64 may be wrapped in lines, never spaced; real text of that length has spaces.
    const compact = v.replace(/[\r\n]+/g, "");
    const encoded = BASE64.test(compact) && /[0-9+/]/.test(compact);
    return encoded ? `[base64 data omitted: ${size(base64Bytes(compact))}]` : v;
  }, 2);
}

export function mapCallResult(result: CallResultLike, attachments: boolean): ToolOutput {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  let sawText = false;
  let sawOther = false;

  const addImage = (declared: string, raw: string, label: string) => {
    const checked = checkImage(raw);
    if ("problem" in checked) {
      texts.push(`[image omitted: ${label}${declared}, ${checked.problem}]`);
      return;
    }
    const { mime, data } = checked;
    if (attachments) {
      images.push({ type: "image", mime_type: mime, data });
      texts.push(`[image attached: ${label}${mime}, ${size(base64Bytes(data))}]`);
    } else {
      texts.push(`[image omitted: ${label}${mime}, ${size(base64Bytes(data))}; not viewable here]`);
    }
  };

  // Some servers send `content` as a bare string: it is still what the tool said.
  const blocks = Array.isArray(result.content)
    ? result.content as Block[]
    : typeof result.content === "string"
    ? [{ type: "text", text: result.content }]
    : [];
  for (const block of blocks) {
    if (block?.type !== "text") sawOther = true;
    switch (block?.type) {
      case "text":
        sawText = true;
        texts.push(str(block.text));
        break;
      case "image":
        addImage(str(block.mimeType, "image/png"), str(block.data), "");
        break;
      case "audio":
        texts.push(
          `[audio omitted: ${str(block.mimeType, "audio")}, ${size(base64Bytes(block.data))}]`,
        );
        break;
      case "resource": {
        const res = (block.resource ?? {}) as Block;
        const uri = str(res.uri, "(no uri)");
        const mime = str(res.mimeType);
        if (typeof res.text === "string") {
          sawText = true;
          texts.push(`[resource ${uri}${mime ? ` (${mime})` : ""}]\n${res.text}`);
        } else if (mime.startsWith("image/") && typeof res.blob === "string") {
          addImage(mime, res.blob, `${uri} `);
        } else {
          texts.push(
            `[resource ${uri}: binary ${mime || "data"}, ${size(base64Bytes(res.blob))}]`,
          );
        }
        break;
      }
      case "resource_link": {
        const mime = str(block.mimeType);
        const desc = str(block.description);
        texts.push(
          `[resource link: ${str(block.name, "resource")} <${str(block.uri)}>` +
            `${mime ? ` (${mime})` : ""}${desc ? ` ${desc}` : ""}]`,
        );
        break;
      }
      default:
        texts.push(`[unsupported content block of type ${JSON.stringify(block?.type)}]`);
    }
  }

  // structuredContent repeats the content (MCP says so): shown only when nothing else is.
  if (!sawText && !sawOther && result.structuredContent !== undefined) {
    texts.push(jsonWithoutBase64(result.structuredContent));
  }
  if (blocks.length === 0 && result.structuredContent === undefined && "toolResult" in result) {
    texts.push(jsonWithoutBase64(result.toolResult));
  }

  const output: ToolOutput = { content: texts.join("\n") };
  if (result.isError === true) output.is_error = true;
  if (images.length > 0) output.images = images;
  return output;
}
