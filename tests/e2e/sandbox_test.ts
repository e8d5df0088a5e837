/**
 * Deno as the outer sandbox, end to end: `mopac sandbox` prints flags under which the
 * run works; taking away any one of them ends the run before the first request with
 * exit 2 naming the exact flag; a permission missing mid-run (a host or a path the
 * profile allows but Deno does not) becomes a tool error, never a stack trace.
 */
import assert from "node:assert/strict";
import {
  type ScriptedTurn,
  scriptText,
  scriptToolCall,
  startFakeOpenAI,
} from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { FAKE_ENV, type Workspace, workspace } from "../_support/workspace.ts";
import { JAIL, JAIL_ENV_VARS } from "../_support/jail.ts";

const ENV = { ...FAKE_ENV, GREETING_SOURCE: "hello from the environment" };
const DENO = Deno.execPath();
/** Where bash is offered, the OS jail's bwrap is needed too (unless no jail works here). */
const SHELL = JAIL ? ["bash", "bwrap"] : ["bash"];

/** bash, an MCP tool, then an answer: the run touches every kind of permission. */
const script = (): ScriptedTurn[] => [
  scriptToolCall("bash", { command: 'echo "greeting: $GREETING" > src/out.txt' }),
  scriptToolCall("mcp_fx_echo", { text: "mcp works" }),
  scriptText("all done"),
];

/** A profile with every kind of need: bash, file writes, fetch hosts, an MCP server, env. */
async function sandboxWorkspace(turns: ScriptedTurn[] = script()): Promise<Workspace> {
  const ws = await workspace({ turns }, {
    agents: {
      fixer: {
        allowed_tools: ["bash", "view", "edit", "fetch"],
        allowed_mcp: { fx: ["echo"] },
        fetch: { hosts: ["docs.example.com"] },
      },
    },
    mcp: { fx: fixtureStdio() },
    env: { GREETING: "$GREETING_SOURCE" },
  });
  await Deno.mkdir(`${ws.dir}/src`);
  return ws;
}

/** `--allow-x=a,b` flags as a map from flag name to values. */
function parseFlags(line: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const flag of line.trim().split(/\s+/)) {
    const m = /^(--allow-[a-z]+)(?:=(.*))?$/.exec(flag);
    assert.ok(m, `not a permission flag: ${flag}`);
    out.set(m[1], m[2] === undefined ? [] : m[2].split(","));
  }
  return out;
}

function toFlags(map: Map<string, string[]>): string[] {
  return [...map].map(([flag, values]) => values.length ? `${flag}=${values.join(",")}` : flag);
}

async function printedFlags(ws: Workspace): Promise<Map<string, string[]>> {
  // `mopac sandbox` itself runs under narrow flags too.
  const r = await ws.run(["sandbox", "-a", "fixer"], {
    perms: { ...ws.perms, env: [...Object.keys(ENV), "MOPAC_*"], run: ["bash", DENO] },
    env: ENV,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim().split("\n").length, 1);
  return parseFlags(r.stdout);
}

async function runWith(ws: Workspace, flags: string[], extra: string[] = []) {
  const r = await ws.run(["run", "-a", "fixer", "-o", "stream-json", ...extra, "do it"], {
    perms: {},
    flags,
    env: ENV,
  });
  return { ...r, ev: events(r.stdout) };
}

Deno.test("e2e sandbox: the printed flags are the narrowest set and the run works under them", async () => {
  await using ws = await sandboxWorkspace();
  const flags = await printedFlags(ws);
  const port = ws.fake.port;
  assert.deepEqual(flags.get("--allow-read"), [ws.dir]);
  assert.deepEqual(flags.get("--allow-write"), [ws.dir]);
  // The provider with its port, the fetch host; never the whole network.
  assert.deepEqual(flags.get("--allow-net"), [`127.0.0.1:${port}`, "docs.example.com"]);
  assert.deepEqual(flags.get("--allow-run")?.sort(), [DENO, ...SHELL].sort());
  // The key's variable, the one config `env` references, and the variable that trusts the
  // project (the workspace's mopac.json is the test's own); nothing else.
  assert.deepEqual(
    flags.get("--allow-env"),
    ["FAKE_API_KEY", "GREETING_SOURCE", "MOPAC_*", ...JAIL_ENV_VARS].sort(),
  );
  assert.deepEqual([...flags.keys()].sort(), [
    "--allow-env",
    "--allow-net",
    "--allow-read",
    "--allow-run",
    "--allow-write",
  ]);

  // Exactly those flags, nothing added: the run works.
  const r = await runWith(ws, toFlags(flags));
  assert.equal(r.code, 0, r.stderr);
  const result = r.ev.at(-1)!;
  assert.equal(result.subtype, "success");
  assert.equal(result.result, "all done");
  assert.equal(
    await Deno.readTextFile(`${ws.dir}/src/out.txt`),
    "greeting: hello from the environment\n",
  );
  const mcp = r.ev.find((e) => e.type === "tool_result" && e.name === "mcp_fx_echo")!;
  assert.equal(mcp.is_error, false);
  assert.equal(mcp.output, "mcp works");
  assert.deepEqual(ws.fake.rejected, []);
  assert.equal(ws.fake.turnRequests().length, 3);
});

Deno.test("e2e sandbox: the default coder profile needs the provider's host only; fetch hosts are named", async () => {
  {
    await using ws = await workspace({ turns: [scriptText("ok")] });
    const r = await ws.run(["sandbox"]);
    assert.equal(r.code, 0, r.stderr);
    const flags = parseFlags(r.stdout);
    // fetch is not offered without fetch.hosts: the provider's host:port is all the network.
    assert.deepEqual(flags.get("--allow-net"), [`127.0.0.1:${ws.fake.port}`]);
    assert.deepEqual(flags.get("--allow-run"), SHELL);
    assert.deepEqual(
      flags.get("--allow-env"),
      ["FAKE_API_KEY", "MOPAC_*", ...JAIL_ENV_VARS].sort(),
    );
    const run = await ws.run(["run", "hi"], { perms: {}, flags: r.stdout.trim().split(/\s+/) });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "ok\n");
    const offered = ws.fake.turnRequests()[0].tools?.map((t) => t.function.name) ?? [];
    assert.ok(!offered.includes("fetch"), `fetch offered: ${offered}`);
  }
  // With hosts listed, exactly those hosts (a subdomain glob as Deno takes it).
  await using hosted = await workspace({ turns: [] }, {
    agents: { coder: { fetch: { hosts: ["docs.example.com", "*.pkg.example.org:443"] } } },
  });
  const r = await hosted.run(["sandbox"]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(parseFlags(r.stdout).get("--allow-net"), [
    "*.pkg.example.org:443",
    `127.0.0.1:${hosted.fake.port}`,
    "docs.example.com",
  ]);
});

Deno.test("e2e sandbox: each missing permission is exit 2 naming the exact flag", async () => {
  await using ws = await sandboxWorkspace([]);
  const full = await printedFlags(ws);
  const provider = `127.0.0.1:${ws.fake.port}`;
  const cases: Array<{ drop: [string, string]; named: string; why: RegExp }> = [
    { drop: ["--allow-net", provider], named: `--allow-net=${provider}`, why: /provider/ },
    { drop: ["--allow-run", "bash"], named: "--allow-run=bash", why: /bash tool/ },
    ...(JAIL
      ? [{
        drop: ["--allow-run", "bwrap"] as [string, string],
        named: "--allow-run=bwrap",
        why: /OS jail/,
      }]
      : []),
    { drop: ["--allow-run", DENO], named: `--allow-run=${DENO}`, why: /MCP server "fx"/ },
    {
      drop: ["--allow-write", ws.dir],
      named: `--allow-write=${ws.dir}/.mopac`,
      why: /data dir/,
    },
    { drop: ["--allow-read", ws.dir], named: `--allow-read=${ws.dir}`, why: /working directory/ },
    {
      drop: ["--allow-env", "FAKE_API_KEY"],
      named: "--allow-env=FAKE_API_KEY",
      why: /mopac\.json:\d+:\d+: providers\.fake\.api_key reads \$FAKE_API_KEY/,
    },
    {
      drop: ["--allow-env", "GREETING_SOURCE"],
      named: "--allow-env=GREETING_SOURCE",
      why: /env\.GREETING reads \$GREETING_SOURCE/,
    },
    {
      drop: ["--allow-env", "MOPAC_*"],
      named: "--allow-env=MOPAC_*",
      why: /environment variable MOPAC_[A-Z_]+/,
    },
  ];
  for (const c of cases) {
    const narrowed = new Map(full);
    const [flag, value] = c.drop;
    const left = narrowed.get(flag)!.filter((v) => v !== value);
    assert.notEqual(left.length, narrowed.get(flag)!.length, `${value} was in ${flag}`);
    if (left.length > 0) narrowed.set(flag, left);
    else narrowed.delete(flag);
    const r = await runWith(ws, toFlags(narrowed), ["-o", "json"]);
    const label = `without ${value} in ${flag}`;
    assert.equal(r.code, 2, `${label}: ${r.stderr}`);
    assert.ok(r.stderr.includes(c.named), `${label}: ${r.stderr}`);
    assert.match(r.stderr, c.why, label);
    // The hint gives one flag to add (it may cover more than one missing path).
    assert.match(r.stderr, new RegExp(`hint: add ${escape(c.drop[0])}=`), label);
    assert.doesNotMatch(r.stderr, /\n\s+at |Stack backtrace|internal error/, label);
    // json consumers get a result object carrying the exit code.
    const result = JSON.parse(r.stdout);
    assert.equal(result.exit_code, 2, label);
    assert.equal(result.is_error, true, label);
  }
  // Nothing reached the model.
  assert.equal(ws.fake.requests.length, 0);
  await assert.rejects(Deno.lstat(`${ws.dir}/.mopac/sessions`), Deno.errors.NotFound);
});

Deno.test("e2e sandbox: a small model on another host is part of the flags", async () => {
  // The main model hands a task to the `agent` sub-agent, which runs on the small model.
  // It also writes the session title, in the background.
  const small = await startFakeOpenAI({
    turns: (req) =>
      JSON.stringify(req.messages).includes("Write a title")
        ? scriptText("A title")
        : scriptText("the sub-agent's report"),
    apiKey: "small-key-value",
  });
  await using ws = await workspace({
    turns: [scriptToolCall("agent", { prompt: "look around" }), scriptText("finished")],
  });
  try {
    const file = `${ws.dir}/mopac.json`;
    const config = JSON.parse(await Deno.readTextFile(file));
    config.providers.other = {
      ...config.providers.fake,
      base_url: small.url,
      api_key: "$SMALL_KEY",
    };
    config.models.small = { provider: "other", model: "fake-model" };
    await Deno.writeTextFile(file, JSON.stringify(config));
    const env = { ...FAKE_ENV, SMALL_KEY: "small-key-value" };
    const args = ["--tools", "agent,view"];

    const printed = await ws.run(["sandbox", ...args], { perms: { all: true }, env });
    assert.equal(printed.code, 0, printed.stderr);
    const flags = parseFlags(printed.stdout);
    assert.deepEqual(
      flags.get("--allow-net"),
      [
        `127.0.0.1:${ws.fake.port}`,
        `127.0.0.1:${small.port}`,
      ].sort(),
    );
    assert.deepEqual(flags.get("--allow-env"), [
      "FAKE_API_KEY",
      "MOPAC_*",
      "SMALL_KEY",
    ]);

    // Without the small model's host the run does not start.
    const partial = new Map(flags);
    partial.set("--allow-net", [`127.0.0.1:${ws.fake.port}`]);
    const refused = await ws.run(["run", ...args, "go"], {
      perms: {},
      flags: toFlags(partial),
      env,
    });
    assert.equal(refused.code, 2, refused.stderr);
    assert.ok(
      refused.stderr.includes(`--allow-net=127.0.0.1:${small.port}  (small model)`),
      refused.stderr,
    );
    assert.equal(ws.fake.requests.length + small.requests.length, 0);

    const r = await ws.run(["run", "-o", "stream-json", ...args, "go"], {
      perms: {},
      flags: toFlags(flags),
      env,
    });
    assert.equal(r.code, 0, r.stderr);
    const ev = events(r.stdout);
    const sub = ev.find((e) => e.type === "tool_result" && e.name === "agent")!;
    assert.equal(sub.is_error, false, String(sub.output));
    assert.match(String(sub.output), /the sub-agent's report/);
    assert.equal(ev.at(-1)!.result, "finished");
    assert.deepEqual(small.rejected, []);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await small.close();
  }
});

Deno.test("e2e sandbox: PreToolUse hooks need bash even when the bash tool is not offered", async () => {
  await using ws = await workspace(
    { turns: [scriptToolCall("ls", { path: "." }), scriptText("ok")] },
    {
      hooks: { PreToolUse: [{ command: "cat >/dev/null; exit 0" }] },
    },
  );
  const printed = await ws.run(["sandbox", "-a", "readonly"]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = parseFlags(printed.stdout);
  assert.deepEqual(flags.get("--allow-run"), ["bash"]);
  const without = new Map(flags);
  without.delete("--allow-run");
  const refused = await ws.run(["run", "-a", "readonly", "hi"], {
    perms: {},
    flags: toFlags(without),
  });
  assert.equal(refused.code, 2, refused.stderr);
  assert.ok(refused.stderr.includes("--allow-run=bash  (hooks.PreToolUse)"), refused.stderr);
  assert.equal(ws.fake.requests.length, 0);
  const r = await ws.run(["run", "-a", "readonly", "-o", "json", "hi"], {
    perms: {},
    flags: toFlags(flags),
  });
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.deepEqual(result.denials, []);
  assert.equal(result.result, "ok");
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("e2e sandbox: a permission missing mid-run is a tool error and the run goes on", async () => {
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-unreachable-" }));
  // The profile allows a host and a folder that Deno does not grant.
  await using ws = await workspace({
    turns: [
      scriptToolCall("fetch", { url: "http://127.0.0.1:8/page" }),
      scriptToolCall("edit", {
        file_path: `${outside}/created.txt`,
        old_string: "",
        new_string: "x",
      }),
      scriptToolCall("view", { file_path: `${outside}/secret.txt` }),
      scriptText("carried on"),
    ],
  }, {
    agents: {
      roamer: {
        allowed_tools: ["fetch", "edit", "view"],
        paths: { read: [`${outside}/**`], write: [`${outside}/**`] },
        fetch: { hosts: ["127.0.0.1:8"] },
      },
    },
  });
  await Deno.writeTextFile(`${outside}/secret.txt`, "not for you\n");
  try {
    const r = await ws.run(["run", "-a", "roamer", "-o", "stream-json", "go"]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at |Stack backtrace|internal error/);
    const ev = events(r.stdout);
    const results = ev.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 3);
    for (const res of results) {
      assert.equal(res.is_error, true, JSON.stringify(res));
      assert.equal(res.denied, false, "Deno refused it, not the gate");
      assert.doesNotMatch(String(res.output), /\n\s+at /);
    }
    assert.match(String(results[0].output), /net access to "127\.0\.0\.1:8".*--allow-net/);
    assert.match(
      String(results[1].output),
      /(read|write) access to ".*created\.txt".*--allow-(read|write)/,
    );
    assert.match(String(results[2].output), /read access to ".*secret\.txt".*--allow-read/);
    assert.doesNotMatch(String(results[2].output), /not for you/);
    await assert.rejects(Deno.lstat(`${outside}/created.txt`), Deno.errors.NotFound);
    const result = ev.at(-1)!;
    assert.equal(result.subtype, "success");
    assert.equal(result.result, "carried on");
    assert.deepEqual(result.denials, []);
    assert.deepEqual(ws.fake.rejected, []);
  } finally {
    await Deno.remove(outside, { recursive: true }).catch(() => {});
  }
});
