import assert from "node:assert/strict";
import { runBounded } from "../../src/util/subprocess.ts";

Deno.test("runBounded: output and exit code; stderr apart", async () => {
  const r = await runBounded("bash", {
    args: ["-c", "echo out; echo err >&2; exit 3"],
    cwd: Deno.cwd(),
    timeoutMs: 30_000,
  });
  assert.deepEqual(r, {
    kind: "exit",
    code: 3,
    success: false,
    stdout: "out\n",
    stderr: "err\n",
    cut: false,
  });
});

Deno.test("runBounded: stopWhenFull stops a command that would print forever", async () => {
  const r = await runBounded("yes", {
    args: [],
    cwd: Deno.cwd(),
    timeoutMs: 30_000,
    maxBytes: 1_000,
    stopWhenFull: true,
    ignoreStderr: true,
  });
  assert.equal(r.kind, "exit");
  if (r.kind !== "exit") return;
  assert.equal(r.cut, true);
  assert.equal(r.stdout, "y\n".repeat(500));
});

Deno.test("runBounded: stdin is written and closed; the deadline ends a command and its group", async () => {
  const echoed = await runBounded("bash", {
    args: ["-c", "cat"],
    cwd: Deno.cwd(),
    stdin: "payload",
    timeoutMs: 30_000,
  });
  assert.equal(echoed.kind === "exit" && echoed.stdout, "payload");
  const slow = await runBounded("bash", {
    args: ["-c", "sleep 30 & sleep 30; echo never"],
    cwd: Deno.cwd(),
    timeoutMs: 200,
  });
  assert.deepEqual(slow, { kind: "timeout" });
});

Deno.test("runBounded: with a pipe grace, a background child holding stdout does not hold the result", async () => {
  const r = await runBounded("bash", {
    args: ["-c", "sleep 3 & echo hi"],
    cwd: Deno.cwd(),
    timeoutMs: 30_000,
    pipeGraceMs: 100,
  });
  assert.equal(r.kind === "exit" && r.stdout, "hi\n");
});
