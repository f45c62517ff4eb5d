import { DEFAULTS, ConnectionError, EnvironmentsApiError, TimeoutError } from "../../../client";
import { backoffMs, isRetryable, retryAfterMs } from "../../../client/retry";

const policy = { ...DEFAULTS.retry };
const apiError = (httpStatus: number) => new EnvironmentsApiError("x", { httpStatus, status: "X", body: "", headers: {} });

describe("retry policy", () => {
  it("retries reads on 408/429/5xx and transport failures, create only when provably unprocessed", () => {
    const refused = new ConnectionError("refused", { networkCode: "ECONNREFUSED", refused: true });
    const reset = new ConnectionError("reset", { networkCode: "UND_ERR_SOCKET" });
    const timeout = new TimeoutError("slow", 100);
    const table = [apiError(408), apiError(429), apiError(500), apiError(503), apiError(404), apiError(409), refused, reset, timeout].map((e) => [
      e instanceof EnvironmentsApiError ? e.httpStatus : e.name + (e instanceof ConnectionError && e.refused ? "(refused)" : ""),
      isRetryable("idempotent", e),
      isRetryable("create", e),
    ]);
    expect(table).toEqual([
      [408, true, false],
      [429, true, true],
      [500, true, false],
      [503, true, true],
      [404, false, false],
      [409, false, false],
      ["ConnectionError(refused)", true, true],
      ["ConnectionError", true, false],
      ["TimeoutError", true, false],
    ]);
    expect(isRetryable("idempotent", new TypeError("bug"))).toBe(false);
  });

  it("reads retry-after-ms, Retry-After seconds and HTTP-dates", () => {
    const now = Date.parse("2026-08-19T00:00:00Z");
    expect(retryAfterMs({ "retry-after-ms": "50", "retry-after": "3" }, now)).toBe(50);
    expect(retryAfterMs({ "retry-after": "3" }, now)).toBe(3_000);
    expect(retryAfterMs({ "retry-after": "Wed, 19 Aug 2026 00:00:02 GMT" }, now)).toBe(2_000);
    expect(retryAfterMs({ "retry-after": "Wed, 18 Aug 2026 00:00:00 GMT" }, now)).toBe(0);
    expect(retryAfterMs({ "retry-after": "soon" }, now)).toBeUndefined();
    expect(retryAfterMs({ "retry-after-ms": "-1" }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });

  it("backs off exponentially from 250 ms, capped, with up to 25 % jitter", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(policy, n, () => 0))).toEqual([250, 500, 1000, 2000, 4000, 8000, 8000]);
    expect(backoffMs(policy, 1, () => 1)).toBe(188);
  });
});
