/**
 * Support for the OS-jail e2e tests: an "attacker" TCP listener that records every
 * connection, folders outside /tmp (the jail hides the host's /tmp wholesale, so
 * what must be shown hidden or unwritable has to live elsewhere), a HOME with
 * credential stores and an agent socket, and a run of scripted bash calls.
 */
import { type ScriptedTurn, scriptText, scriptToolCall } from "../_support/fake_openai.ts";
import { events } from "../_support/run_mopac.ts";
import { type Workspace, workspace } from "../_support/workspace.ts";

export interface Listener {
  port: number;
  /** Every connection accepted, with what it sent in its first read. */
  hits: string[];
  /**
   * The hits of everything that connected before now: connects once itself and waits
   * until its own connection was seen (the backlog is first in, first out).
   */
  settled(): Promise<string[]>;
  close(): Promise<void>;
}

export function listen(hostname = "127.0.0.1"): Listener {
  const listener = Deno.listen({ hostname, port: 0 });
  const hits: string[] = [];
  const conns = new Set<Deno.Conn>();
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        conns.add(conn);
        hits.push("(connected)");
        const buf = new Uint8Array(1024);
        conn.read(buf).then((n) => {
          if (n) hits.push(new TextDecoder().decode(buf.subarray(0, n)));
        }).catch(() => {}).finally(() => {
          conns.delete(conn);
          try {
            conn.close();
          } catch { /* closed */ }
        });
      }
    } catch { /* closed */ }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    port,
    hits,
    async settled() {
      const mark = `sentinel-${crypto.randomUUID()}`;
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(new TextEncoder().encode(mark));
      const end = Date.now() + 20_000;
      while (!hits.includes(mark)) {
        if (Date.now() > end) throw new Error("the listener never saw its own connection");
        await new Promise((r) => setTimeout(r, 10));
      }
      conn.close();
      // Everything before our data, less our own connection's "(connected)".
      const before = hits.slice(0, hits.indexOf(mark));
      before.splice(before.lastIndexOf("(connected)"), 1);
      return before;
    },
    close: async () => {
      listener.close();
      for (const c of conns) {
        try {
          c.close();
        } catch { /* closed */ }
      }
      await serving;
    },
  };
}

/** A fresh folder outside /tmp (the jail shows the host's /tmp as an empty tmpfs). */
export async function outsideTmp(prefix: string): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ dir: "/var/tmp", prefix }));
}

/** A HOME with the credential stores mopac hides and a socket an agent would listen on. */
export async function hostileHome(
  marker: string,
): Promise<{ home: string; socket: Deno.Listener }> {
  const home = await outsideTmp("mopac-home-");
  const files: Record<string, string> = {
    ".ssh/id_ed25519": `-----BEGIN OPENSSH PRIVATE KEY----- ${marker}`,
    ".aws/credentials": `[default]\naws_secret_access_key = ${marker}\n`,
    ".npmrc": `//registry.npmjs.org/:_authToken=${marker}\n`,
    ".netrc": `machine example.com login me password ${marker}\n`,
    ".config/gh/hosts.yml": `github.com:\n  oauth_token: ${marker}\n`,
    ".config/mopac/mopac.json": `// operator config with a key: ${marker}\n{}\n`,
  };
  for (const [rel, text] of Object.entries(files)) {
    const path = `${home}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  await Deno.mkdir(`${home}/.docker/run`, { recursive: true });
  const socket = Deno.listen({ transport: "unix", path: `${home}/.docker/run/docker.sock` });
  return { home, socket };
}

/** Collects what connects to a Unix listener. */
export function watchUnix(listener: Deno.Listener): { hits: number; done: Promise<void> } {
  const state = { hits: 0, done: Promise.resolve() };
  state.done = (async () => {
    try {
      for await (const conn of listener) {
        state.hits++;
        conn.close();
      }
    } catch { /* closed */ }
  })();
  return state;
}

export interface BashCall {
  name: string;
  command: string;
}

/** One run of mopac that makes these bash calls in turn, then answers "done". */
export async function runCalls(
  ws: Workspace,
  calls: BashCall[],
  opts: { args?: string[]; env?: Record<string, string>; read?: string[]; net?: string[] } = {},
) {
  const r = await ws.run(["run", "-o", "stream-json", ...(opts.args ?? []), "go"], {
    perms: {
      ...ws.perms,
      read: [...(ws.perms.read ?? []), ...(opts.read ?? [])],
      net: [...(ws.perms.net ?? []), ...(opts.net ?? [])],
    },
    env: { ...opts.env },
  });
  const ev = events(r.stdout);
  const results = ev.filter((e) => e.type === "tool_result");
  const byName = new Map<string, { output: string; denied: boolean; is_error: boolean }>();
  calls.forEach((c, i) => {
    const res = results[i] as { output: string; denied: boolean; is_error: boolean } | undefined;
    if (res) byName.set(c.name, res);
  });
  return { ...r, ev, results: byName };
}

export function turnsFor(calls: BashCall[]): ScriptedTurn[] {
  return [
    ...calls.map((c, i) => scriptToolCall("bash", { command: c.command }, `call_${i}`)),
    scriptText("done"),
  ];
}

export { workspace };
