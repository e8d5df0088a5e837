/**
 * MCP servers behind OAuth, through the real CLI under narrow Deno flags, against the
 * local authorization server of tests/_support/oauth_server.ts: a headless run never
 * starts a login and names `mopac mcp login`; the login keeps its tokens 0600 in the
 * user's data dir and nowhere else; an expired access token is refreshed; an expired
 * refresh token ends the login with the same message; client_credentials needs no
 * login and stores nothing.
 */
import assert from "node:assert/strict";
import { scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { startOAuthFixture } from "../_support/oauth_server.ts";
import { startFixtureHttp } from "../_support/mcp_fixture_server.ts";
import { fixtureStdio } from "../_support/mcp_helpers.ts";
import { expireStoredToken, oauthWorkspace, OPENER, storedLogins } from "./_oauth.ts";

const toolOutputs = (stdout: string) =>
  events(stdout).filter((e) => e.type === "tool_result").map((e) => String(e.output));

Deno.test("e2e oauth: no login → exit 6 naming `mopac mcp login`; login keeps tokens 0600 outside the project; no token leaks", async () => {
  await using fx = startOAuthFixture();
  await using ws = await oauthWorkspace(fx, [
    scriptToolCall("mcp_prot_whoami", {}),
    scriptToolCall("mcp_prot_echo_token", {}),
    scriptText("done"),
  ], { required: true });
  const before = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(before.code, 6, before.stderr);
  assert.match(before.stderr, /needs a login: run `mopac mcp login prot`/);
  assert.equal(fx.counts.authorize, 0, "a headless run never starts an interactive flow");
  assert.equal(ws.fake.turnRequests().length, 0);

  const login = await ws.login();
  assert.equal(login.code, 0, login.stderr);
  assert.match(
    login.stdout,
    /logged in to MCP server "prot" \(scope "offline_access"\); 2 tools/,
  );
  assert.match(login.stderr, /Open this URL to log in to MCP server "prot":\n {2}http:\/\/127/);
  assert.deepEqual(fx.counts, { authorize: 1, register: 1, refresh: 0, code: 1, client: 0 });

  const [stored, ...more] = await storedLogins(ws);
  assert.deepEqual(more, []);
  assert.equal(stored.mode, 0o600);
  assert.equal((await Deno.stat(`${ws.userData}/mopac/mcp-oauth`)).mode! & 0o777, 0o700);
  assert.ok(!stored.path.startsWith(ws.dir), "logins stay out of the project");

  // Deno's permissions hide the stored login: the message names the flags to add.
  const hidden = await ws.run(["run", "go"], {
    perms: { ...ws.perms, read: [ws.dir], write: [ws.dir] },
  });
  assert.equal(hidden.code, 6);
  const dir = `${ws.userData}/mopac/mcp-oauth`;
  assert.match(hidden.stderr, new RegExp(`add --allow-read=${dir} --allow-write=${dir}`));

  const run = await ws.run(["run", "-o", "stream-json", "--record", "cassette.jsonl", "go"]);
  assert.equal(run.code, 0, run.stderr);
  const [whoami, echoed] = toolOutputs(run.stdout);
  assert.equal(whoami, "token from code");
  assert.equal(echoed, "your token is [REDACTED]");

  // Tokens reach neither the model, nor the project (sessions, logs, index, cassette), nor output.
  const places = [
    { path: "model requests", text: JSON.stringify(ws.fake.turnRequests()) },
    { path: "outputs", text: before.stdout + before.stderr + login.stdout + login.stderr },
    { path: "run output", text: run.stdout + run.stderr },
    ...await ws.filesUnder(ws.dir),
  ];
  assert.ok(places.some((p) => p.path.endsWith("cassette.jsonl")));
  assert.ok(places.some((p) => p.path.includes("/sessions/")));
  for (const token of fx.issued) {
    for (const place of places) {
      assert.ok(!place.text.includes(token), `${token.slice(0, 8)}… leaked into ${place.path}`);
    }
  }
});

Deno.test("e2e oauth: an expired access token is refreshed; an expired refresh token ends the login (exit 6)", async () => {
  await using fx = startOAuthFixture();
  await using ws = await oauthWorkspace(fx, [
    scriptToolCall("mcp_prot_whoami", {}),
    scriptText("done"),
  ], { required: true });
  assert.equal((await ws.login()).code, 0);
  const [{ data: first }] = await expireStoredToken(ws);

  // The stored access token has expired: the run refreshes it first.
  const run = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(toolOutputs(run.stdout), ["token from refresh"]);
  assert.equal(fx.counts.refresh, 1);
  const [{ data: second }] = await storedLogins(ws);
  const tokens = (d: Record<string, unknown>) => d.tokens as Record<string, string>;
  assert.notEqual(tokens(second).refresh_token, tokens(first).refresh_token, "rotated and kept");

  // The refresh token is refused now (expired or revoked): a new login is needed.
  fx.opts.refuseRefresh = true;
  await expireStoredToken(ws);
  const refused = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(refused.code, 6, refused.stderr);
  assert.match(
    refused.stderr,
    /"prot" has an expired login \(the authorization server refused its refresh token: invalid_grant\): run `mopac mcp login prot`/,
  );
  const [{ data: after }] = await storedLogins(ws);
  assert.equal(after.tokens, undefined, "the dead tokens are dropped");
  assert.ok(after.client, "the registration is kept for the next login");
  assert.equal(fx.counts.authorize, 1, "still no interactive flow from a headless run");

  // `mcp list` says the same for the server.
  const list = await ws.run(["mcp", "list", "--json"]);
  assert.equal(list.code, 6, "a required server is down");
  const [status] = JSON.parse(list.stdout).servers;
  assert.equal(status.status, "failed");
  assert.match(status.error, /"prot" needs a login: run `mopac mcp login prot`/);
});

Deno.test("e2e oauth: client_credentials against a local authorization server; nothing stored", async () => {
  await using fx = startOAuthFixture({ clients: { "ci-bot": "cc-secret-4411" } });
  await using ws = await oauthWorkspace(fx, [
    scriptToolCall("mcp_prot_whoami", {}),
    scriptText("done"),
  ], {
    required: true,
    oauth_grant: "client_credentials",
    oauth_client_id: "ci-bot",
    oauth_client_secret: "$CC_SECRET",
  }, { CC_SECRET: "cc-secret-4411" });
  const run = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(toolOutputs(run.stdout), ["token from client"]);
  assert.equal(fx.counts.client, 1);
  assert.equal(fx.counts.authorize, 0);
  assert.deepEqual(await storedLogins(ws), []);
  for (const f of await ws.filesUnder(ws.dir)) {
    assert.ok(!f.text.includes("cc-secret-4411"), `client secret leaked into ${f.path}`);
  }

  // A wrong secret is refused with a message, and the required server ends the run.
  const wrong = await ws.run(["run", "go"], { env: { CC_SECRET: "not-the-secret" } });
  assert.equal(wrong.code, 6);
  assert.match(wrong.stderr, /MCP server "prot": OAuth failed: invalid_client/);
});

Deno.test("e2e oauth: a login whose browser fails keeps the previous login; logout forgets it", async () => {
  await using fx = startOAuthFixture();
  await using ws = await oauthWorkspace(fx, [], { required: true });
  assert.equal((await ws.login()).code, 0);
  const failed = await ws.run(["mcp", "login", "prot", "--open-with", "false"]);
  assert.equal(failed.code, 6);
  assert.match(
    failed.stderr,
    /login to MCP server "prot" failed: .*--open-with false exited with code 1/,
  );
  assert.equal((await ws.run(["mcp", "tools", "prot"])).code, 0, "the old login still works");

  const out = await ws.run(["mcp", "logout", "prot"]);
  assert.equal(out.stdout, 'logged out of MCP server "prot"\n');
  assert.deepEqual(await storedLogins(ws), []);
  const after = await ws.run(["mcp", "tools", "prot"]);
  assert.equal(after.code, 6);
  assert.match(after.stderr, /needs a login: run `mopac mcp login prot`/);
  assert.equal(
    (await ws.run(["mcp", "logout", "prot"])).stdout,
    'no stored login for MCP server "prot"\n',
  );
});

Deno.test("e2e oauth: a legacy SSE server behind OAuth (login, then a run)", async () => {
  await using sse = await startFixtureHttp("sse");
  await using fx = startOAuthFixture({ upstream: sse.url });
  await using ws = await oauthWorkspace(fx, [
    scriptToolCall("mcp_prot_echo", { text: "over sse" }),
    scriptText("done"),
  ], { type: "sse", required: true });
  const login = await ws.login();
  assert.equal(login.code, 0, login.stderr);
  const run = await ws.run(["run", "-o", "stream-json", "go"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(toolOutputs(run.stdout), ["over sse"]);
  // The event stream (GET) and the messages (POST) both carried the token.
  assert.ok(fx.seen.length >= 3, String(fx.seen.length));
});

Deno.test("e2e oauth: login and logout start no OS jail for the config's sandbox servers", async () => {
  await using fx = startOAuthFixture();
  await using ws = await oauthWorkspace(fx, []);
  // A stdio server in the jail besides the OAuth one; Deno does not grant bwrap.
  const config = JSON.parse(await Deno.readTextFile(`${ws.dir}/mopac.json`));
  config.mcp.jailed = { ...fixtureStdio(), sandbox: true };
  await Deno.writeTextFile(`${ws.dir}/mopac.json`, JSON.stringify(config));
  const mopac = (args: string[]) =>
    ws.run(args, {
      perms: { ...ws.perms, run: ws.perms.run!.filter((c) => c !== "bwrap") },
      env: { MOPAC_SANDBOX: "on" },
    });
  const list = await mopac(["mcp", "list"]);
  assert.equal(list.code, 2, list.stderr);
  assert.match(list.stderr, /bwrap/, "the jail fails closed for the sandbox server");

  const login = await mopac(["mcp", "login", "prot", "--open-with", OPENER]);
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /logged in to MCP server "prot"/);
  assert.equal((await mopac(["mcp", "logout", "prot"])).code, 0);
});
