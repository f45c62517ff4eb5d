/**
 * `client.files.upload` against the emulator: the resumable protocol in 8 MiB chunks, overwrite,
 * extract, and the errors a caller sees.
 */
import { EnvironmentsClient } from "../../../client/client";
import { EnvironmentsApiError } from "../../../client/errors";
import { startTestEmulator, TEST_KEY, type TestEmulator } from "../../support/emulator";

let emulator: TestEmulator;
let client: EnvironmentsClient;
beforeAll(async () => {
  emulator = await startTestEmulator();
  client = new EnvironmentsClient({ apiKey: TEST_KEY, baseUrl: emulator.url });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

test("a file over one chunk arrives whole, in two chunk POSTs after the start, and the written file is returned", async () => {
  const { id } = await client.create({});
  const data = Buffer.alloc(9 * 1024 * 1024 + 5, 7);
  data.write("tail", data.length - 4);
  const before = emulator.requests.length;
  const files = await client.files.upload({ environment: id, path: "data/blob.bin", data });
  expect(files).toEqual([expect.objectContaining({ path: "data/blob.bin", size_bytes: String(data.length) })]);
  expect(emulator.requests.slice(before).map((entry) => entry.method)).toEqual(["PUT", "POST", "POST"]);
  expect((await client.files.downloadBuffer(id, "data/blob.bin")).data.equals(data)).toBe(true);
});

test("an existing file is refused without overwrite, naming the fix, and replaced with it; an empty file is one chunk", async () => {
  const { id } = await client.create({ sources: [{ type: "inline", target: "a.txt", content: "one" }] });
  const refused = await client.files.upload({ environment: id, path: "a.txt", data: "two" }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(EnvironmentsApiError);
  expect((refused as EnvironmentsApiError).status).toBe("ALREADY_EXISTS");
  expect((refused as Error).message).toMatch(/overwrite: true/);
  await client.files.upload({ environment: id, path: "a.txt", data: "two", overwrite: true });
  expect((await client.files.downloadBuffer(id, "a.txt")).data.toString()).toBe("two");
  await client.files.upload({ environment: id, path: "empty", data: new Uint8Array(0) });
  expect((await client.files.downloadBuffer(id, "empty")).data.length).toBe(0);
});
