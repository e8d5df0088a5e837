/**
 * The one owner of SIGINT and SIGTERM (src/util/interrupts.ts), in real processes:
 * a signal aborts the owner's signal and makes the exit code 130/143; a process that
 * does not end on its own is ended after the grace period or at a second signal, its
 * last words run (the last registered first); a settled ending keeps its code.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const PROBE = fileURLToPath(new URL("./_interrupts_probe.ts", import.meta.url));

async function signalled(
  args: string[],
  signals: Deno.Signal[],
): Promise<{ code: number; stdout: string; ms: number }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", `--allow-read=${PROBE}`, PROBE, ...args],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("ready")) {
    const { value, done } = await stderr.read();
    if (done) break;
    seen += value;
  }
  const t0 = performance.now();
  for (const [i, s] of signals.entries()) {
    // Two signals pending at once are one signal to the kernel: let the first land.
    if (i > 0) await new Promise((r) => setTimeout(r, 200));
    child.kill(s);
  }
  const [out, status] = await Promise.all([new Response(child.stdout).text(), child.status]);
  await stderr.cancel();
  return { code: status.code, stdout: out, ms: performance.now() - t0 };
}

Deno.test({
  name: "interrupts: a signal aborts the owner's signal and gives 130 or 143",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const term = await signalled(["cooperative"], ["SIGTERM"]);
    assert.equal(term.code, 143);
    assert.equal(term.stdout, "aborted: InterruptedError: interrupted by SIGTERM\n");
    const int = await signalled(["cooperative"], ["SIGINT"]);
    assert.equal(int.code, 130);
  },
});

Deno.test({
  name: "interrupts: a process that does not end is ended after the grace, last words first",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const r = await signalled(["stuck", "300"], ["SIGTERM"]);
    assert.equal(r.code, 143);
    assert.equal(r.stdout, "last registered, runs first\nfirst registered, runs last\n");
    assert.ok(r.ms >= 250, `ended after ${r.ms} ms, before the grace period`);
  },
});

Deno.test({
  name: "interrupts: a second signal ends it at once",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    // A grace far beyond the test's patience: only the second signal can end it.
    const r = await signalled(["stuck", "600000"], ["SIGINT", "SIGINT"]);
    assert.equal(r.code, 130);
    assert.match(r.stdout, /runs first/);
  },
});

Deno.test({
  name: "interrupts: after settle a signal no longer changes the exit code",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const r = await signalled(["settled", "200"], ["SIGTERM"]);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, "last words\n");
  },
});

Deno.test("interrupts: nothing else in src/ or main.ts listens for signals itself", () => {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const offenders: string[] = [];
  const visit = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) visit(path);
      else if (e.name.endsWith(".ts") && path !== `${root}src/util/interrupts.ts`) {
        const text = Deno.readTextFileSync(path);
        if (/\b(add|remove)SignalListener\b|process\.on\(\s*["']SIG/.test(text)) {
          offenders.push(path);
        }
      }
    }
  };
  visit(`${root}src`);
  const main = Deno.readTextFileSync(`${root}main.ts`);
  assert.deepEqual(offenders, []);
  // main.ts installs the owner before it imports the rest of mopac; what it imports
  // statically (loaded before its first line runs) is the owner and a constant.
  const statics = [...main.matchAll(/^import .* from "(.+)";$/gm)].map((m) => m[1]);
  assert.deepEqual(statics, ["./src/util/interrupts.ts", "./src/jail/command_name.ts"]);
  assert.ok(
    main.indexOf("interrupts.install()") < main.indexOf('await import("./src/cli/mod.ts")'),
  );
});
