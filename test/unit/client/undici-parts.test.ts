import * as undici from "undici";
import { EnvironmentsClient } from "../../../client";
import { ENV } from "./_server";

describe("the parts of undici the client loads on their own", () => {
  // The modules client/_undici.ts loads: if undici moved them, these would fail before the client did.
  it("are the Agent and the request method that undici's index exports", () => {
    expect(require("undici/lib/dispatcher/agent")).toBe(undici.Agent);
    expect((undici.Dispatcher.prototype as unknown as Record<string, unknown>).request).toBe(require("undici/lib/api/api-request"));
  });

  it("send through a caller's dispatcher of another undici class (a MockAgent, as a ProxyAgent would be)", async () => {
    const mock = new undici.MockAgent();
    mock.disableNetConnect();
    mock.get("http://api.test").intercept({ path: "/v1beta/environments/env_1", method: "GET" }).reply(200, ENV);
    const client = new EnvironmentsClient({ apiKey: "key", baseUrl: "http://api.test", dispatcher: mock, env: {} });
    try {
      expect(await client.get("env_1")).toMatchObject({ id: ENV.id, status: ENV.status });
      mock.assertNoPendingInterceptors();
    } finally {
      await client.close();
      await mock.close();
    }
  });
});
