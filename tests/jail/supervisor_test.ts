/**
 * The supervisor speaks the same protocol however it is started: as a `data:` module
 * of its source (mopac under `deno run`, also bundled) or as a compiled mopac's hidden
 * command (tried here through main.ts). Run outside any jail: the protocol alone.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type Frame, readFrames } from "../../src/jail/frames.ts";
import { supervisorCommand } from "../../src/jail/supervisor.ts";
import { SUPERVISOR_COMMAND } from "../../src/jail/command_name.ts";
import { DENO_RUN } from "../_support/deps.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

async function converse(argv: string[], env: Record<string, string> = {}): Promise<Frame[]> {
  const proc = new Deno.Command(argv[0], {
    args: argv.slice(1),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1", ...env },
  }).spawn();
  const w = proc.stdin.getWriter();
  const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  const frames: Frame[] = [];
  const reading = (async () => {
    for await (const f of readFrames(proc.stdout)) {
      frames.push(f);
      if (f.t === "exit" && f.id === 2) await w.close();
    }
  })();
  await send({ op: "hello" });
  await send({ op: "spawn", id: 1, args: ["-c", "exit 0"], cwd: "/nonexistent", env: {} });
  await send({
    op: "spawn",
    id: 2,
    args: ["-c", "echo out; echo err >&2; exit 7"],
    cwd: "/",
    env: { PATH: "/usr/bin:/bin" },
  });
  await reading;
  await proc.status;
  return frames;
}

function check(frames: Frame[]) {
  assert.equal(frames[0].t, "ready");
  const fail = frames.find((f) => f.t === "fail") as Extract<Frame, { t: "fail" }>;
  assert.equal(fail.id, 1);
  assert.equal(fail.nocwd, true);
  const text = (fd: number) =>
    new TextDecoder().decode(
      new Uint8Array(
        frames.filter((f): f is Extract<Frame, { t: "out" }> => f.t === "out" && f.fd === fd)
          .flatMap((f) => [...f.data]),
      ),
    );
  assert.equal(text(1), "out\n");
  assert.equal(text(2), "err\n");
  assert.deepEqual(frames.find((f) => f.t === "exit"), { t: "exit", id: 2, code: 7, signal: null });
}

Deno.test("supervisor: deno run of its own source as a data: module, writing no code cache", async () => {
  const argv = supervisorCommand();
  assert.equal(argv[1], "run");
  assert.match(argv.at(-1)!, /^data:application\/javascript,/);
  // As in the jail: a Deno cache of its own, thrown away with the jail.
  const denoDir = await Deno.makeTempDir({ prefix: "mopac-supervisor-deno-" });
  try {
    check(await converse(argv, { DENO_DIR: denoDir }));
    const files = [...Deno.readDirSync(denoDir)].map((e) => e.name);
    assert.ok(!files.some((f) => f.startsWith("v8_code_cache")), files.join(", "));
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});

Deno.test("supervisor: a compiled mopac's hidden command (through main.ts)", async () => {
  check(await converse([Deno.execPath(), ...DENO_RUN, "-A", MAIN, SUPERVISOR_COMMAND]));
});
