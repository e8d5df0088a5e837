/**
 * Two mopac processes start with the same expired login. The authorization server
 * rotates refresh tokens (a spent one is refused), so if both refreshed, one would
 * lose the login. The first refresh is held at the server until the other process
 * says it waits for the lock; then both must succeed with the one refreshed token.
 */
import assert from "node:assert/strict";
import { startOAuthFixture } from "../_support/oauth_server.ts";
import { waitFor } from "../_support/wait.ts";
import { expireStoredToken, oauthWorkspace, storedLogins } from "./_oauth.ts";

interface Collected {
  stdout: string;
  stderr: string;
  done: Promise<number>;
}

function collect(child: Deno.ChildProcess): Collected {
  const out: Collected = { stdout: "", stderr: "", done: Promise.resolve(0) };
  const read = async (stream: ReadableStream<Uint8Array>, key: "stdout" | "stderr") => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) out[key] += chunk;
  };
  out.done = Promise.all([read(child.stdout, "stdout"), read(child.stderr, "stderr")])
    .then(() => child.status).then((s) => s.code);
  return out;
}

Deno.test("e2e oauth: two processes with an expired login refresh it once; the second waits", async () => {
  await using fx = startOAuthFixture();
  await using ws = await oauthWorkspace(fx, [], { required: true });
  const children: Deno.ChildProcess[] = [];
  try {
    assert.equal((await ws.login()).code, 0);
    await expireStoredToken(ws);
    const hold = fx.holdRefresh();
    children.push(ws.spawn(["mcp", "tools", "prot"]), ws.spawn(["mcp", "tools", "prot"]));
    const [a, b] = children.map(collect);
    await hold.reached;
    // One process holds the lock (its refresh is held at the server); the other must wait.
    await waitFor(
      () => [a, b].some((p) => p.stderr.includes("waiting for another mopac")),
      "one process to wait for the other's refresh",
      60_000,
    );
    hold.release();
    const codes = await Promise.all([a.done, b.done]);
    assert.deepEqual(codes, [0, 0], a.stderr + b.stderr);
    for (const p of [a, b]) assert.match(p.stdout, /mcp_prot_whoami/);
    assert.equal(fx.counts.refresh, 1, "the refresh token was spent once");

    const [{ data }] = await storedLogins(ws);
    const fresh = (data.tokens as Record<string, string>).access_token;
    assert.ok(fresh.startsWith("at-refresh-"));
    assert.ok(fx.seen.includes(fresh));
    assert.ok(fx.seen.every((t) => t === fresh || t.startsWith("at-code-")), "no other token");
  } finally {
    for (const child of children) {
      try {
        child.kill("SIGKILL");
      } catch {
        // exited already
      }
      await child.status;
    }
  }
});
