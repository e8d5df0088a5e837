/** Builders and temp dirs shared by the session tests. */
import type { Usage } from "../../src/domain/usage.ts";
import type { Message, Part } from "../../src/domain/message.ts";

let seq = 0;

export function usage(input: number, output: number, cached = 0): Usage {
  return { input_tokens: input, output_tokens: output, cached_input_tokens: cached };
}

export function msg(
  role: Message["role"],
  parts: Part[],
  extra: Partial<Message> = {},
): Message {
  const at = 1_700_000_000_000 + ++seq;
  const m: Message = { id: `m${seq}`, role, parts, created_at: at, updated_at: at, ...extra };
  const finish = parts.findLast((p) => p.type === "finish");
  if (finish?.type === "finish") m.finished_at = finish.at;
  return m;
}

export const text = (t: string): Part => ({ type: "text", text: t });
export const call = (id: string, name = "bash", input = '{"command":"ls"}'): Part => ({
  type: "tool_call",
  id,
  name,
  input,
});
export const result = (id: string, content = "ok", name = "bash"): Part => ({
  type: "tool_result",
  tool_call_id: id,
  name,
  content,
  is_error: false,
});
export const finish = (reason: "stop" | "tool_calls" | "cancelled" | "error" = "stop"): Part => ({
  type: "finish",
  reason,
  at: 1_700_000_100_000,
});

export async function withDataDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "mopac-session-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Collects warnings. */
export function warnings(): { warn: (m: string) => void; list: string[] } {
  const list: string[] = [];
  return { warn: (m) => list.push(m), list };
}

/** A tiny seeded PRNG (mulberry32) so fuzz failures can be replayed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
