/**
 * Helpers for e2e tests that watch a `mopac run` while it runs (crash, lock and resume
 * tests): read its stream-json stdout line by line, wait for an event, a file or a
 * server request with a bound, SIGKILL it, and look at what it left on disk.
 */
import type { ChatMessageIn, ParsedRequest, ScriptedTurn } from "../_support/fake_openai.ts";
import { WAIT_MS } from "../_support/wait.ts";

export type Event = Record<string, unknown>;

export interface LiveRun {
  child: Deno.ChildProcess;
  /** The stream-json events printed so far. */
  events: Event[];
  /** Resolves with the first event (seen or coming) that matches. */
  waitFor(match: (e: Event) => boolean, what: string): Promise<Event>;
  /** SIGKILL, then wait for the process and its output to end. */
  kill(): Promise<void>;
  /** Waits for a normal end. */
  done(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Follows the stdout of a started mopac (`ws.spawn([...])`, whose args should ask for
 * `-o stream-json`).
 */
export function startLive(child: Deno.ChildProcess): LiveRun {
  const events: Event[] = [];
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  let ended = false;
  const readOut = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      stdout += chunk;
      pending += chunk;
      let nl;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.trim() === "") continue;
        try {
          events.push(JSON.parse(line));
        } catch {
          events.push({ type: "unparsed", line });
        }
      }
      notify();
    }
  })();
  const readErr = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const finished = Promise.all([child.status, readOut, readErr]).then(([status]) => {
    ended = true;
    notify();
    return status;
  });

  return {
    child,
    events,
    waitFor(match, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(match);
          if (hit) return finish(() => resolve(hit));
          if (ended) {
            finish(() =>
              reject(
                new Error(`mopac ended before ${what}\nstdout:\n${stdout}\nstderr:\n${stderr}`),
              )
            );
          }
        };
        const timer = setTimeout(
          () =>
            finish(() => reject(new Error(`timed out waiting for ${what}\nstderr:\n${stderr}`))),
          WAIT_MS,
        );
        const finish = (then: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          then();
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await finished;
    },
    async done() {
      const status = await finished;
      return { code: status.code, stdout, stderr };
    },
  };
}

/** A promise with its resolve function outside (the fake server's turns function is sync). */
export function signal<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The text of a chat message's content, whether a string or an array of parts. */
export function contentText(m: ChatMessageIn): string {
  if (typeof m.content === "string") return m.content;
  if (Array.isArray(m.content)) {
    return m.content.map((p) => (p as { text?: string }).text ?? "").join("");
  }
  return "";
}

export function lastUserText(req: ParsedRequest): string {
  const user = req.messages.filter((m) => m.role === "user").at(-1);
  return user ? contentText(user) : "";
}

/**
 * A turns function keyed by the prompt of the run: the last user message picks the
 * entry (the first key it contains), and the number of assistant messages after it
 * picks the step, so one table scripts several runs against one server.
 */
export function byPrompt(table: Record<string, ScriptedTurn[]>) {
  return (req: ParsedRequest): ScriptedTurn | undefined => {
    const last = lastUserText(req);
    const key = Object.keys(table).find((k) => last.includes(k));
    if (key === undefined) return undefined;
    const at = req.messages.findLastIndex((m) => m.role === "user");
    const step = req.messages.slice(at).filter((m) => m.role === "assistant").length;
    return table[key][step];
  };
}

/**
 * Turns for a run whose agent starts a sub-agent: requests whose first user message
 * holds `marker` (the prompt given to the `agent` tool) are the child's, step by step;
 * the rest are the parent's.
 */
export function parentAndChild(
  parent: ScriptedTurn[],
  child: ScriptedTurn[],
  marker = "CHILD:",
) {
  return (req: ParsedRequest): ScriptedTurn | undefined => {
    const users = req.messages.filter((m) => m.role === "user");
    const isChild = JSON.stringify(users[0]?.content ?? "").includes(marker);
    const step = req.messages.filter((m) => m.role === "assistant").length;
    return (isChild ? child : parent)[step];
  };
}

/** Records of a session file as another process left it (a torn last line is skipped). */
export async function sessionRecords(path: string): Promise<Event[]> {
  const out: Event[] = [];
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    if (line.trim() === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // torn by the kill
    }
  }
  return out;
}

type StoredMessage = {
  id: string;
  role: string;
  parts: Array<Record<string, unknown>>;
  model?: string;
};

/** The latest version of each message of a session file, in first-seen order. */
export async function sessionMessages(path: string): Promise<StoredMessage[]> {
  const byId = new Map<string, StoredMessage>();
  for (const r of await sessionRecords(path)) {
    if (r.type === "message") {
      const m = r.message as StoredMessage;
      byId.set(m.id, m);
    }
  }
  return [...byId.values()];
}

export function sessionPath(dir: string, id: string, dataDir = `${dir}/.mopac`): string {
  return `${dataDir}/sessions/${id}.jsonl`;
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
