/**
 * `fetch`: GET an http(s) URL and return it as Markdown, text or HTML. Bounded in
 * size and time. Every request, redirects included, goes to an address checked
 * after DNS (net/http_get.ts): loopback, private, link-local and metadata addresses
 * are refused unless the profile's `fetch.hosts` lists them by address. Redirects
 * are followed only within the host the gate approved: a redirect elsewhere comes
 * back to the model as a message, so the next request goes through the gate with its
 * own host.
 */
import * as z from "zod";
import type { Tool } from "./types.ts";
import { DEFAULT_LIMITS } from "./truncate.ts";
import { pageOf } from "./page.ts";
import { defineTool } from "./define.ts";
import { asToolError, ToolFailure } from "./failure.ts";
import { looksBinary } from "./fs/text.ts";
import { hostOf } from "../deno_perms/needs.ts";
import { readAtMost } from "../util/bytes.ts";
import { AddressRefused, httpGet, type HttpGetOptions } from "./net/http_get.ts";
import { canonicalAddress } from "./net/addresses.ts";

export interface FetchToolOptions {
  /** Most bytes read from a response (default 5 MB). */
  max_bytes?: number;
  /** Default time limit in seconds (default 30); calls may ask for up to max_timeout. */
  default_timeout?: number;
  /** Largest time limit a call may ask for, in seconds (default 120). */
  max_timeout?: number;
  /** User-Agent header. */
  user_agent?: string;
  /** Characters of one page of the result (default: what fits in the tool output limit). */
  page_chars?: number;
  /**
   * The profile's `fetch.hosts`: the entries written as an address (`127.0.0.1:8080`,
   * `[::1]`) are the private addresses that may be reached anyway.
   */
  hosts?: readonly string[];
  /** Extra CA certificates for https (tests). */
  ca_certs?: string[];
  /** Opens each connection (tests: a stand-in for what DNS answers on each hop). */
  connect?: HttpGetOptions["connect"];
}

/** The address entries of `fetch.hosts`, canonical, with their port when given. */
export function listedAddresses(hosts: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const entry of hosts) {
    const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([\d.]+)(?::(\d+))?$/.exec(entry);
    const ip = m ? canonicalAddress(m[1]) : undefined;
    if (ip) out.push(m![2] ? `${ip}:${m![2]}` : ip);
  }
  return out;
}

const MAX_REDIRECTS = 5;

function schemaOf(defaultTimeout: number, maxTimeout: number) {
  return z.object({
    url: z.string().min(1).describe("The http:// or https:// URL to fetch").refine(isHttpUrl, {
      message: "must be an absolute http:// or https:// URL",
    }),
    format: z.enum(["text", "markdown", "html"]).optional(),
    timeout: z.number().positive().max(maxTimeout).optional().describe(
      `Time limit in seconds (default ${defaultTimeout}, max ${maxTimeout})`,
    ),
    offset: z.number().int().min(0).optional().describe(
      "Characters of the content to skip, to read the next page (default 0)",
    ),
  });
}

function describe(maxBytes: number, pageChars: number): string {
  return `Fetch a URL (GET) and return its content.
- Only http:// and https://. A redirect to another host is not followed: the result names the new URL.
- Only the hosts the configuration allows; loopback, private and cloud metadata addresses are refused.
- format: markdown (default; HTML becomes Markdown), text (the page's visible text) or html (the page's body).
- At most ${pageChars} characters per call, cut at a line end; the last line then says how many remain and the offset to call again with (same url and format). Responses over ${
    Math.round(maxBytes / 1024 / 1024)
  } MB are cut.`;
}

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
  const maxTimeout = Math.max(options.max_timeout ?? 120, defaultTimeout);
  const userAgent = options.user_agent ?? "mopac (headless coding agent; fetch tool)";
  const pageChars = options.page_chars ?? DEFAULT_LIMITS.maxChars - 500;
  const net = {
    listedAddresses: listedAddresses(options.hosts),
    caCerts: options.ca_certs,
    connect: options.connect,
  };
  // The last few documents read, so that paging through one neither downloads it
  // again nor sees it shift between pages.
  const recent: Array<{ key: string; doc: Doc }> = [];

  async function download(url: string, format: string, seconds: number, outer: AbortSignal) {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), seconds * 1000);
    const signal = AbortSignal.any([outer, timeout.signal]);
    try {
      const res = await getWithinHost(new URL(url), userAgent, signal, net);
      const { bytes, cut } = res.body
        ? await readAtMost(res.body, maxBytes)
        : { bytes: new Uint8Array(), cut: false };
      const contentType = res.headers.get("content-type") ?? "";
      return await render(bytes, contentType, format, cut, maxBytes);
    } catch (err) {
      if (timeout.signal.aborted && !outer.aborted) {
        throw new ToolFailure(`Fetching ${url} took longer than ${seconds} s and was stopped.`);
      }
      if (err instanceof AddressRefused) {
        throw new ToolFailure(
          `Refused to fetch ${url}: ${err.message}. Such addresses are reached only when the ` +
            "profile's fetch.hosts lists them by address.",
        );
      }
      if (err instanceof Deno.errors.NotCapable || err instanceof ToolFailure) throw err;
      if (err instanceof Error) throw new ToolFailure(`Could not fetch ${url}: ${err.message}`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return defineTool({
    name: "fetch",
    description: describe(maxBytes, pageChars),
    schema: schemaOf(defaultTimeout, maxTimeout),
    access: (args) => ({ hosts: [hostPort(new URL(args.url))] }),
    run: (args, ctx) =>
      asToolError(async () => {
        const format = args.format ?? "markdown";
        const key = `${format} ${args.url}`;
        const offset = args.offset ?? 0;
        const at = recent.findIndex((r) => r.key === key);
        let doc = offset > 0 && at >= 0 ? recent[at].doc : undefined;
        if (at >= 0) recent.splice(at, 1);
        doc ??= await download(args.url, format, args.timeout ?? defaultTimeout, ctx.signal);
        recent.unshift({ key, doc });
        recent.length = Math.min(recent.length, 3);
        const page = pageOf(doc.text, offset, pageChars);
        const more = page.end < doc.text.length
          ? `\n\n(Characters ${offset}-${page.end} of ${doc.text.length} shown; ` +
            `${doc.text.length - page.end} remain: call fetch with the same url and format and ` +
            `offset ${page.end} to continue.)`
          : offset > 0
          ? `\n\n(Characters ${offset}-${page.end} of ${doc.text.length}: the end.)`
          : "";
        if (page.text === "" && offset > 0) {
          throw new ToolFailure(
            `offset ${offset} is past the end of the content (${doc.text.length} characters).`,
          );
        }
        const body = page.text === "" ? "(empty response)" : page.text;
        return { content: body + more + (doc.cut ? `\n\n${doc.cut}` : "") };
      }),
  });
}

async function getWithinHost(
  start: URL,
  userAgent: string,
  signal: AbortSignal,
  net: Pick<HttpGetOptions, "listedAddresses" | "caCerts" | "connect">,
): Promise<Response> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    // Each hop connects anew and checks the address it reached.
    const res = await httpGet(url, {
      signal,
      ...net,
      headers: {
        "User-Agent": userAgent,
        "Accept": "text/html,text/markdown,text/plain,application/json;q=0.9,*/*;q=0.5",
        "Accept-Encoding": "gzip, deflate",
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

/** A response as text in the asked format, and a note when its bytes were cut. */
interface Doc {
  text: string;
  cut?: string;
}

async function render(
  bytes: Uint8Array,
  contentType: string,
  format: string,
  cut: boolean,
  max: number,
): Promise<Doc> {
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
  return { text: body, ...(cut ? { cut: `[The response was cut at ${max} bytes.]` } : {}) };
}

function decode(bytes: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
