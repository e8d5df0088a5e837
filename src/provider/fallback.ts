/**
 * `--fallback-model`: a Provider that answers with the run's model and, when a call
 * to it fails for good (after its own retries), tries the same request once on the
 * fallback model, and from then on asks the fallback only (the main model was just
 * given all its retries; paying them again every turn helps nobody). Refusals that
 * another model cannot fix are not failed over: bad credentials or permission (auth)
 * are the operator's to fix, and a request too big for the context (context_length)
 * is the loop's to summarize. The switch is announced as a `retry` event naming the
 * fallback model, before any piece of its answer.
 */
import { ProviderError, type ProviderErrorKind } from "./errors.ts";
import type { ChatRequest, Provider, ProviderTurn, StreamEvent } from "./types.ts";

/** What made the run switch to its fallback model. */
export interface FallbackUse {
  /** `provider/model` the run switched to. */
  model: string;
  /** `provider/model` that failed. */
  from: string;
  reason: string;
}

export interface FallbackProvider extends Provider {
  /** Set once the run has switched to the fallback model. */
  readonly used: FallbackUse | undefined;
}

const NOT_FAILED_OVER = new Set<ProviderErrorKind>(["auth", "context_length"]);

export function withFallback(
  main: Provider,
  fallback: Provider,
  log?: (line: string) => void,
): FallbackProvider {
  let used: FallbackUse | undefined;
  return {
    get label() {
      return used ? fallback.label : main.label;
    },
    get used() {
      return used;
    },
    async complete(req: ChatRequest, onEvent: (e: StreamEvent) => void): Promise<ProviderTurn> {
      if (used) return await fallback.complete(req, onEvent);
      let attempts = 1;
      try {
        return await main.complete(req, (e) => {
          if (e.type === "retry") attempts = e.attempt;
          onEvent(e);
        });
      } catch (err) {
        if (req.signal?.aborted) throw err;
        if (!(err instanceof ProviderError) || NOT_FAILED_OVER.has(err.kind)) throw err;
        used = { model: fallback.label, from: main.label, reason: err.message };
        const reason = `${main.label} failed: ${err.message}; trying ${fallback.label} instead`;
        log?.(`mopac: ${reason}`);
        onEvent({
          type: "retry",
          attempt: attempts + 1,
          delay_ms: 0,
          reason,
          model: fallback.label,
        });
        return await fallback.complete(req, onEvent);
      }
    },
  };
}
