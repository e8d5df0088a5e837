/**
 * The nearest check to a compiled binary that these machines allow: bundle mopac
 * into one file, then replay the demo session with it from a folder that has no
 * deno.json, no lock and no node_modules, under narrow permissions.
 */
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { JAIL_ENV, JAIL_ENV_VARS } from "../_support/jail.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("a bundled mopac runs the demo session standalone", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mopac-bundle-" }));
  try {
    const bundled = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--platform=deno", "-o", `${dir}/mopac.mjs`, "main.ts"],
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(bundled.success, new TextDecoder().decode(bundled.stderr));
    await cp(`${REPO}/tests/demo/sample`, `${dir}/work`, { recursive: true });
    await Deno.copyFile(`${REPO}/tests/demo/session.cassette.jsonl`, `${dir}/session.jsonl`);
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-config",
        "--no-prompt",
        `--allow-read=${dir}`,
        `--allow-write=${dir}/work`,
        "--allow-run=bash,bwrap",
        `--allow-env=${["HOME", "PATH", "NO_COLOR", "DEMO_BASE_URL", "MOPAC_*", ...JAIL_ENV_VARS]}`,
        `${dir}/mopac.mjs`,
        "run",
        // The sample's mopac.json is ours, as in the demo.
        "--trust-project",
        "--replay",
        `${dir}/session.jsonl`,
        "fix the greeting",
      ],
      cwd: `${dir}/work`,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
        HOME: dir,
        NO_COLOR: "1",
        ...JAIL_ENV,
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    assert.match(new TextDecoder().decode(run.stdout), /Fixed the misspelled greeting/);
    assert.match(await Deno.readTextFile(`${dir}/work/src/greet.ts`), /Hello, /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
