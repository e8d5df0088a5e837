/**
 * A deliberately misbehaving MCP server over stdio. It speaks raw newline-delimited
 * JSON-RPC (no SDK), so it can break the protocol in ways an SDK server never would.
 *
 *   deno run mcp_bad_server.ts MODE [--stderr-mb N]
 *
 * Modes (how it behaves up to and including tools/list):
 *   ok          behaves; only the tools below misbehave
 *   garbage     non-JSON lines, a JSON line that is not JSON-RPC and a malformed
 *               JSON-RPC line on stdout before and after initialize and before each answer
 *   init-error  answers initialize with a JSON-RPC error
 *   init-silent never answers initialize
 *   bad-tools   tools/list returns BAD_TOOLS (bad names, duplicates, bad schemas) + echo
 * --stderr-mb N writes N MiB to stderr before it answers initialize.
 * --init-delay-ms N answers initialize N ms late (a server slow to start up).
 *
 * Tools (every mode): echo, unknown_type, huge_text {mb}, bad_image, error_no_content,
 * rpc_error, wrong_id, no_answer, exit (dies mid-call), weird_result, flood_line {mb}
 * (a line of that many MiB without JSON, then the answer), shout {mb}
 * (stderr), storm {count} (that many tools/list_changed, then a new tool `extra`),
 * stats ({pid, lists}: how many tools/list requests this process answered).
 */

type Json = Record<string, unknown>;
type Id = string | number;

const mode = Deno.args[0] ?? "ok";
const flag = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};

const encoder = new TextEncoder();
const TINY_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
export const HUGE_HEAD = "HUGE-HEAD-MARK";
export const HUGE_TAIL = "HUGE-TAIL-MARK";
export const LONG_TOOL = "t".repeat(200);

const obj = (properties: Json = {}) => ({ type: "object", properties });
const TOOLS = [
  "echo",
  "unknown_type",
  "huge_text",
  "bad_image",
  "error_no_content",
  "rpc_error",
  "wrong_id",
  "no_answer",
  "exit",
  "weird_result",
  "flood_line",
  "shout",
  "storm",
  "stats",
].map((name) => ({ name, description: `bad server tool ${name}`, inputSchema: obj() }));

/** What `bad-tools` lists besides echo: each entry breaks one rule. */
export const BAD_TOOLS: unknown[] = [
  { name: "has spaces in it", inputSchema: obj({ q: { type: "string" } }) },
  { name: "ünïcødé-ツール", inputSchema: obj() },
  { name: LONG_TOOL, inputSchema: obj() },
  { name: "dup", description: "first dup", inputSchema: obj() },
  { name: "dup", description: "second dup", inputSchema: obj() },
  { name: "no_schema" },
  { name: "string_schema", inputSchema: "not a schema" },
  { name: "array_type", inputSchema: { type: "array", items: { type: "string" } } },
  {
    name: "ref_schema",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $ref: "#/$defs/Args",
      $defs: { Args: obj({ path: { type: "string" } }) },
    },
  },
  {
    name: "one_of",
    inputSchema: {
      oneOf: [
        { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
        { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
      ],
    },
  },
  {
    name: "odd_keywords",
    inputSchema: {
      type: "object",
      properties: {
        when: { type: "string", format: "date-time", "x-widget": "calendar" },
        tags: { type: "array" },
        nested: { type: "object" },
        bad_required: { type: "object", properties: {}, required: "yes" },
      },
      required: ["when", 7, "missing"],
      if: { properties: { when: { const: "now" } } },
      then: { required: ["tags"] },
      patternProperties: { "^x": { type: "string" } },
      dependentSchemas: { when: { required: ["tags"] } },
    },
  },
  { name: "bad_type", inputSchema: obj({ a: { type: "strin" } }) },
  { name: "dangling_ref", inputSchema: obj({ a: { $ref: "#/$defs/Missing" } }) },
  { name: 42, inputSchema: obj() },
  { description: "a tool without a name", inputSchema: obj() },
  "not even an object",
];

let lists = 0;
let storms = 0;

async function writeAll(out: { write(p: Uint8Array): Promise<number> }, bytes: Uint8Array) {
  while (bytes.length > 0) bytes = bytes.subarray(await out.write(bytes));
}

// One write at a time: a 10 MiB answer must not interleave with a notification.
let writing = Promise.resolve();
const out = (line: string) =>
  writing = writing.then(() => writeAll(Deno.stdout, encoder.encode(line + "\n")));
const send = (msg: Json) => out(JSON.stringify({ jsonrpc: "2.0", ...msg }));
const reply = (id: Id, result: unknown) => send({ id, result });
const text = (t: string) => ({ content: [{ type: "text", text: t }] });

async function garbage(where: string) {
  if (mode !== "garbage") return;
  // One write: an answer to a request read meanwhile must not land between the lines,
  // or the client could see that answer (and the test look) before the rest of them.
  await out([
    `this is not json (${where})`,
    `{"hello": "a JSON line that is not JSON-RPC (${where})"}`,
    `{"jsonrpc": "2.0", "id": {"nested": true}, "result": 1}`,
    `[1, 2, 3`,
  ].join("\n"));
}

async function stderrMiB(mb: number) {
  const chunk = encoder.encode(`${"e".repeat(1023)}\n`.repeat(64)); // 64 KiB
  for (let i = 0; i < mb * 16; i++) await writeAll(Deno.stderr, chunk);
}

function hugeText(mb: number): string {
  const line = `${"0123456789".repeat(9)}abcdefghi\n`; // 100 bytes
  const body = line.repeat(Math.ceil((mb * 1024 * 1024) / line.length));
  return `${HUGE_HEAD}\n${body}${HUGE_TAIL}`;
}

async function call(id: Id, name: string, args: Json): Promise<void> {
  await garbage(`before ${name}`);
  switch (name) {
    case "echo":
      return reply(id, text(String(args.text ?? "")));
    case "unknown_type":
      return reply(id, {
        content: [{ type: "hologram", frequency: 42 }, { type: "text", text: "after hologram" }],
      });
    case "huge_text":
      return reply(id, text(hugeText(Number(args.mb ?? 10))));
    case "bad_image":
      return reply(id, {
        content: [
          { type: "image", data: "!!!not base64!!!", mimeType: "image/png" },
          { type: "image", data: TINY_PNG, mimeType: "text/html" },
          { type: "image", data: btoa("plain words, not a picture"), mimeType: "image/png" },
          { type: "image", data: TINY_PNG.replace(/(.{20})/g, "$1\n"), mimeType: "image/png" },
        ],
      });
    case "error_no_content":
      return reply(id, { isError: true });
    case "rpc_error":
      return send({
        id,
        error: { code: -32000, message: "backend exploded", data: { table: "users" } },
      });
    case "wrong_id":
      return reply(`not-${id}`, text("answer with the wrong id"));
    case "no_answer":
      return;
    case "exit":
      await writeAll(Deno.stderr, encoder.encode("bad server: exiting mid-call\n"));
      Deno.exit(3);
      break;
    case "flood_line": {
      // One line with no end in sight, then the real answer on the next line.
      const chunk = "x".repeat(1024 * 1024);
      for (let i = 0; i < Number(args.mb ?? 70); i++) {
        await (writing = writing.then(() => writeAll(Deno.stdout, encoder.encode(chunk))));
      }
      await out("");
      return reply(id, text("after the flood"));
    }
    case "weird_result":
      return reply(id, { content: "a string, not a list", isError: "maybe" });
    case "shout":
      await stderrMiB(Number(args.mb ?? 8));
      return reply(id, text("shouted"));
    case "storm": {
      storms++;
      const count = Number(args.count ?? 1000);
      for (let i = 0; i < count; i++) await send({ method: "notifications/tools/list_changed" });
      return reply(id, text(`stormed ${count}`));
    }
    case "extra":
      return reply(id, text("extra tool answered"));
    case "stats":
      return reply(id, text(JSON.stringify({ pid: Deno.pid, lists })));
    default:
      return send({ id, error: { code: -32602, message: `unknown tool ${name}` } });
  }
}

async function handle(msg: Json): Promise<void> {
  const id = msg.id as Id | undefined;
  const params = (msg.params ?? {}) as Json;
  switch (msg.method) {
    case "initialize":
      if (mode === "init-silent") return;
      await stderrMiB(flag("--stderr-mb", 0));
      await new Promise((r) => setTimeout(r, flag("--init-delay-ms", 0)));
      if (mode === "init-error") {
        return send({ id, error: { code: -32603, message: "license check failed" } });
      }
      await reply(id!, {
        protocolVersion: params.protocolVersion ?? "2025-06-18",
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "mopac-bad-server", version: "0.0.1" },
      });
      return garbage("after initialize");
    case "tools/list": {
      lists++;
      const tools = mode === "bad-tools" ? [...BAD_TOOLS, TOOLS[0]] : [...TOOLS];
      if (storms > 0) {
        tools.push({ name: "extra", description: "after a storm", inputSchema: obj() });
      }
      return reply(id!, { tools });
    }
    case "tools/call":
      return call(id!, String(params.name), (params.arguments ?? {}) as Json);
    case "ping":
      return reply(id!, {});
    default:
      if (id !== undefined) {
        await send({ id, error: { code: -32601, message: `no method ${msg.method}` } });
      }
  }
}

async function serve(): Promise<void> {
  await garbage("at startup");
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      // Calls run concurrently, so a call that never answers blocks nothing else.
      if (line.trim() !== "") void handle(JSON.parse(line));
    }
  }
}

if (import.meta.main) await serve();
