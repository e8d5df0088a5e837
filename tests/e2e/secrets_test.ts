/**
 * Secrets end to end: a run whose config carries an API key from the environment, a
 * provider header, a bearer header of an HTTP MCP server and other variables that
 * config references leaves none of their values in any file under the data dir (the
 * session JSONL, index.db and its WAL, logs) nor on stdout or stderr, even when the
 * model says a key out loud, puts it in a tool call, and a tool prints one back.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ScriptedTurn, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { startFixtureHttp } from "../_support/mcp_fixture_server.ts";
import { FIXTURE } from "../_support/mcp_helpers.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { DENO_RUN, START_TIMEOUT_S } from "../_support/deps.ts";

const SECRETS = {
  FAKE_API_KEY: FAKE_ENV.FAKE_API_KEY,
  MCP_TOKEN: "mcp-tok-9f8e7d6c5b4a",
  HEADER_SECRET: "hdr-val-1a2b3c4d5e6f",
  PROJECT_SECRET: "proj-val-Zq81Xw72Yv63",
  LOG_SECRET: "log-val-Pp09Oo98Ii87",
};
const VALUES = Object.values(SECRETS);

interface SecretWorkspace extends AsyncDisposable {
  ws: Workspace;
  close(): Promise<void>;
}

/** The key spoken in text, split over many small stream chunks. */
const leakyScript = (): ScriptedTurn[] => [
  scriptText(`Thinking out loud: the key is ${SECRETS.FAKE_API_KEY}. `, { chunkSize: 3 }),
];

/** Every other way to leak: tool input, bash output, MCP output, the final text. */
function toolTurns(): ScriptedTurn[] {
  return [
    scriptToolCall("bash", { command: "env" }),
    scriptToolCall("bash", {
      command: `echo "project: $PROJECT_VAR; key: ${SECRETS.FAKE_API_KEY}"`,
    }),
    scriptToolCall("mcp_remote_echo", { text: `token ${SECRETS.MCP_TOKEN}` }),
    scriptToolCall("mcp_local_env", {}),
    scriptText(
      `Done. Key ${SECRETS.FAKE_API_KEY}, header ${SECRETS.HEADER_SECRET}, ` +
        `project ${SECRETS.PROJECT_SECRET}.`,
      { chunkSize: 5 },
    ),
  ];
}

async function secretWorkspace(turns: ScriptedTurn[]): Promise<SecretWorkspace> {
  const mcp = await startFixtureHttp("http", { token: SECRETS.MCP_TOKEN });
  const ws = await workspace({ turns, apiKey: SECRETS.FAKE_API_KEY }, {
    mcp: {
      remote: {
        type: "http",
        url: mcp.url,
        headers: { Authorization: "Bearer $MCP_TOKEN" },
        enabled_tools: ["echo"],
      },
      // A stdio server that writes a referenced variable's value to its stderr log.
      local: {
        type: "stdio",
        command: Deno.execPath(),
        args: [
          ...DENO_RUN,
          "-A",
          FIXTURE,
          "stdio",
          "--stderr",
          "starting with $LOG_SECRET",
          "--env-tool",
          "SERVER_TOKEN",
        ],
        // The server holds a secret in its environment and has a tool that prints it.
        env: { SERVER_TOKEN: "$MCP_TOKEN" },
        enabled_tools: ["echo", "env"],
        start_timeout: START_TIMEOUT_S,
      },
    },
    // Config passes a secret to bash on purpose.
    env: { PROJECT_VAR: "$PROJECT_SECRET" },
  });
  // The provider gets a secret header too.
  const file = `${ws.dir}/mopac.json`;
  const config = JSON.parse(await Deno.readTextFile(file));
  config.providers.fake.extra_headers = { "X-Team-Secret": "$HEADER_SECRET" };
  await Deno.writeTextFile(file, JSON.stringify(config, null, 2));
  ws.perms.net!.push(new URL(mcp.url).host);
  ws.perms.run!.push(Deno.execPath());
  ws.perms.env = [...(ws.perms.env as string[]), ...Object.keys(SECRETS)];
  const close = async () => {
    await ws.close();
    await mcp.close();
  };
  return {
    ws,
    close,
    [Symbol.asyncDispose]: close,
  };
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

/** Every file under the data dir, as bytes read raw (index.db and its -wal included). */
async function dataFiles(dataDir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for await (const path of walk(dataDir)) out.set(path, await Deno.readFile(path));
  return out;
}

function assertNoSecret(where: string, bytes: Uint8Array | string) {
  // latin1 keeps every byte as one char, so a value inside a binary page is still found.
  const text = typeof bytes === "string" ? bytes : new TextDecoder("latin1").decode(bytes);
  for (const value of VALUES) {
    assert.ok(!text.includes(value), `${where} contains the secret ${value}`);
  }
}

async function runLeaky(s: SecretWorkspace, format: string) {
  const r = await s.ws.run(["run", "-o", format, "-v", "show me everything"], {
    env: { ...SECRETS },
  });
  assert.equal(r.code, 0, r.stderr);
  return r;
}

Deno.test("e2e secrets: no secret reaches the data dir, stdout or stderr (stream-json)", async () => {
  await using s = await secretWorkspace(toolTurns());
  const r = await runLeaky(s, "stream-json");
  const ev = events(r.stdout);
  // The secrets were really in play: the provider got the key and the header, the
  // MCP server accepted the bearer token, bash saw the variable.
  const req = s.ws.fake.requests[0];
  assert.equal(req.headers.authorization, `Bearer ${SECRETS.FAKE_API_KEY}`);
  assert.equal(req.headers["x-team-secret"], SECRETS.HEADER_SECRET);
  const init = ev[0] as { mcp_servers: Array<{ name: string; status: string }> };
  assert.deepEqual(
    init.mcp_servers.map((m) => `${m.name}:${m.status}`).sort(),
    ["local:connected", "remote:connected"],
  );
  const results = ev.filter((e) => e.type === "tool_result");
  assert.equal(results.length, 4);
  assert.ok(results.every((e) => e.is_error === false), JSON.stringify(results));
  assert.match(String(results[1].output), /project: \[REDACTED\]; key: \[REDACTED\]/);
  assert.match(String(results[2].output), /token \[REDACTED\]/);
  // The MCP server really held the secret, and printed it: the model got it redacted.
  assert.equal(String(results[3].output), "SERVER_TOKEN=[REDACTED]");
  // bash's environment holds what config passes on explicitly (redacted for the model
  // all the same).
  const envSeen = JSON.stringify(s.ws.fake.turnRequests()[1].messages.at(-1));
  assert.ok(envSeen.includes("PROJECT_VAR=[REDACTED]"), envSeen);
  // No tool result the model was sent holds a secret value.
  for (const q of s.ws.fake.turnRequests()) {
    for (const m of q.messages.filter((m) => m.role === "tool")) {
      assertNoSecret("a tool result sent to the model", JSON.stringify(m));
    }
  }

  assertNoSecret("stdout", r.stdout);
  assertNoSecret("stderr", r.stderr);
  const files = await dataFiles(`${s.ws.dir}/.mopac`);
  const names = [...files.keys()].map((p) => p.slice(s.ws.dir.length + 1));
  assert.ok(names.some((n) => /^\.mopac\/sessions\/.+\.jsonl$/.test(n)), names.join(", "));
  assert.ok(names.includes(".mopac/index.db"), names.join(", "));
  assert.ok(names.some((n) => n.startsWith(".mopac/logs/")), names.join(", "));
  for (const [path, bytes] of files) assertNoSecret(path, bytes);
  // The log holds the server's stderr line, redacted.
  const log = [...files].find(([p]) => p.includes("/logs/"))!;
  assert.match(new TextDecoder().decode(log[1]), /starting with \[REDACTED\]/);
  assert.deepEqual(s.ws.fake.rejected, []);
});

Deno.test("e2e secrets: text and json output redact keys in text, tool calls and progress", async () => {
  for (const format of ["text", "json"]) {
    await using s = await secretWorkspace([...toolTurns().slice(0, -1), ...leakyScript()]);
    const r = await runLeaky(s, format);
    assertNoSecret(`${format} stdout`, r.stdout);
    assertNoSecret(`${format} stderr`, r.stderr);
    const shown = format === "json" ? JSON.parse(r.stdout).result : r.stdout;
    assert.match(shown, /the key is \[REDACTED\]\./);
    if (format === "text") {
      // -v shows each tool call's input on stderr: redacted too.
      assert.match(
        r.stderr,
        /→ bash \{"command":"echo \\"project: \$PROJECT_VAR; key: \[REDACTED\]/,
      );
    }
    for (const [path, bytes] of await dataFiles(`${s.ws.dir}/.mopac`)) {
      assertNoSecret(path, bytes);
    }
  }
});
