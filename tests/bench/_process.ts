/**
 * One whole process, measured from outside: wall time, CPU time and peak RSS. python3
 * forks and execs it and reads wait4's rusage (microseconds; the process plus the
 * children it waited for, e.g. bash and bwrap); without python3, /usr/bin/time gives
 * the same at 10 ms resolution. Wall time is taken next to the fork, so the helper's
 * own start is not in it. Also the load average, which benchmarks print next to
 * their figures.
 */

export interface ProcessSample {
  /** Wall time from fork to exit. */
  ms: number;
  /** User + system CPU of the process and the children it waited for. */
  cpuMs: number;
  /** Peak RSS of the process (or of its largest waited-for child, if larger). */
  rssMb: number;
  /** Epoch ms at the fork, comparable with Date.now() of this process. */
  startedAt: number;
  code: number;
  stdout: string;
  stderr: string;
}

export interface ProcessSpec {
  /** The program and its arguments. */
  cmd: string[];
  cwd: string;
  /** The whole environment (the process starts with a clear one). */
  env: Record<string, string>;
}

const RUSAGE_PY = `
import json, os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
started = time.time() * 1000
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
ms = (time.monotonic() - t0) * 1000
with open(out, "w") as f:
    json.dump({"ms": ms, "cpuMs": (ru.ru_utime + ru.ru_stime) * 1000,
               "rssKb": ru.ru_maxrss, "startedAt": started,
               "code": os.waitstatus_to_exitcode(status)}, f)
`;

const decoder = new TextDecoder();
let tool: Promise<"python3" | "time"> | undefined;

async function works(cmd: string, args: string[]): Promise<boolean> {
  try {
    const out = await new Deno.Command(cmd, { args, stdout: "null", stderr: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** What measures here: python3 when it runs, else /usr/bin/time. */
export function measuringTool(): Promise<"python3" | "time"> {
  tool ??= works("python3", ["-c", "import os; os.wait4"]).then((ok) => ok ? "python3" : "time");
  return tool;
}

export async function measureProcess(spec: ProcessSpec): Promise<ProcessSample> {
  const how = await measuringTool();
  const report = await Deno.makeTempFile({ prefix: "mopac-bench-rusage-" });
  try {
    const args = how === "python3"
      ? ["-c", RUSAGE_PY, report, ...spec.cmd]
      : ["-f", "%e %U %S %M %x", "-o", report, ...spec.cmd];
    const t0 = Date.now();
    const out = await new Deno.Command(how === "python3" ? "python3" : "/usr/bin/time", {
      args,
      cwd: spec.cwd,
      clearEnv: true,
      env: spec.env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = await Deno.readTextFile(report);
    const stdout = decoder.decode(out.stdout);
    const stderr = decoder.decode(out.stderr);
    if (how === "python3") {
      const r = JSON.parse(text);
      return { ...r, rssMb: r.rssKb / 1024, stdout, stderr };
    }
    // /usr/bin/time: its last line is ours ("Command exited with …" may precede it).
    const [e, u, s, m, x] = text.trim().split("\n").at(-1)!.split(" ").map(Number);
    return {
      ms: e * 1000,
      cpuMs: (u + s) * 1000,
      rssMb: m / 1024,
      startedAt: t0,
      code: x,
      stdout,
      stderr,
    };
  } finally {
    await Deno.remove(report).catch(() => {});
  }
}

/** The 1-minute load average (NaN where /proc/loadavg is missing). */
export function loadAverage(): number {
  try {
    return Number(Deno.readTextFileSync("/proc/loadavg").split(" ")[0]);
  } catch {
    return NaN;
  }
}

/** The q-quantile (0..1) of `xs`, nearest rank. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((s.length - 1) * q)))];
}

export const median = (xs: number[]) => quantile(xs, 0.5);
