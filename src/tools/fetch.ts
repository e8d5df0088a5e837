/**
 * `fetch`: GET an http(s) URL and return it as Markdown, text or HTML. Bounded in
 * size and time. Redirects are followed only within the host the gate approved:
 * a redirect elsewhere comes back to the model as a message, so the next request
 * goes through the gate with its own host.
 */
import { z } from "zod";
import type { Tool } from "./types.ts";
import { truncateOutput } from "./truncate.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { looksBinary } from "./fs/text.ts";
import { hostOf } from "../deno_perms/needs.ts";
import { readAtMost } from "../util/bytes.ts";

export interface FetchToolOptions {
  /** Most bytes read from a response (default 5 MB). */
  max_bytes?: number;
  /** Default time limit in seconds (default 30); calls may ask for up to max_timeout. */
  default_timeout?: number;
  /** Largest time limit a call may ask for, in seconds (default 120). */
  max_timeout?: number;
  /** User-Agent header. */
  user_agent?: string;
}

const MAX_REDIRECTS = 5;

const schema = z.object({
  url: z.string().min(1).describe("The http:// or https:// URL to fetch").refine(isHttpUrl, {
    message: "must be an absolute http:// or https:// URL",
  }),
  format: z.enum(["text", "markdown", "html"]).optional().describe(
    "How to return the content: markdown (default), text or html",
  ),
  timeout: z.number().positive().optional().describe("Time limit in seconds (default 30, max 120)"),
});

const DESCRIPTION = `Fetch a URL (GET) and return its content.
- url: http:// or https:// only.
- format: "markdown" (default; HTML pages are converted to Markdown), "text" (the page's visible text) or "html" (the page's body).
- timeout in seconds (default 30, at most 120). Responses are cut at 5 MB, and long output is shortened.
- Redirects to another host are not followed: the result names the new URL, which you may fetch in a new call.`;

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** `host:port` as the gate and Deno's --allow-net see it (an http(s) URL always has one). */
function hostPort(url: URL): string {
  return hostOf(url.href)!;
}

export function createFetchTool(options: FetchToolOptions = {}): Tool {
  const maxBytes = options.max_bytes ?? 5 * 1024 * 1024;
  const defaultTimeout = options.default_timeout ?? 30;
  const maxTimeout = options.max_timeout ?? 120;
  const userAgent = options.user_agent ?? "mopac (headless coding agent; fetch tool)";

  return defineTool({
    name: "fetch",
    description: DESCRIPTION,
    schema,
    access: (args) => ({ hosts: [hostPort(new URL(args.url))] }),
    run: (args, ctx) =>
      asToolError(async () => {
        const seconds = Math.min(args.timeout ?? defaultTimeout, maxTimeout);
        const timeout = new AbortController();
        const timer = setTimeout(() => timeout.abort(), seconds * 1000);
        const signal = AbortSignal.any([ctx.signal, timeout.signal]);
        try {
          const res = await getWithinHost(new URL(args.url), userAgent, signal);
          const { bytes, cut } = res.body
            ? await readAtMost(res.body, maxBytes)
            : { bytes: new Uint8Array(), cut: false };
          const contentType = res.headers.get("content-type") ?? "";
          const format = args.format ?? "markdown";
          return { content: await render(bytes, contentType, format, cut, maxBytes) };
        } catch (err) {
          if (timeout.signal.aborted && !ctx.signal.aborted) {
            throw new ToolFailure(
              `Fetching ${args.url} took longer than ${seconds} s and was stopped.`,
            );
          }
          if (err instanceof TypeError) {
            throw new ToolFailure(`Could not fetch ${args.url}: ${err.message}`);
          }
          throw err;
        } finally {
          clearTimeout(timer);
        }
      }),
  });
}

async function getWithinHost(
  start: URL,
  userAgent: string,
  signal: AbortSignal,
): Promise<Response> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    const res = await fetch(url, {
      redirect: "manual",
      signal,
      headers: {
        "User-Agent": userAgent,
        "Accept": "text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5",
      },
    });
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (!isHttpUrl(next.href) || hostPort(next) !== hostPort(start)) {
        throw new ToolFailure(
          `${url.href} redirects (${res.status}) to ${next.href}, on another host. It was not ` +
            `followed; call fetch with that URL if you need it.`,
        );
      }
      url = next;
      continue;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new ToolFailure(`Request failed with status ${res.status} ${res.statusText}`.trim());
    }
    return res;
  }
  throw new ToolFailure(`Too many redirects (more than ${MAX_REDIRECTS}) from ${start.href}`);
}

async function render(
  bytes: Uint8Array,
  contentType: string,
  format: string,
  cut: boolean,
  max: number,
): Promise<string> {
  const type = contentType.split(";")[0].trim().toLowerCase();
  const textual = type === "" || type.startsWith("text/") ||
    /json|xml|javascript|yaml|toml/.test(type);
  if (!textual && looksBinary(bytes)) {
    throw new ToolFailure(
      `The response is binary (${type || "no content type"}); fetch returns text only.`,
    );
  }
  const text = decode(bytes, contentType);
  const isHtml = type === "text/html" || type === "application/xhtml+xml" ||
    (type === "" && /^\s*(<!doctype html|<html)/i.test(text));
  let body = text;
  if (isHtml) {
    // Loaded on first use: the DOM and converter cost startup time that most runs never need.
    const html = await import("./fetch_html.ts");
    if (format === "markdown") body = html.htmlToMarkdown(text);
    else if (format === "text") body = html.htmlToText(text);
    else body = html.htmlBody(text);
  }
  let out = truncateOutput(body);
  if (cut) out += `\n\n[Response cut at ${max} bytes.]`;
  return out === "" ? "(empty response)" : out;
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
