/**
 * A process that owns its signals through util/interrupts.ts, for interrupts_test.ts.
 * It prints "ready" on stderr once listening, then follows its scenario (Deno.args[0]):
 * - `cooperative`: ends on its own when the signal aborts; prints what it saw;
 * - `stuck`: never ends on its own (the grace period ends it); last words print;
 * - `settled`: settles exit code 0 first, then a signal must not change it.
 */
import { interrupts } from "../../src/util/interrupts.ts";

interrupts.install({ graceMs: Number(Deno.args[1] ?? 5_000) });
const say = (line: string) => Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
const keepAlive = setInterval(() => {}, 1_000);
console.error("ready");
switch (Deno.args[0]) {
  case "cooperative": {
    await new Promise((r) => interrupts.signal.addEventListener("abort", r));
    const reason = interrupts.signal.reason as Error;
    say(`aborted: ${reason.name}: ${reason.message}`);
    clearInterval(keepAlive);
    Deno.exit(interrupts.exitCode(0));
    break;
  }
  case "stuck":
    interrupts.atForcedExit(() => say("first registered, runs last"));
    interrupts.atForcedExit(() => say("last registered, runs first"));
    interrupts.atForcedExit(() => say("disposed: never runs"))[Symbol.dispose]();
    break;
  case "settled":
    interrupts.settle(0);
    interrupts.atForcedExit(() => say("last words"));
    break;
}
