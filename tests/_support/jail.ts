/**
 * Whether this machine can run mopac's OS jail (bubblewrap with user namespaces),
 * and socat for `bash.network.hosts`, decided once per test file. Tests of the
 * jail itself are ignored when it cannot run, with a note on stderr; e2e runs that
 * merely offer bash then run with MOPAC_SANDBOX=off (also noted), so what they
 * test still runs. `.ci/run` installs bubblewrap and socat.
 */

async function works(cmd: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

const NAMESPACES = [
  "--die-with-parent",
  "--unshare-all",
  "--unshare-user",
  "--disable-userns",
  "--cap-drop",
  "ALL",
  "--ro-bind",
  "/",
  "/",
  "--proc",
  "/proc",
  "--dev",
  "/dev",
];

/** bwrap builds a jail here (what mopac's preflight probe checks). */
export const JAIL = Deno.build.os === "linux" && await works("bwrap", [...NAMESPACES, "true"]);
/** socat runs (inside a jail it is the bridge to the hosts-mode proxy). */
export const SOCAT = await works("socat", ["-V"]);

const noted = new Set<string>();
function note(text: string): void {
  if (noted.has(text)) return;
  noted.add(text);
  console.error(`note: ${text}`);
}

if (!JAIL) {
  note(
    "bubblewrap cannot build a jail on this machine: OS-jail tests are skipped and e2e runs " +
      "that offer bash use MOPAC_SANDBOX=off (install bubblewrap and allow user namespaces)",
  );
}

/** For `Deno.test({ ignore })`: true (and a note) when the jail cannot run here. */
export function noJail(what: string): boolean {
  if (!JAIL) note(`skipped (no bubblewrap jail here): ${what}`);
  return !JAIL;
}

export function noSocat(what: string): boolean {
  if (!JAIL || !SOCAT) note(`skipped (needs bubblewrap and socat): ${what}`);
  return !JAIL || !SOCAT;
}

/** The programs a run that offers bash must be allowed to start: bash, and bwrap for its jail. */
export const BASH_RUN = ["bash", "bwrap"];

/** Environment for e2e runs that offer bash but do not test the jail. */
export const JAIL_ENV: Record<string, string> = JAIL ? {} : { MOPAC_SANDBOX: "off" };

/** The env variables such runs must be allowed to read. */
export const JAIL_ENV_VARS: string[] = Object.keys(JAIL_ENV);
