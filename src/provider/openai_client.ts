/**
 * The npm:openai client of one model, built at its first request and kept for the
 * run: building one per turn cost ~0.4 ms (the SDK makes some thirty resource objects).
 * The SDK is imported lazily so `mopac --version` and config errors never pay for
 * loading it. Every option the SDK would otherwise read from the environment is passed
 * explicitly, so the client needs no `--allow-env` and never picks up a stray
 * `OPENAI_*` variable.
 *
 * Each request still goes through the fetch of its own attempt (idle timeout, the
 * exchange kept for errors and cassettes): the request names its attempt in a header,
 * which the client's fetch reads and removes before anything is sent.
 */
import type { OpenAI } from "openai";
import type { ResolvedModel } from "../catalog/types.ts";

let sdk: Promise<typeof import("openai")> | undefined;

/**
 * Starts loading the SDK without waiting for it: a run that will send a request calls
 * this before its start-up waits on child processes (the jail's probe), so the module
 * loads while they run instead of after. A failure shows at the first request.
 */
export function preloadSdk(): void {
  sdk ??= import("openai");
  sdk.catch(() => {});
}

/** A key the SDK accepts for keyless local servers; the header itself is removed. */
const NO_KEY = "no-key";
const ATTEMPT_HEADER = "x-mopac-attempt";

/** The client for one attempt; disposing it forgets the attempt's fetch. */
export interface ClientAttempt extends Disposable {
  client: OpenAI;
  /** Headers to send with the attempt's request (besides the model's own). */
  headers: Record<string, string>;
}

export class ModelClient {
  readonly #model: ResolvedModel;
  #client: Promise<OpenAI> | undefined;
  readonly #attempts = new Map<string, typeof fetch>();
  #lastId = 0;

  constructor(model: ResolvedModel) {
    this.#model = model;
  }

  /** The client, and the headers that send a request of it through `fetchImpl`. */
  async attempt(fetchImpl: typeof fetch): Promise<ClientAttempt> {
    this.#client ??= makeClient(this.#model, (input, init) => this.#route(input, init));
    const id = String(++this.#lastId);
    this.#attempts.set(id, fetchImpl);
    const forget = () => this.#attempts.delete(id);
    try {
      return {
        client: await this.#client,
        headers: { [ATTEMPT_HEADER]: id },
        [Symbol.dispose]: forget,
      };
    } catch (err) {
      forget();
      throw err;
    }
  }

  #route(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const headers = new Headers(init?.headers);
    const id = headers.get(ATTEMPT_HEADER);
    const fetchImpl = id === null ? undefined : this.#attempts.get(id);
    if (!fetchImpl) {
      return Promise.reject(new Error(`a request without a live attempt (${ATTEMPT_HEADER})`));
    }
    headers.delete(ATTEMPT_HEADER);
    return fetchImpl(input, { ...init, headers });
  }
}

async function makeClient(model: ResolvedModel, fetchImpl: typeof fetch): Promise<OpenAI> {
  sdk ??= import("openai");
  const { OpenAI } = await sdk;
  return new OpenAI({
    apiKey: model.api_key || NO_KEY,
    baseURL: model.base_url,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    fetch: fetchImpl,
    // mopac retries itself (retry.ts), so streamed failures are covered too.
    maxRetries: 0,
    logLevel: "off",
    defaultHeaders: model.api_key ? undefined : { Authorization: null },
  });
}
