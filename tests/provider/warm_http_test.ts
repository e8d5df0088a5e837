/**
 * The HTTP warm-up a run does while the jail's probe runs: it works under the
 * narrowest Deno flags (no permission at all) and never fails the run.
 */
import assert from "node:assert/strict";
import { warmHttp } from "../../src/provider/warm_http.ts";

Deno.test("the warm-up fetches with no Deno permission at all", async () => {
  const module = new URL("../../src/provider/warm_http.ts", import.meta.url).href;
  // Records what the warm-up's fetch gave, so a failure it swallows still shows.
  const script = `
    const real = globalThis.fetch;
    let seen = "not called";
    globalThis.fetch = (...a) => real(...a).then(
      (r) => { seen = String(r.status); return r; },
      (e) => { seen = e.name; throw e; },
    );
    const { warmHttp } = await import(${JSON.stringify(module)});
    await warmHttp();
    console.log(seen);
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", "--no-config", "--no-lock", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = out.stdin.getWriter();
  await w.write(new TextEncoder().encode(script));
  await w.close();
  const { code, stdout, stderr } = await out.output();
  const err = new TextDecoder().decode(stderr);
  assert.equal(code, 0, err);
  assert.equal(new TextDecoder().decode(stdout).trim(), "200", err);
});

Deno.test("a fetch that throws or rejects leaves the warm-up resolved", async () => {
  const real = globalThis.fetch;
  try {
    globalThis.fetch = () => {
      throw new TypeError("no fetch here");
    };
    assert.equal(await warmHttp(), undefined);
    globalThis.fetch = () => Promise.reject(new Deno.errors.NotCapable("net"));
    assert.equal(await warmHttp(), undefined);
  } finally {
    globalThis.fetch = real;
  }
});
