/** `genv serve` configured from the environment, as a container is: GENV_API_KEY and GENV_DATA_DIR. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { EnvironmentsClient } from "../../../client/client";
import { serveFromSources } from "../../support/genv-serve";

const scratch = mkdtempSync(path.join(os.tmpdir(), "genv-serve-env-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("GENV_API_KEY is the accepted key (none generated) and GENV_DATA_DIR the data directory", async () => {
  const dataDir = path.join(scratch, "data");
  const server = await serveFromSources(["--port", "0"], { GENV_API_KEY: "key-from-env", GENV_DATA_DIR: dataDir });
  try {
    expect(server.stdout()).toBe(`${server.url}\n`);
    const client = new EnvironmentsClient({ apiKey: "key-from-env", baseUrl: server.url });
    await expect(client.create({})).resolves.toMatchObject({ status: "active" });
    await client.close();
    expect(existsSync(path.join(dataDir, "environments.sqlite"))).toBe(true);
  } finally {
    await server.close();
  }
}, 30_000);

test("--api-key on the command line wins over GENV_API_KEY", async () => {
  const server = await serveFromSources(["--port", "0", "--in-memory", "--api-key", "key-from-flag"], { GENV_API_KEY: "key-from-env" });
  try {
    const fromEnv = new EnvironmentsClient({ apiKey: "key-from-env", baseUrl: server.url });
    await expect(fromEnv.create({})).rejects.toMatchObject({ status: "INVALID_ARGUMENT" });
    await fromEnv.close();
    const fromFlag = new EnvironmentsClient({ apiKey: "key-from-flag", baseUrl: server.url });
    await expect(fromFlag.create({})).resolves.toMatchObject({ status: "active" });
    await fromFlag.close();
  } finally {
    await server.close();
  }
}, 30_000);
