/**
 * `-i FILE`: images attached to the prompt. Each must be a PNG, JPEG, GIF or WebP
 * (by its bytes, not its name) of at most 20 MB, and the run's model must take
 * images (`supports_attachments`), or the run is exit 2 before anything starts.
 */
import { resolve } from "node:path";
import type { ImagePart } from "../domain/message.ts";
import type { ResolvedModel } from "../catalog/types.ts";
import { sniffImage } from "../tools/fs/image.ts";
import { Buffer } from "node:buffer";
import { UsageError } from "../util/errors.ts";

/** The largest image a provider is commonly sent (OpenAI's limit). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Exit 2 naming the model when it takes no images (checked before any file is read). */
export function requireAttachments(
  model: ResolvedModel,
  files: readonly string[],
  flag = "-m",
): void {
  if (files.length === 0 || model.supports_attachments) return;
  const label = `${model.provider_id}/${model.model_id}`;
  throw new UsageError(`-i: the model ${label} does not accept image attachments`, {
    hint: `pick one that does with ${flag} (mopac models --json shows supports_attachments), ` +
      `or set supports_attachments in providers.${model.provider_id}.models`,
  });
}

export async function readAttachments(files: readonly string[], cwd: string): Promise<ImagePart[]> {
  const out: ImagePart[] = [];
  for (const file of files) {
    const path = resolve(cwd, file);
    let bytes: Uint8Array;
    try {
      const info = await Deno.stat(path);
      if (!info.isFile) throw new UsageError(`-i ${file}: not a file`);
      if (info.size > MAX_IMAGE_BYTES) {
        throw new UsageError(
          `-i ${file}: ${info.size} bytes, more than the 20 MB an image may have`,
        );
      }
      bytes = await Deno.readFile(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        throw new UsageError(`-i ${file}: no such file (${path})`);
      }
      throw err;
    }
    const mime = sniffImage(bytes.subarray(0, 16));
    if (!mime) throw new UsageError(`-i ${file}: not a PNG, JPEG, GIF or WebP image`);
    out.push({ type: "image", mime_type: mime, data: Buffer.from(bytes).toString("base64") });
  }
  return out;
}
