/**
 * A tiny MCP stdio server (raw JSON-RPC, no SDK) whose one tool reports what its
 * process can do: the environment it got, a TCP connection to a port, a write
 * outside the workspace, a read of a file. The jail tests run it `sandbox: true`.
 */
const enc = new TextEncoder();
const reply = (id: unknown, result: unknown) =>
  Deno.stdout.write(enc.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n"));

async function probe(args: { port: number; write: string; read: string }) {
  const report: Record<string, string> = {};
  report.env = JSON.stringify(Deno.env.toObject());
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port: args.port });
    await c.write(enc.encode("from mcp"));
    c.close();
    report.connect = "connected";
  } catch (e) {
    report.connect = (e as Error).name;
  }
  try {
    await Deno.writeTextFile(args.write, "x");
    report.write = "written";
  } catch (e) {
    report.write = (e as Error).name;
  }
  try {
    report.read = await Deno.readTextFile(args.read);
  } catch (e) {
    report.read = (e as Error).name;
  }
  report.pid1 = await Deno.readTextFile("/proc/1/comm").catch(() => "?");
  return report;
}

let buf = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const msg = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (msg.id === undefined) continue;
    if (msg.method === "initialize") {
      await reply(msg.id, {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "probe", version: "1" },
      });
    } else if (msg.method === "tools/list") {
      await reply(msg.id, {
        tools: [{
          name: "probe",
          description: "reports what this process can do",
          inputSchema: {
            type: "object",
            properties: {
              port: { type: "number" },
              write: { type: "string" },
              read: { type: "string" },
            },
            required: ["port", "write", "read"],
          },
        }],
      });
    } else if (msg.method === "tools/call") {
      const report = await probe(msg.params.arguments);
      await reply(msg.id, { content: [{ type: "text", text: JSON.stringify(report) }] });
    } else {
      await reply(msg.id, {});
    }
  }
}
