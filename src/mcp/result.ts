/**
 * Turns an MCP `tools/call` result into what the model gets: text for everything it
 * can read, image parts only when the model takes attachments (a placeholder line
 * otherwise), placeholders for audio and binary blobs, and `structuredContent` as
 * JSON when the server sent no text. `isError` becomes a tool error.
 */
import type { ImagePart } from "../provider/types.ts";
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

export function mapCallResult(result: CallResultLike, attachments: boolean): ToolOutput {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  let sawText = false;

  const addImage = (mime: string, data: string, label: string) => {
    if (attachments) {
      images.push({ type: "image", mime_type: mime, data });
      texts.push(`[image attached: ${label}${mime}, ${size(base64Bytes(data))}]`);
    } else {
      texts.push(`[image omitted: ${label}${mime}, ${size(base64Bytes(data))}; not viewable here]`);
    }
  };

  const blocks = Array.isArray(result.content) ? result.content as Block[] : [];
  for (const block of blocks) {
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

  if (!sawText && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (blocks.length === 0 && result.structuredContent === undefined && "toolResult" in result) {
    texts.push(JSON.stringify(result.toolResult, null, 2));
  }

  const output: ToolOutput = { content: texts.join("\n") };
  if (result.isError === true) output.is_error = true;
  if (images.length > 0) output.images = images;
  return output;
}
