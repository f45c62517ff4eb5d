import { ConfigurationError, EnvironmentsClient } from "../../../client";
import { ENV, json, startServer, type TestServer } from "./_server";

describe("client configuration", () => {
  let server: TestServer;
  const clients: EnvironmentsClient[] = [];
  beforeEach(async () => {
    server = await startServer((_req, res) => json(res, 200, ENV));
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await server.close();
  });
  const make = (options: ConstructorParameters<typeof EnvironmentsClient>[0]) => {
    const client = new EnvironmentsClient(options);
    clients.push(client);
    return client;
  };

  it("fails at construction without an API key, naming the environment variables", () => {
    expect(() => new EnvironmentsClient({ env: {} })).toThrow(ConfigurationError);
    expect(() => new EnvironmentsClient({ env: { GOOGLE_API_KEY: "  " } })).toThrow(/GOOGLE_API_KEY or GEMINI_API_KEY/);
    try {
      new EnvironmentsClient({ env: {} });
    } catch (err) {
      expect(err).toMatchObject({ name: "ConfigurationError", code: "GENV_CONFIG", option: "apiKey" });
    }
  });

  it("takes the key from the option, else GOOGLE_API_KEY, else GEMINI_API_KEY", async () => {
    await make({ apiKey: "opt", baseUrl: server.baseUrl, env: { GOOGLE_API_KEY: "g", GEMINI_API_KEY: "m" } }).get("e");
    await make({ baseUrl: server.baseUrl, env: { GOOGLE_API_KEY: "g", GEMINI_API_KEY: "m" } }).get("e");
    await make({ baseUrl: server.baseUrl, env: { GEMINI_API_KEY: "m" } }).get("e");
    expect(server.received.map((r) => r.headers["x-goog-api-key"])).toEqual(["opt", "g", "m"]);
    expect(server.received[0].url).toBe("/v1beta/environments/e");
  });

  it("keeps a base URL path prefix with or without a trailing slash, and reads GOOGLE_GEMINI_BASE_URL", async () => {
    await make({ apiKey: "k", baseUrl: `${server.baseUrl}/proxy/gl/` }).get("e1");
    await make({ apiKey: "k", baseUrl: `${server.baseUrl}/proxy/gl` }).get("e1");
    await make({ apiKey: "k", env: { GOOGLE_GEMINI_BASE_URL: `${server.baseUrl}/envbase` } }).get("e1");
    await make({ apiKey: "k", baseUrl: server.baseUrl, apiVersion: "v1alpha" }).get("e1");
    expect(server.received.map((r) => r.url)).toEqual([
      "/proxy/gl/v1beta/environments/e1",
      "/proxy/gl/v1beta/environments/e1",
      "/envbase/v1beta/environments/e1",
      "/v1alpha/environments/e1",
    ]);
  });

  it("sends JSON headers and never the key in the query", async () => {
    await make({ apiKey: "k", baseUrl: server.baseUrl, headers: { "x-goog-user-project": "p" } }).create({ network: "disabled" });
    const [request] = server.received;
    expect(request.url).toBe("/v1beta/environments");
    expect(request.headers).toMatchObject({
      accept: "application/json",
      "content-type": "application/json",
      "x-goog-api-key": "k",
      "x-goog-user-project": "p",
    });
    expect(request.body).toBe('{"network":"disabled"}');
  });

  it.each([
    [{ baseUrl: "ftp://x" }, "baseUrl"],
    [{ baseUrl: "not a url" }, "baseUrl"],
    [{ apiVersion: "/v1" }, "apiVersion"],
    [{ timeoutMs: 0 }, "timeoutMs"],
    [{ retry: { maxAttempts: 1.5 } }, "retry.maxAttempts"],
    [{ retry: { jitter: 2 } }, "retry.jitter"],
  ])("rejects bad option %j", (options, option) => {
    expect(() => new EnvironmentsClient({ apiKey: "k", ...options })).toThrow(expect.objectContaining({ option }));
  });
});
