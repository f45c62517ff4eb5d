import { EnvironmentsApiError, isAlreadyExists, isNotFound, UnexpectedResponseError, type EnvironmentsClient } from "../../../client";
import { ENV, googleError, json, startServer, testClient, type TestServer } from "./_server";
import { formatIssuePath } from "../../../client/issues";

describe("error responses", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  let reply: Parameters<typeof startServer>[0];
  beforeEach(async () => {
    server = await startServer((req, res, received, index) => reply(req, res, received, index));
    client = testClient(server.baseUrl, { retry: { maxAttempts: 1 } });
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it("turns Google's envelope into status, name and message", async () => {
    reply = (_req, res) => googleError(res, 404, "NOT_FOUND", "environment env_x not found");
    const err = await client.get("env_x").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvironmentsApiError);
    expect(isNotFound(err)).toBe(true);
    expect(isAlreadyExists(err)).toBe(false);
    const { name, code, httpStatus, status, message, body } = err as EnvironmentsApiError;
    expect({ name, code, httpStatus, status, message, body }).toMatchInlineSnapshot(`
{
  "body": "{"error":{"code":404,"message":"environment env_x not found","status":"NOT_FOUND"}}",
  "code": "GENV_API",
  "httpStatus": 404,
  "message": "environment env_x not found",
  "name": "EnvironmentsApiError",
  "status": "NOT_FOUND",
}
`);
  });

  it("recognises ALREADY_EXISTS from the body even though 409 alone maps to ABORTED", async () => {
    reply = (_req, res) => googleError(res, 409, "ALREADY_EXISTS", "exists");
    expect(isAlreadyExists(await client.get("e").catch((e: unknown) => e))).toBe(true);
  });

  it("gives a clean error for an HTML body from a proxy", async () => {
    reply = (_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><head><style>p{color:red}</style><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>");
    };
    const err = (await client.get("e").catch((e: unknown) => e)) as EnvironmentsApiError;
    expect(err).toBeInstanceOf(EnvironmentsApiError);
    expect(err).toMatchObject({ httpStatus: 502, status: "UNAVAILABLE", message: "HTTP 502: 502 Bad Gateway Bad Gateway" });
    expect(err.body).toContain("<html>");
    expect(isNotFound(err)).toBe(false);
  });

  it("handles an empty body and an envelope without status", async () => {
    reply = (_req, res, _r, index) => {
      if (index === 0) {
        res.writeHead(403).end();
      } else {
        json(res, 400, { error: { message: "bad page_token" } });
      }
    };
    await expect(client.get("e")).rejects.toMatchObject({ httpStatus: 403, status: "PERMISSION_DENIED", message: "HTTP 403" });
    await expect(client.get("e")).rejects.toMatchObject({ httpStatus: 400, status: "INVALID_ARGUMENT", message: "bad page_token" });
  });

  it("rejects a 2xx body that is not JSON or not the documented shape", async () => {
    reply = (_req, res, _r, index) => {
      if (index === 0) {
        res.writeHead(200, { "content-type": "application/json" }).end("{nope");
      } else {
        json(res, 200, { ...ENV, size_bytes: 12 });
      }
    };
    await expect(client.get("e")).rejects.toBeInstanceOf(UnexpectedResponseError);
    const err = (await client.get("e").catch((e: unknown) => e)) as UnexpectedResponseError;
    expect(err.issues.map((issue) => formatIssuePath(issue.path))).toEqual(["size_bytes"]);
  });

  it("keeps int64 values as decimal strings", async () => {
    reply = (_req, res) => json(res, 200, { ...ENV, file_count: "3", size_bytes: "9007199254740993" });
    const env = await client.get("env_abc123");
    expect(env.size_bytes).toBe("9007199254740993");
    expect(env.file_count).toBe("3");
  });
});
