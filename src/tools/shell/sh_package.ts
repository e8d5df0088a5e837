/**
 * The parser package itself: 1.5 MB of GopherJS whose start-up takes ~100 ms of CPU.
 * Only sh_syntax.ts imports it, at the first script that needs the full parser (a
 * plain command does not: plain.ts), and sh_guard.ts must evaluate before it does.
 */
import { restoreProcess } from "./sh_guard.ts";
import mvdan from "mvdan-sh";
restoreProcess();

export default mvdan;
