/**
 * Whether a jail works here, asked once at preflight: on Linux one bwrap start with
 * the jail's own namespaces, which also runs the survey (survey.ts); on macOS one
 * `sandbox-exec` of `true`. A failure becomes a JailError whose message names the
 * cause and whose hint names both fixes: make the backend work, or `--sandbox off`.
 */
import { JailError } from "../util/errors.ts";
import { BWRAP, namespaceArgs, pathEnv, runBwrapVersion } from "./bwrap.ts";
import { SANDBOX_EXEC } from "./seatbelt.ts";
import { parseSurvey, type SurveyRequest, type SurveyResult, surveyScript } from "./survey.ts";
import type { NetworkPolicy } from "./types.ts";

export type Backend = "bwrap" | "sandbox-exec";

/** The backend for this OS, or undefined where mopac has none. */
export function backendFor(os: typeof Deno.build.os): Backend | undefined {
  if (os === "linux") return "bwrap";
  if (os === "darwin") return "sandbox-exec";
  return undefined;
}

export const OFF_HINT =
  'or run commands unjailed: --sandbox off (or "options": {"sandbox": "off"} in operator config)';

const USERNS_FIX = "allow unprivileged user namespaces (Ubuntu 23.10+ and GitHub's ubuntu-24.04 " +
  "runners: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; Debian before 11: " +
  "sudo sysctl -w kernel.unprivileged_userns_clone=1; in Docker: --security-opt " +
  "seccomp=unconfined --security-opt apparmor=unconfined)";

/** Runs the Linux probe and survey; throws JailError when bwrap cannot build a jail. */
export async function probeLinux(
  network: NetworkPolicy,
  request: SurveyRequest,
  socat = false,
): Promise<SurveyResult> {
  const needSocat = socat || network.mode === "hosts";
  const args = [
    ...namespaceArgs(network),
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--",
    "bash",
    ...surveyScript(request, needSocat ? ["socat"] : []),
  ];
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(BWRAP, {
      args,
      clearEnv: true,
      env: { PATH: pathEnv(), HOME: "/nonexistent" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw notInstalled();
    throw err;
  }
  const stderr = new TextDecoder().decode(out.stderr).trim();
  if (out.code === 3 && stderr.includes("mopac-survey: missing socat")) {
    throw jailError(
      "socat is not installed or not on PATH (bash.network.hosts needs it inside the jail)",
      "install socat (Debian/Ubuntu: apt-get install socat)",
    );
  }
  if (!out.success) {
    throw jailError(`bwrap cannot build a jail here: ${firstLines(stderr)}`, fixFor(stderr));
  }
  return parseSurvey(out.stdout);
}

export async function probeMacos(): Promise<void> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(SANDBOX_EXEC, {
      args: ["-p", "(version 1)(allow default)", "/usr/bin/true"],
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw jailError(`${SANDBOX_EXEC} is missing`, "use a macOS with sandbox-exec");
    }
    throw err;
  }
  if (!out.success) {
    const stderr = new TextDecoder().decode(out.stderr).trim();
    throw jailError(
      `sandbox-exec cannot build a jail here: ${firstLines(stderr)}`,
      "check sandbox-exec",
    );
  }
}

function notInstalled(): JailError {
  return jailError(
    "bubblewrap (bwrap) is not installed or not on PATH",
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)",
  );
}

/**
 * Before Deno's permission preflight: a program missing from PATH cannot be
 * resolved by Deno, so `--allow-run=bwrap` reads as not granted and the preflight
 * would ask for a flag that is already there. Trying `bwrap --version` tells the
 * two apart: NotFound is the real cause (returned), NotCapable is left to the
 * preflight, which names the flag. Where Deno already grants running bwrap there is
 * nothing to tell apart (and no spawn to pay for): a named grant means Deno found it
 * on PATH, and under a blanket `--allow-run` the probe itself names a missing bwrap.
 */
export async function missingBackend(backend: Backend): Promise<JailError | undefined> {
  if (backend !== "bwrap") return undefined;
  if (Deno.permissions.querySync({ name: "run", command: BWRAP }).state === "granted") {
    return undefined;
  }
  try {
    await runBwrapVersion();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return notInstalled();
  }
  return undefined;
}

export function noBackendError(os: string): JailError {
  return jailError(`mopac has no OS jail for ${os}`, "run on Linux (bubblewrap) or macOS");
}

function fixFor(stderr: string): string {
  if (/unknown option.*(disable-userns|cap-drop)/i.test(stderr)) {
    return "use bubblewrap 0.8 or newer (Ubuntu 24.04, Debian 12): older ones lack --disable-userns";
  }
  const userns = /namespace|uid map|setting up uid|Operation not permitted|Permission denied/i;
  return userns.test(stderr) ? USERNS_FIX : "make bwrap work for this user";
}

function jailError(cause: string, fix: string): JailError {
  return new JailError(
    `the bash tool runs every command in an OS jail, and none works here: ${cause}`,
    {
      hint: `${fix}; ${OFF_HINT}`,
    },
  );
}

function firstLines(text: string): string {
  return text.split("\n").filter((l) => l.trim() !== "").slice(0, 3).join(" | ") ||
    "no reason given";
}
