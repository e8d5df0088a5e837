// The signal owner comes first: nothing else is loaded until SIGINT and SIGTERM have
// their one listener, so a signal at any moment of a run ends it as documented. The
// jail's supervisor (a compiled mopac started inside the jail) keeps Deno's defaults.
import { interrupts } from "./src/util/interrupts.ts";
import { SUPERVISOR_COMMAND } from "./src/jail/command_name.ts";

if (Deno.args[0] !== SUPERVISOR_COMMAND) interrupts.install();
const { main } = await import("./src/cli/mod.ts");
await main(Deno.args);
