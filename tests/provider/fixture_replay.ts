/**
 * Replays recorded responses through the provider, and reads what a recording
 * contains naively from the file (every `data:` JSON, no quirk handling) as an
 * independent oracle for the provider tests.
 */
import {
  isErrorFixture,
  listFixtures,
  loadFixture,
  type RecordedResponse,
} from "../_support/provider_fixtures.ts";
import { createProvider } from "../../src/provider/provider.ts";
import type { ProviderTurn } from "../../src/provider/types.ts";
import { collector, scriptedFetch, testModel, userRequest } from "./helpers.ts";
import { fakeClock } from "../_support/fake_clock.ts";

/**
 * The time the recordings were made: openrouter's 429 gives X-RateLimit-Reset as an
 * absolute time, so the delay it asks for depends on "now".
 */
const RECORDED_AT = 1_754_667_634_000;

export interface FixtureFacts {
  text: string;
  hasReasoning: boolean;
  /** Tool names in the order calls first appear. */
  toolNames: string[];
}

export function factsOf(f: Pick<RecordedResponse, "body" | "headers">): FixtureFacts {
  const facts: FixtureFacts = { text: "", hasReasoning: false, toolNames: [] };
  const seen = new Set<string>();
  for (const obj of payloads(f)) {
    for (const choice of (obj.choices ?? []) as Record<string, unknown>[]) {
      const d = (choice.delta ?? choice.message ?? {}) as Record<string, unknown>;
      if (typeof d.content === "string") facts.text += d.content;
      if (Array.isArray(d.content)) {
        for (const p of d.content) {
          if (p.type === "text") facts.text += p.text;
          if (p.type === "thinking") facts.hasReasoning = true;
        }
      }
      for (const k of ["reasoning_content", "reasoning"]) {
        if (typeof d[k] === "string" && d[k] !== "") facts.hasReasoning = true;
      }
      const calls = (d.tool_calls ?? []) as Record<string, Record<string, unknown>>[];
      calls.forEach((tc, i) => {
        const name = tc.function?.name;
        const key = `${tc.id || ""}#${tc.index ?? i}#${name}`;
        if (typeof name === "string" && name !== "" && !seen.has(key)) {
          seen.add(key);
          facts.toolNames.push(name);
        }
      });
    }
  }
  return facts;
}

function payloads(f: Pick<RecordedResponse, "body" | "headers">): Record<string, unknown>[] {
  if (/json/.test(f.headers["content-type"] ?? "")) return [JSON.parse(f.body)];
  const out: Record<string, unknown>[] = [];
  for (const line of f.body.split("\n")) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") continue;
    out.push(JSON.parse(data));
  }
  return out;
}

/** The cerebras file holds two responses glued together (README): split where the chunk id changes. */
export function splitGlued(f: RecordedResponse): RecordedResponse[] {
  const events = f.body.split("\n\n").filter((e) => e.startsWith("data: {"));
  const groups: string[][] = [];
  let lastId: unknown;
  for (const e of events) {
    const id = JSON.parse(e.slice(6)).id;
    if (groups.length === 0 || id !== lastId) groups.push([]);
    groups[groups.length - 1].push(e);
    lastId = id;
  }
  return groups.map((g) => ({
    ...f,
    body: g.map((e) => `${e}\n\n`).join("") + "data: [DONE]\n\n",
  }));
}

export const GLUED = "cerebras/glm-4.7-structured-output-tools.chunks.jsonl";
export const isError = (f: RecordedResponse) => f.status >= 400 || isErrorFixture(f.name);

export async function replay(f: RecordedResponse, chunkSize = 0): Promise<ProviderTurn> {
  const { fetch } = scriptedFetch([f], chunkSize);
  // The clock sits at the Date of the OpenRouter 429 capture so its reset epoch is in the future.
  const p = createProvider(testModel(), { fetch, clock: fakeClock(RECORDED_AT), maxAttempts: 1 });
  return await p.complete(userRequest("x"), collector().onEvent);
}

/** Successful responses, the glued cerebras file split into its two responses. */
export function streamFixtures(): RecordedResponse[] {
  const out: RecordedResponse[] = [];
  for (const name of listFixtures()) {
    if (name.endsWith(".md")) continue;
    const f = loadFixture(name);
    if (isError(f)) continue;
    if (name === GLUED) out.push(...splitGlued(f).map((g, i) => ({ ...g, name: `${name}#${i}` })));
    else out.push(f);
  }
  return out;
}

/** Ids we generated for calls that came without one differ per run by design. */
export function stable(turn: ProviderTurn, body: string): ProviderTurn {
  return {
    ...turn,
    parts: turn.parts.map((p) =>
      p.type === "tool_call" && !body.includes(p.id) ? { ...p, id: "<generated>" } : p
    ),
  };
}
