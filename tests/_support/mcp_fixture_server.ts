/**
 * An MCP server written with the SDK, for mopac's MCP client tests and benchmark.
 * Run it as a process (`deno run -A mcp_fixture_server.ts stdio|http|sse [--delay-ms N]
 * [--stderr TEXT]`; http/sse print `{"url": …}` on stdout) or start it in-process with
 * `startFixtureHttp`. HTTP always binds 127.0.0.1.
 *
 * Tools: echo, add, slow (progress), hang, fail (isError), image, structured, pid,
 * crash (exits mid-call), add_tool (announces list_changed), ask (elicitation),
 * roots (lists the client's roots), drop_sessions (http: forgets every session),
 * stray_progress (a progress notification for a token nobody asked for, then an answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { z } from "zod";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/server/stdio"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/server/sse"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";

/** A 1×1 PNG. */
export const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const FIXTURE_INSTRUCTIONS = "Fixture server: use echo to repeat text.";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

export function buildFixtureServer(hooks: { dropSessions?: () => void } = {}): McpServer {
  const server = new McpServer(
    { name: "mopac-fixture", version: "1.0.0" },
    { instructions: FIXTURE_INSTRUCTIONS },
  );
  server.registerTool("echo", {
    description: "Repeats the text.",
    inputSchema: { text: z.string() },
  }, ({ text: t }) => text(t));
  server.registerTool("add", {
    description: "Adds two numbers.",
    inputSchema: { a: z.number(), b: z.number() },
  }, ({ a, b }) => text(String(a + b)));
  server.registerTool("slow", {
    description: "Takes steps × ms, reporting progress after each step.",
    inputSchema: { steps: z.number().int(), ms: z.number().int() },
  }, async ({ steps, ms }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await sleep(ms);
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
      }
    }
    return text(`done after ${steps} steps`);
  });
  server.registerTool(
    "hang",
    { description: "Never answers." },
    (extra) =>
      new Promise((resolve) => {
        extra.signal.addEventListener("abort", () => resolve(text("cancelled")));
      }),
  );
  server.registerTool("fail", { description: "Always fails." }, () => ({
    content: [{ type: "text", text: "fixture failure" }],
    isError: true,
  }));
  server.registerTool("image", { description: "A tiny image." }, () => ({
    content: [{ type: "image", data: TINY_PNG, mimeType: "image/png" }],
  }));
  server.registerTool("structured", {
    description: "Structured content only.",
    outputSchema: { answer: z.number(), unit: z.string() },
  }, () => ({ content: [], structuredContent: { answer: 42, unit: "widgets" } }));
  server.registerTool("pid", { description: "The server's pid." }, () => text(String(Deno.pid)));
  server.registerTool("crash", { description: "Exits mid-call." }, () => Deno.exit(3));
  server.registerTool("add_tool", { description: "Adds the tool `late`." }, () => {
    server.registerTool("late", { description: "Added later." }, () => text("late"));
    return text("added");
  });
  server.registerTool("ask", {
    description: "Asks the client; with defaults or without.",
    inputSchema: { withDefaults: z.boolean() },
  }, async ({ withDefaults }) => {
    const answer = await server.server.elicitInput({
      message: "Which colour?",
      requestedSchema: {
        type: "object",
        properties: {
          colour: withDefaults
            ? { type: "string", default: "blue" }
            : { type: "string", description: "no default" },
        },
        required: ["colour"],
      },
    });
    return text(JSON.stringify(answer));
  });
  server.registerTool("roots", { description: "The client's roots." }, async () => {
    return text(JSON.stringify((await server.server.listRoots()).roots));
  });
  server.registerTool("stray_progress", {
    description: "Reports progress for a token the client never gave, then answers.",
  }, async (extra) => {
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: 987654, progress: 1, total: 2 },
    });
    return text("answered after stray progress");
  });
  server.registerTool("drop_sessions", { description: "Forgets all HTTP sessions." }, () => {
    setTimeout(() => hooks.dropSessions?.(), 10);
    return text("dropping");
  });
  return server;
}

export interface FixtureHttp extends AsyncDisposable {
  url: string;
  /** Sessions the server knows now (drop_sessions empties it shortly after answering). */
  sessionCount(): number;
  close(): Promise<void>;
}

/**
 * Serves the fixture over Streamable HTTP (`/mcp`, with sessions) or legacy SSE (`/sse`).
 * With `token`, every request must carry `Authorization: Bearer <token>` (else 401).
 * With `getStatus`, a Streamable HTTP GET (the optional server-to-client stream) gets
 * that status instead, as from servers that do not offer the stream and say 404.
 */
export async function startFixtureHttp(
  kind: "http" | "sse",
  opts: { token?: string; getStatus?: number } = {},
): Promise<FixtureHttp> {
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport | SSEServerTransport }
  >();
  const dropSessions = () => {
    for (const s of sessions.values()) void s.transport.close();
    sessions.clear();
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
        res.writeHead(401).end("unauthorized");
        return;
      }
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (kind === "sse") return await handleSse(req, res, url);
      if (req.method === "GET" && opts.getStatus !== undefined) {
        res.writeHead(opts.getStatus).end("no stream here");
        return;
      }
      const id = req.headers["mcp-session-id"];
      const known = typeof id === "string" ? sessions.get(id) : undefined;
      if (known) {
        return await (known.transport as StreamableHTTPServerTransport).handleRequest(req, res);
      }
      if (typeof id === "string") {
        res.writeHead(404).end(
          JSON.stringify({
            jsonrpc: "2.0",
            error: { code: -32001, message: "Session not found" },
            id: null,
          }),
        );
        return;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, { transport }),
      });
      await buildFixtureServer({ dropSessions }).connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  };

  const handleSse = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, { transport });
      res.on("close", () => sessions.delete(transport.sessionId));
      await buildFixtureServer({ dropSessions }).connect(transport);
      return;
    }
    const known = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && known) {
      return await (known.transport as SSEServerTransport).handlePostMessage(req, res);
    }
    res.writeHead(404).end("unknown session");
  };

  const http = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  const close = async () => {
    dropSessions();
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  };
  return {
    url: `http://127.0.0.1:${port}/${kind === "sse" ? "sse" : "mcp"}`,
    sessionCount: () => sessions.size,
    close,
    [Symbol.asyncDispose]: close,
  };
}

if (import.meta.main) {
  const [mode = "stdio", ...rest] = Deno.args;
  const flag = (name: string) => {
    const i = rest.indexOf(name);
    return i >= 0 ? rest[i + 1] : undefined;
  };
  const delay = Number(flag("--delay-ms") ?? 0);
  if (delay > 0) await sleep(delay);
  const note = flag("--stderr");
  if (note) console.error(note);
  if (mode === "stdio") {
    const server = buildFixtureServer();
    // `--env-tool NAME`: a tool that prints that variable of the server's environment.
    const envName = flag("--env-tool");
    if (envName) {
      server.registerTool(
        "env",
        { description: `Prints ${envName}.` },
        () => text(`${envName}=${Deno.env.get(envName) ?? ""}`),
      );
    }
    await server.connect(new StdioServerTransport());
  } else if (mode === "http" || mode === "sse") {
    const { url } = await startFixtureHttp(mode);
    console.log(JSON.stringify({ url }));
  } else {
    console.error(`unknown mode ${mode}`);
    Deno.exit(2);
  }
}
