/**
 * The supervisor: the one program mopac starts inside a session's jail. It starts
 * the session's commands there on request, so they share the jail's network
 * namespace (a server a background job started is reachable from later calls),
 * its PID namespace and its private /tmp, at the cost of one jail start per session.
 *
 * Protocol, over the supervisor's stdin and stdout:
 *   mopac → jail, one JSON object per line:
 *     {"op":"bridge","port":N,"socket":P}  start the proxy bridge (hosts mode), then "ready"
 *     {"op":"spawn","id":N,"args":[…],"cwd":D,"env":{…}}  bash with these arguments
 *     {"op":"signal","id":N,"signal":"SIGTERM"|"SIGKILL"}  to the command's process group
 *   jail → mopac, a JSON header line, followed by `n` raw bytes for "out":
 *     {"t":"ready"} {"t":"started","id","pid"} {"t":"out","id","fd":1|2,"n"}
 *     {"t":"eof","id","fd"} {"t":"exit","id","code","signal"} {"t":"fail","id","error","nocwd"?}
 *     {"t":"fatal","error"}
 * Everything inside the jail is the model's side: mopac treats what comes back as
 * untrusted and a malformed frame as the end of the jail.
 *
 * `supervisorMain` runs as the source text of one function (`deno eval`), so it
 * must not use anything outside its own body.
 */
import { SUPERVISOR_COMMAND } from "./command_name.ts";

export async function supervisorMain(): Promise<void> {
  const enc = new TextEncoder();
  let queue: Promise<void> = Promise.resolve();
  const writeAll = async (bytes: Uint8Array) => {
    let off = 0;
    while (off < bytes.length) off += await Deno.stdout.write(bytes.subarray(off));
  };
  const send = (head: Record<string, unknown>, body?: Uint8Array): Promise<void> => {
    const line = enc.encode(JSON.stringify(head) + "\n");
    let frame = line;
    if (body) {
      frame = new Uint8Array(line.length + body.length);
      frame.set(line);
      frame.set(body, line.length);
    }
    // mopac went away: nothing left to report to, and nothing may outlive it.
    queue = queue.then(() => writeAll(frame)).catch(() => Deno.exit(0));
    return queue;
  };
  const groups = new Map<number, number>();
  const unreaped = new Map<number, Deno.ChildProcess>();
  // bash must lead its own process group. `detached` makes Deno fork the whole runtime
  // to get one (~3 ms a command); `setsid bash …` gets the same (setsid execs in place:
  // same pid, new session and group) from a plain posix_spawn. Without setsid at its
  // usual places, `detached` it is; setsid finds bash on the command's PATH. (direct.ts
  // has its own lookup: this function runs as source text and can import nothing.)
  const viaSetsid = ["/usr/bin/setsid", "/bin/setsid"].find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  const pump = async (id: number, fd: number, stream: ReadableStream<Uint8Array>) => {
    try {
      for await (const chunk of stream) await send({ t: "out", id, fd, n: chunk.length }, chunk);
    } catch {
      // the pipe broke: the command was killed
    }
    await send({ t: "eof", id, fd });
  };
  const spawn = (msg: { id: number; args: string[]; cwd: string; env: Record<string, string> }) => {
    let child: Deno.ChildProcess;
    try {
      if (!Deno.statSync(msg.cwd).isDirectory) throw new Deno.errors.NotFound(msg.cwd);
    } catch {
      void send({ t: "fail", id: msg.id, error: `no folder ${msg.cwd} in the jail`, nocwd: true });
      return;
    }
    try {
      child = new Deno.Command(viaSetsid ?? "bash", {
        args: viaSetsid ? ["bash", ...msg.args] : msg.args,
        cwd: msg.cwd,
        clearEnv: true,
        env: msg.env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        detached: !viaSetsid,
      }).spawn();
    } catch (err) {
      void send({ t: "fail", id: msg.id, error: String((err as Error)?.message ?? err) });
      return;
    }
    groups.set(msg.id, child.pid);
    unreaped.set(msg.id, child);
    void send({ t: "started", id: msg.id, pid: child.pid });
    const out = pump(msg.id, 1, child.stdout);
    const errs = pump(msg.id, 2, child.stderr);
    void child.status.then((s) => {
      unreaped.delete(msg.id);
      return send({ t: "exit", id: msg.id, code: s.code, signal: s.signal });
    });
    void Promise.all([out, errs]);
  };
  // Right after a spawn setsid may not have made the group yet: then the one process
  // there is gets the signal (not yet reaped, so its pid is still the command's).
  const kill = (id: number, sig: "SIGTERM" | "SIGKILL") => {
    const pgid = groups.get(id);
    if (pgid === undefined) return;
    try {
      Deno.kill(-pgid, sig);
    } catch {
      try {
        unreaped.get(id)?.kill(sig);
      } catch {
        // gone
      }
    }
  };
  const signal = (msg: { id: number; signal: Deno.Signal }) =>
    kill(msg.id, msg.signal === "SIGTERM" ? "SIGTERM" : "SIGKILL");
  const bridge = async (msg: { port: number; socket: string }) => {
    // socat listens on loopback inside the jail and hands each connection to mopac's
    // proxy through the Unix socket mounted into the jail.
    let proc: Deno.ChildProcess;
    try {
      proc = new Deno.Command("socat", {
        args: [
          `TCP-LISTEN:${msg.port},bind=127.0.0.1,fork,reuseaddr`,
          `UNIX-CONNECT:${msg.socket}`,
        ],
        stdin: "null",
        stdout: "null",
        stderr: "piped",
      }).spawn();
    } catch (err) {
      await send({ t: "fatal", error: `cannot start socat: ${(err as Error)?.message ?? err}` });
      return;
    }
    let exited = false;
    void proc.status.then(() => exited = true);
    for (let wait = 2; !exited; wait = Math.min(wait * 2, 50)) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port: msg.port })).close();
        await send({ t: "ready" });
        return;
      } catch {
        await new Promise((r) => setTimeout(r, wait));
      }
    }
    const why = new TextDecoder().decode((await proc.output()).stderr).trim();
    await send({ t: "fatal", error: `socat ended at once: ${why}` });
  };

  const dec = new TextDecoder();
  let buffered = "";
  let bridged = false;
  for await (const chunk of Deno.stdin.readable) {
    buffered += dec.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg.op === "spawn") spawn(msg as never);
      else if (msg.op === "signal") signal(msg as never);
      else if (msg.op === "bridge" && !bridged) {
        bridged = true;
        void bridge(msg as never);
      } else if (msg.op === "hello") void send({ t: "ready" });
    }
  }
  // mopac closed our stdin: end every command, then ourselves (bwrap ends the rest).
  for (const id of groups.keys()) kill(id, "SIGKILL");
  await queue;
  Deno.exit(0);
}

/**
 * How to start the supervisor: its source as a `data:` module under `deno run -A`
 * where mopac runs under `deno run` (also from a bundle), or mopac's own binary with a
 * hidden command when it is compiled (a compiled binary runs no other module). `deno
 * eval` of the same source (what eval grants, -A, is the same) took 7–10 ms longer to
 * be ready in the jail, on the path of the session's first command.
 */
export function supervisorCommand(): string[] {
  if (Deno.build.standalone) return [Deno.execPath(), SUPERVISOR_COMMAND];
  const source = `await (${supervisorMain})();`;
  return [
    Deno.execPath(),
    "run",
    "-A",
    "--no-config",
    "--no-lock",
    // Its Deno cache is a throwaway (Linux: the jail's own /run; macOS: the run's private
    // folder), so a code cache written there would be read at most by a restarted jail
    // of the same run. Without it the first command in a new jail comes ~3 ms sooner.
    "--no-code-cache",
    `data:application/javascript,${encodeURIComponent(source)}`,
  ];
}
