/**
 * Run by sandbox_test.ts under narrowed Deno flags: checks the needs given as JSON
 * (argv[0]) with `preflight`, then really uses each one. Prints "ok", or the flag a
 * SandboxError names on stderr with exit 2 (what the CLI does with it).
 */
import { join } from "node:path";
import { type Need, preflight } from "../../src/deno_perms/needs.ts";
import { explainNotCapable, isNotCapable } from "../../src/deno_perms/not_capable.ts";
import { SandboxError } from "../../src/util/errors.ts";

const needs: Need[] = JSON.parse(Deno.args[0]);
try {
  if (Deno.args[1] !== "--skip-preflight") preflight(needs);
  for (const need of needs) {
    switch (need.kind) {
      case "read":
        await Deno.stat(need.path);
        break;
      case "write":
        await Deno.writeTextFile(join(need.path, "probe.txt"), "x");
        break;
      case "run":
        await new Deno.Command(need.command, { args: ["-c", "exit 0"] }).output();
        break;
      case "net": {
        const [hostname, port] = need.host!.split(":");
        (await Deno.connect({ hostname, port: Number(port) })).close();
        break;
      }
      case "env":
        Deno.env.get(need.variable);
        break;
    }
  }
  console.log("ok");
} catch (err) {
  const sandbox = err instanceof SandboxError
    ? err
    : isNotCapable(err)
    ? explainNotCapable(err)
    : null;
  if (!sandbox) throw err;
  console.error(sandbox.flag);
  Deno.exit(2);
}
