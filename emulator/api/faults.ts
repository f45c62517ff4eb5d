/**
 * Faults on purpose (`genv serve --faults SPEC`, `startEmulator({ faults })`): what a pipeline meets
 * against the hosted API — throttling, unavailability, dropped connections, answers lost after the
 * work was done, slow answers, internal errors — seeded, so that a run can be replayed.
 *
 * SPEC is comma-separated `key=value`:
 *
 * | key | meaning | default |
 * | --- | --- | --- |
 * | `rate` | share of requests that get a fault, 0–1 | required |
 * | `seed` | seed of the generator: the same seed and the same request order give the same faults | 1 |
 * | `kinds` | `+`-separated: `429`, `503`, `500`, `reset-before`, `reset-after`, `slow` | all six |
 * | `routes` | `+`-separated: `create`, `list`, `get`, `delete`, `files`, `download`, `upload`, `tool`, `calls`, `credentials` | all |
 * | `retry-after` | seconds in the `Retry-After` of a 429 or 503 | 1 |
 * | `delay` | how late a `slow` answer comes, e.g. `30s`, `1500ms` | 30s |
 *
 * - `429`, `503`, `500`: Google's error body, the request is not handled.
 * - `reset-before`: the connection is dropped before the request is handled.
 * - `reset-after`: the request is handled (an environment is created, a file uploaded), then the
 *   connection is dropped instead of the answer: the client cannot know that it acted.
 * - `slow`: the request is handled at once and answered `delay` later: past a client's timeout, the
 *   client gives up on a request that was done.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import ms from "ms";
import { HttpError } from "../errors";
import { ROUTE_NAMES, type RouteName } from "./routes";

export const FAULT_KINDS = ["429", "503", "500", "reset-before", "reset-after", "slow"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The operations a fault can hit: the route table's names (`routes.ts`). */
export const FAULT_ROUTES = ROUTE_NAMES;
export type FaultRoute = RouteName;

export interface FaultSpec {
  rate: number;
  seed: number;
  kinds: readonly FaultKind[];
  routes: readonly FaultRoute[];
  retryAfterSeconds: number;
  delayMs: number;
}

/** A fault spec that cannot be used: the message names the key and the fix. */
export class FaultSpecError extends Error {
  override name = "FaultSpecError";
}

/** Parses `rate=0.2,seed=7,kinds=429+reset-after`. */
export function parseFaultSpec(text: string): FaultSpec {
  const values = new Map<string, string>();
  for (const part of text.split(",").map((item) => item.trim()).filter(Boolean)) {
    const at = part.indexOf("=");
    if (at <= 0) throw new FaultSpecError(`--faults: "${part}" is not key=value; e.g. rate=0.2,seed=7`);
    values.set(part.slice(0, at), part.slice(at + 1));
  }
  const known = new Set(["rate", "seed", "kinds", "routes", "retry-after", "delay"]);
  for (const key of values.keys()) {
    if (!known.has(key)) throw new FaultSpecError(`--faults: unknown key "${key}"; known: ${[...known].join(", ")}`);
  }
  const rate = Number(values.get("rate"));
  if (!values.has("rate") || !(rate >= 0 && rate <= 1)) throw new FaultSpecError(`--faults: rate must be a number from 0 to 1 (got ${JSON.stringify(values.get("rate") ?? "")}), e.g. rate=0.2`);
  const seed = Number(values.get("seed") ?? "1");
  if (!Number.isSafeInteger(seed)) throw new FaultSpecError(`--faults: seed must be a whole number (got ${JSON.stringify(values.get("seed"))})`);
  const list = <T extends string>(key: string, all: readonly T[]): T[] => {
    const raw = values.get(key);
    if (raw === undefined) return [...all];
    const items = raw.split("+").filter(Boolean);
    const unknown = items.filter((item) => !(all as readonly string[]).includes(item));
    if (unknown.length > 0 || items.length === 0) throw new FaultSpecError(`--faults: ${key} takes ${all.join("+")} (got ${JSON.stringify(raw)})`);
    return items as T[];
  };
  const retryAfterSeconds = Number(values.get("retry-after") ?? "1");
  if (!(retryAfterSeconds >= 0)) throw new FaultSpecError(`--faults: retry-after must be seconds, e.g. retry-after=1`);
  const delayMs = values.has("delay") ? ms((values.get("delay") ?? "") as ms.StringValue) : 30_000;
  if (typeof delayMs !== "number" || !(delayMs >= 0)) throw new FaultSpecError(`--faults: delay must be a duration, e.g. delay=30s`);
  return { rate, seed, kinds: list("kinds", FAULT_KINDS), routes: list("routes", FAULT_ROUTES), retryAfterSeconds, delayMs };
}

/** What to do with one request: nothing, or a fault. */
export type FaultDecision = { kind: "none" } | { kind: FaultKind };

/** Draws the faults of a spec, request after request, from a seeded generator (mulberry32). */
export class FaultInjector {
  private state: number;
  /** Faults dealt so far, by kind. */
  readonly dealt = new Map<FaultKind, number>();
  /**
   * Whether faults are dealt. Held off (`false`), every request is let through and nothing is drawn:
   * a test faults only the runs it means to (a run killed while its creates are answered late), and
   * its set-up and checks run at full speed.
   */
  dealing = true;

  constructor(readonly spec: FaultSpec) {
    this.state = spec.seed >>> 0;
  }

  /** `route`: the operation the route table finds for the request (`routeNameOf`); undefined, none. */
  decide(route: FaultRoute | undefined): FaultDecision {
    if (!this.dealing || route === undefined || !this.spec.routes.includes(route)) return { kind: "none" };
    // Two draws per request whatever the outcome, so that a request's fate depends only on its place.
    const hit = this.next() < this.spec.rate;
    const pick = this.spec.kinds[Math.floor(this.next() * this.spec.kinds.length)];
    if (!hit) return { kind: "none" };
    this.dealt.set(pick, (this.dealt.get(pick) ?? 0) + 1);
    return { kind: pick };
  }

  /**
   * Applies `decision` around `handle`: answers or drops the request itself, or lets it through
   * (slowed, or with its answer swallowed and the connection dropped).
   */
  async apply(decision: FaultDecision, request: IncomingMessage, response: ServerResponse, handle: () => Promise<void>): Promise<void> {
    switch (decision.kind) {
      case "none":
        return handle();
      case "429":
      case "503":
      case "500": {
        const status = decision.kind === "429" ? "RESOURCE_EXHAUSTED" : decision.kind === "503" ? "UNAVAILABLE" : "INTERNAL";
        const error = new HttpError(status, `fault injected by --faults (${decision.kind})`);
        for await (const _chunk of request) {
          // drained: the client sends its whole body before it reads the answer
        }
        const body = JSON.stringify(error.toBody());
        const headers: Record<string, string | number> = { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) };
        if (decision.kind !== "500") headers["retry-after"] = this.spec.retryAfterSeconds;
        response.writeHead(error.httpStatus, headers).end(body);
        return;
      }
      case "reset-before":
        request.socket.destroy();
        return;
      case "slow": {
        // Handled at once, answered late: a client that gives up first cannot know the work was done.
        const late = new Promise((resolve) => setTimeout(resolve, this.spec.delayMs));
        const send = { writeHead: response.writeHead.bind(response), write: response.write.bind(response), end: response.end.bind(response) };
        const held: Array<() => void> = [];
        response.writeHead = ((...args: Parameters<typeof send.writeHead>) => {
          held.push(() => send.writeHead(...args));
          return response;
        }) as typeof response.writeHead;
        response.write = ((...args: Parameters<typeof send.write>) => {
          held.push(() => send.write(...args));
          return true;
        }) as typeof response.write;
        response.end = ((...args: Parameters<typeof send.end>) => {
          held.push(() => send.end(...args));
          void late.then(() => {
            if (!request.socket.destroyed) for (const step of held) step();
          });
          return response;
        }) as typeof response.end;
        return handle();
      }
      case "reset-after": {
        // The work is done; the answer never leaves.
        const socket = request.socket;
        response.writeHead = (() => response) as typeof response.writeHead;
        response.write = (() => true) as typeof response.write;
        response.end = ((..._args: unknown[]) => {
          socket.destroy();
          return response;
        }) as typeof response.end;
        return handle();
      }
    }
  }

  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}
