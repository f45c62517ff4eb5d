/** A real emulator on a free port for one test file, with its request log. */
import { GoogleGenAI } from "@google/genai";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator/server";
import type { RequestLogEntry } from "../../emulator/api";

export const TEST_KEY = "test-key-1";
export const OTHER_KEY = "test-key-2";

export interface TestEmulator extends RunningEmulator {
  requests: RequestLogEntry[];
  /** fetch against the emulator with the test key. */
  call(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  json(path: string, init?: RequestInit & { key?: string | null }): Promise<{ status: number; body: any }>;
}

export async function startTestEmulator(options: Partial<EmulatorOptions> = {}): Promise<TestEmulator> {
  const requests: RequestLogEntry[] = [];
  const emulator = await startEmulator({
    inMemory: options.dataDir === undefined,
    apiKeys: [TEST_KEY, OTHER_KEY],
    onInternalError: (error) => {
      throw error;
    },
    ...options,
    onRequest: (entry) => requests.push(entry),
  });
  const call = (path: string, init: RequestInit & { key?: string | null } = {}) => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? TEST_KEY : init.key;
    if (key !== null) headers.set("x-goog-api-key", key);
    if (init.body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    return fetch(`${emulator.url}${path}`, { ...init, headers });
  };
  return {
    ...emulator,
    requests,
    call,
    async json(path, init) {
      const response = await call(path, init);
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
  };
}

export function inline(target: string, content: string): { type: "inline"; target: string; content: string } {
  return { type: "inline", target, content };
}

/**
 * The official client pointed at an emulator, unchanged but for its base URL. Its one-time
 * "experimental" notice on first reading `environments` and `credentials` is silenced here.
 */
export function officialClient(baseUrl: string, apiKey: string = TEST_KEY): GoogleGenAI {
  const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl } });
  const warn = console.warn;
  console.warn = () => {};
  try {
    void ai.environments;
    void ai.credentials;
  } finally {
    console.warn = warn;
  }
  return ai;
}
