/**
 * `deno compile` must get as far as our machines allow: type-check, module graph
 * and npm embedding succeed; only the download of Deno's `denort` base binary may
 * fail (dl.deno.land is unreachable here). Any other failure is a real one.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

Deno.test("deno compile builds the graph and fails only at the base-binary download", async () => {
  const out = await Deno.makeTempDir();
  try {
    const r = await new Deno.Command(Deno.execPath(), {
      args: ["compile", "--allow-all", "-o", `${out}/mopac`, "main.ts"],
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(r.stderr);
    if (r.success) {
      // Where denort is reachable, the binary must be mopac.
      const v = await new Deno.Command(`${out}/mopac`, { args: ["--version"] }).output();
      assert.match(new TextDecoder().decode(v.stdout), /^mopac \d/);
    } else {
      assert.match(stderr, /Setting up base binary/, stderr);
      assert.doesNotMatch(stderr, /Type checking failed|Module not found/, stderr);
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
