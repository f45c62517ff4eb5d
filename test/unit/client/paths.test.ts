import { ValidationError, type EnvironmentsClient } from "../../../client";
import { ENV, json, startServer, testClient, type TestServer } from "./_server";
import { formatIssuePath } from "../../../client/issues";

describe("request paths", () => {
  let server: TestServer;
  let client: EnvironmentsClient;
  beforeEach(async () => {
    server = await startServer((req, res) => json(res, 200, req.url?.includes("/files/") ? { files: [] } : ENV));
    client = testClient(server.baseUrl);
  });
  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it("keeps slashes literal and percent-encodes everything else in each segment", async () => {
    await client.listFiles({ environment: "env_1", path: "dir with space/ü é/a+b=c&d,e;f:g@h$i[j]k/q?x=1#frag/100%.txt" });
    expect(server.received[0].url).toBe(
      "/v1beta/environments/env_1/files/dir%20with%20space/%C3%BC%20%C3%A9/a%2Bb%3Dc%26d%2Ce%3Bf%3Ag%40h%24i%5Bj%5Dk/q%3Fx%3D1%23frag/100%25.txt",
    );
  });

  it("strips a leading slash and the environments/ prefix", async () => {
    await client.listFiles({ environment: "environments/env_1", path: "/workspace/src/main.py" });
    await client.listFiles({ environment: "env_1" });
    await client.get("environments/env abc");
    await client.download("environments/env_1", "//a%20b.txt").then((d) => d.body.resume());
    expect(server.received.map((r) => r.url)).toEqual([
      "/v1beta/environments/env_1/files/workspace/src/main.py",
      "/v1beta/environments/env_1/files/",
      "/v1beta/environments/env%20abc",
      "/v1beta/environments/env_1/files/a%2520b.txt?alt=media",
    ]);
  });

  it.each([
    ["w/../etc/passwd", "path"],
    ["./x", "path"],
  ])("refuses %j without sending anything", async (path, field) => {
    const err = await client.listFiles({ environment: "env_1", path }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(formatIssuePath((err as ValidationError).issues[0].path)).toBe(field);
    expect(server.received).toHaveLength(0);
  });

  it.each(["", "environments/", "a/b"])("refuses the environment id %j without sending anything", async (id) => {
    await expect(client.delete(id)).rejects.toMatchObject({ name: "ValidationError", issues: [expect.objectContaining({ path: ["id"] })] });
    await expect(client.listFiles({ environment: id })).rejects.toMatchObject({ issues: [expect.objectContaining({ path: ["environment"] })] });
    expect(server.received).toHaveLength(0);
  });
});
