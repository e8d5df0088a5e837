/**
 * Builds the SDK Client mopac offers to every server. Headless runs have no user, so:
 * elicitation is declared (form mode) and answered from the schema's defaults when
 * every required field has one, declined otherwise; sampling is not offered; roots are
 * offered only when configured (server-filesystem replaces its directories with them).
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type ClientCapabilities,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

export interface ClientSetup {
  name: string;
  version: string;
  /** Absolute directories advertised as roots; none → no roots capability. */
  roots?: string[];
  /** The server said its tool list changed. */
  onToolsChanged(): void;
  log(line: string): void;
}

type ElicitAnswer = { action: "accept"; content: Record<string, unknown> } | {
  action: "decline";
};

/** The headless answer to a form elicitation: its defaults, when they are enough. */
export function answerElicitation(requestedSchema: unknown): ElicitAnswer {
  const schema = (requestedSchema ?? {}) as {
    properties?: Record<string, { default?: unknown }>;
    required?: unknown;
  };
  const props = schema.properties ?? {};
  const required = Array.isArray(schema.required) ? schema.required as string[] : [];
  if (!required.every((key) => props[key]?.default !== undefined)) return { action: "decline" };
  const content: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(props)) {
    if (prop?.default !== undefined) content[key] = prop.default;
  }
  return { action: "accept", content };
}

export function createClient(setup: ClientSetup): Client {
  const capabilities: ClientCapabilities = { elicitation: { form: {} } };
  if (setup.roots && setup.roots.length > 0) capabilities.roots = { listChanged: false };
  const client = new Client({ name: setup.name, version: setup.version }, { capabilities });

  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as { mode?: string; message?: string; requestedSchema?: unknown };
    if (params.mode === "url") return { action: "decline" };
    const answer = answerElicitation(params.requestedSchema);
    setup.log(
      `elicitation ${answer.action === "accept" ? "accepted with defaults" : "declined"}: ${
        (params.message ?? "").slice(0, 200)
      }`,
    );
    return answer;
  });

  if (capabilities.roots) {
    const roots = setup.roots!.map((dir) => ({
      uri: pathToFileURL(dir).href,
      name: dir.split("/").filter(Boolean).pop() ?? dir,
    }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  }

  client.setNotificationHandler(ToolListChangedNotificationSchema, () => setup.onToolsChanged());
  return client;
}
