import { runCli } from "./src/cli/mod.ts";

Deno.exit(await runCli(Deno.args));
