/**
 * `mopac mcp add|remove` end to end: the user's config file gains and loses a server
 * with its comments and layout kept, a run then offers the added server's tools, and
 * bad input is exit 2 with the file unchanged.
 */
import assert from "node:assert/strict";
import { parse as parseJsonc } from "jsonc-parser";
import { scriptText } from "../_support/fake_openai.ts";
import { FIXTURE } from "../_support/mcp_helpers.ts";
import { DENO_RUN } from "../_support/deps.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";
import { DENO, toolNames } from "./_mcp_run.ts";

const USER_CONFIG = `// my settings: keep this comment
{
    /* limits I like */
    "limits": { "max_turns": 40 }, // trailing note
    "mcp": {
        // the servers I use
    }
}
`;

async function userWorkspace(turns = [scriptText("ok")]) {
  const ws = await workspace({ turns });
  const xdg = `${ws.dir}/xdg`;
  await Deno.mkdir(`${xdg}/mopac`, { recursive: true });
  await Deno.writeTextFile(`${xdg}/mopac/mopac.json`, USER_CONFIG);
  ws.perms.env = [...(ws.perms.env as string[]), "XDG_CONFIG_HOME"];
  ws.perms.run!.push(DENO);
  return { ws, file: `${xdg}/mopac/mopac.json`, env: { XDG_CONFIG_HOME: xdg } };
}

const mopac = (u: { ws: Workspace; env: Record<string, string> }, args: string[]) =>
  u.ws.run(args, { env: u.env });

Deno.test("e2e mcp add/remove: edits the user's file, keeping comments; a run uses the server", async () => {
  const u = await userWorkspace();
  await using _ws = u.ws;
  let r = await mopac(u, [
    "mcp",
    "add",
    "fx",
    "--env",
    "FX_MODE=test",
    "--required",
    "--",
    DENO,
    ...DENO_RUN,
    "-A",
    FIXTURE,
    "stdio",
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /added MCP server "fx" to .*xdg\/mopac\/mopac\.json/);
  r = await mopac(u, [
    "mcp",
    "add",
    "web",
    "--url",
    "http://127.0.0.1:9/mcp",
    "--header",
    "Authorization=Bearer $WEB_TOKEN",
  ]);
  assert.equal(r.code, 0, r.stderr);
  let text = await Deno.readTextFile(u.file);
  for (
    const kept of [
      "// my settings: keep this comment",
      "/* limits I like */",
      "// trailing note",
      "// the servers I use",
    ]
  ) {
    assert.ok(text.includes(kept), `${kept} is kept:\n${text}`);
  }
  assert.match(text, /\n {8}"fx": \{\n {12}"type": "stdio",/, "the file's 4-space indent");
  const value = parseJsonc(text);
  assert.deepEqual(value.mcp.fx.env, { FX_MODE: "test" });
  assert.equal(value.mcp.fx.required, true);
  assert.deepEqual(value.mcp.web, {
    type: "http",
    url: "http://127.0.0.1:9/mcp",
    headers: { Authorization: "Bearer $WEB_TOKEN" },
  });

  // The config now has the server, from the user's file.
  r = await mopac(u, ["config", "show", "--sources"]);
  assert.match(r.stdout, /^mcp\.fx\.command\t.*xdg\/mopac\/mopac\.json$/m);
  r = await mopac(u, ["mcp", "remove", "web"]);
  assert.equal(r.code, 0, r.stderr);
  // A run offers the added server's tools.
  r = await mopac(u, ["run", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(toolNames(u.ws.fake.turnRequests()[0]).some((n) => n.startsWith("mcp_fx_")));

  r = await mopac(u, ["mcp", "remove", "fx"]);
  assert.equal(r.code, 0, r.stderr);
  text = await Deno.readTextFile(u.file);
  assert.doesNotMatch(text, /"fx"|"web"/);
  assert.ok(text.includes("// the servers I use") && text.includes("// my settings"));
});

Deno.test("e2e mcp add/remove: bad input is exit 2 and leaves the file as it was", async () => {
  const u = await userWorkspace();
  await using _ws = u.ws;
  assert.equal((await mopac(u, ["mcp", "add", "fx", "--", "echo"])).code, 0);
  const before = await Deno.readTextFile(u.file);
  const cases: Array<[string[], RegExp]> = [
    [["mcp", "add", "fx", "--", "other"], /has a server "fx" already/],
    [["mcp", "add", "two"], /needs either -- COMMAND \[ARGS…\] or --url URL/],
    [["mcp", "add", "two", "--url", "http://h/mcp", "--", "cmd"], /not both/],
    [["mcp", "add", "two", "--url", "http://h/mcp", "--type", "grpc"], /--type takes http or sse/],
    [
      ["mcp", "add", "two", "--url", "http://h/mcp", "--env", "A=1"],
      /--env and --env-var are for stdio/,
    ],
    [["mcp", "add", "two", "--env", "NOEQUALS", "--", "cmd"], /--env NOEQUALS: expected KEY=VALUE/],
    [["mcp", "add", "bad.name", "--", "cmd"], /a server name is letters, digits/],
    [["mcp", "add", "two", "--env-var", "1BAD", "--", "cmd"], /env_vars\.0: not a variable name/],
    [["mcp", "add", "two", "--frob", "--", "cmd"], /mcp add: Unknown option '--frob'/],
    [["mcp", "remove", "nosuch"], /no server "nosuch"/],
  ];
  for (const [args, message] of cases) {
    const r = await mopac(u, args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
  }
  assert.equal(await Deno.readTextFile(u.file), before);
  // --force replaces.
  const r = await mopac(u, ["mcp", "add", "fx", "--force", "--", "other", "arg"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(await Deno.readTextFile(u.file), /"command": "other"/);
});

Deno.test("e2e mcp add: a missing user file and folder are created", async () => {
  await using ws = await workspace({ turns: [] });
  ws.perms.env = [...(ws.perms.env as string[]), "XDG_CONFIG_HOME"];
  const xdg = `${ws.dir}/fresh`;
  const r = await ws.run([
    "mcp",
    "add",
    "gh",
    "--env-var",
    "GITHUB_TOKEN",
    "--",
    "github-mcp-server",
    "stdio",
  ], {
    env: { XDG_CONFIG_HOME: xdg },
  });
  assert.equal(r.code, 0, r.stderr);
  const value = JSON.parse(await Deno.readTextFile(`${xdg}/mopac/mopac.json`));
  assert.deepEqual(value, {
    mcp: {
      gh: {
        type: "stdio",
        command: "github-mcp-server",
        args: ["stdio"],
        env_vars: ["GITHUB_TOKEN"],
      },
    },
  });
  assert.equal((await Deno.stat(`${xdg}/mopac/mopac.json`)).mode! & 0o777, 0o600);
});
