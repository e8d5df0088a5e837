/**
 * The probe under another PATH, in its own process: `deno test --parallel` runs test
 * files as workers of one process, so a test that set PATH there would hide `ps`,
 * `bash` and the rest from every other file running at the time.
 *   deno run -A --cached-only tests/jail/_probe_path.ts bwrap|socat [missing]
 * (or with `--allow-run=bwrap`, as a narrow run has it). Prints one JSON line: what
 * missingBackend said and how probeLinux failed.
 */
import { missingBackend, probeLinux } from "../../src/jail/probe.ts";
import { JailError } from "../../src/util/errors.ts";

const NOTHING = { paths: [], walk: [], sockets: [] };

function failure(err: unknown) {
  return err instanceof JailError
    ? { error: "JailError", message: err.message, hint: err.hint ?? "" }
    : { error: String(err), message: "", hint: "" };
}

let probe: unknown = { error: "" };
// `missing`: only the check before the preflight, so a test can see whether it spawned.
if (Deno.args[1] !== "missing") {
  try {
    await probeLinux(
      Deno.args[0] === "socat" ? { mode: "hosts", hosts: ["example.com"] } : { mode: "none" },
      NOTHING,
    );
  } catch (err) {
    probe = failure(err);
  }
}
const missing = await missingBackend("bwrap");
console.log(JSON.stringify({ missing: missing ? failure(missing) : null, probe }));
