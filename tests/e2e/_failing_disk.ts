/**
 * mopac with a disk that fails on cue, for tests where no real one can be made to
 * fail (no tmpfs to fill, no immutable flag): runs main.ts after wrapping the files
 * the session store opens (`sessions/*.jsonl`), whose writes then fail once the file
 * named by FAIL_WRITES_WHEN exists. FAIL_WRITES_AS picks the OS error: `ENOSPC`
 * (default, disk full) or `EPERM` (the file made unwritable). With
 * FAIL_WRITES_MATCHING instead, only writes whose text contains it fail. Everything
 * above the OS call is mopac's own code.
 *
 *   FAIL_WRITES_WHEN=/path/trigger deno run --allow-env=FAIL_WRITES_WHEN,FAIL_WRITES_AS … _failing_disk.ts run …
 */
const trigger = Deno.env.get("FAIL_WRITES_WHEN");
const matching = Deno.env.get("FAIL_WRITES_MATCHING");
const as = Deno.env.get("FAIL_WRITES_AS") ?? "ENOSPC";

function failure(): Error {
  if (as === "EPERM") {
    return new Deno.errors.PermissionDenied("Operation not permitted (os error 1)");
  }
  return Object.assign(new Error("No space left on device (os error 28)"), { code: "ENOSPC" });
}

function due(bytes: Uint8Array): boolean {
  if (matching) return new TextDecoder().decode(bytes).includes(matching);
  if (!trigger) return false;
  try {
    Deno.statSync(trigger);
    return true;
  } catch {
    return false;
  }
}

const openSync = Deno.openSync;
Deno.openSync = (path: string | URL, options?: Deno.OpenOptions): Deno.FsFile => {
  const file = openSync(path, options);
  if (/[/\\]sessions[/\\][^/\\]+\.jsonl$/.test(String(path))) {
    const writeSync = file.writeSync.bind(file);
    file.writeSync = (bytes: Uint8Array): number => {
      if (due(bytes)) throw failure();
      return writeSync(bytes);
    };
  }
  return file;
};

await import("../../main.ts");
