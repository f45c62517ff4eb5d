/**
 * `from_environment` through the official client: a fork copies its origin's current tree and is
 * independent afterwards.
 */
import type { GoogleGenAI } from "@google/genai";
import { OTHER_KEY, startTestEmulator, type TestEmulator, officialClient } from "../../support/emulator";

let emulator: TestEmulator;
let ai: GoogleGenAI;

beforeAll(async () => {
  emulator = await startTestEmulator();
  ai = officialClient(emulator.url);
});
afterAll(async () => {
  await emulator.close();
});

const text = async (environment: string, path: string) => Buffer.from(await ai.environments.files.download({ environment, path })).toString();
const listing = async (environment: string) => (await ai.environments.files.list({ environment, path: "", recursive: true })).files!.map((file) => file.path);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: { status: number; error?: { error: { message: string; status: string } } }) => ({ status: error.status, code: error.error!.error.status, message: error.error!.error.message }),
  );

test("a fork holds the origin's current tree, with or without the environments/ prefix", async () => {
  const origin = await ai.environments.create({ sources: [{ type: "inline", content: "print(1)", target: "main.py" }] });
  await ai.environments.files.upload({ environment: origin.id, path: "later/added.txt", file: new TextEncoder().encode("after create") });

  for (const reference of [origin.id, `environments/${origin.id}`]) {
    const fork = await ai.environments.create({ from_environment: reference, network: "disabled" });
    expect(fork.id).not.toBe(origin.id);
    expect(fork).toMatchObject({ status: "active", file_count: "2", size_bytes: String(8 + 12), network: "disabled" });
    expect(await listing(fork.id)).toEqual(["later/added.txt", "main.py"]);
    expect(await text(fork.id, "later/added.txt")).toBe("after create");
  }
});

test("origin and fork are independent afterwards", async () => {
  const origin = await ai.environments.create({ sources: [{ type: "inline", content: "a", target: "shared.txt" }] });
  const fork = await ai.environments.create({ from_environment: origin.id });
  await ai.environments.files.upload({ environment: fork.id, path: "only-fork.txt", file: new TextEncoder().encode("f") });
  await ai.environments.files.upload({ environment: origin.id, path: "only-origin.txt", file: new TextEncoder().encode("o") });
  await ai.environments.files.upload({ environment: fork.id, path: "shared.txt", file: new TextEncoder().encode("changed in fork"), overwrite: true });

  expect(await listing(origin.id)).toEqual(["only-origin.txt", "shared.txt"]);
  expect(await listing(fork.id)).toEqual(["only-fork.txt", "shared.txt"]);
  expect(await text(origin.id, "shared.txt")).toBe("a");
  expect(await text(fork.id, "shared.txt")).toBe("changed in fork");

  await ai.environments.delete(origin.id);
  expect(await text(fork.id, "only-fork.txt")).toBe("f");
});

test("from_environment with sources is 400; an unknown or foreign origin is 404", async () => {
  const origin = await ai.environments.create({});
  expect(
    await failure(ai.environments.create({ from_environment: origin.id, sources: [{ type: "inline", content: "x", target: "x" }] })),
  ).toMatchObject({ status: 400, code: "INVALID_ARGUMENT", message: expect.stringMatching(/^sources: must be empty when from_environment is set/) });
  expect(await failure(ai.environments.create({ from_environment: "env_00000000000000000000" }))).toMatchObject({
    status: 404,
    message: "environment env_00000000000000000000 not found",
  });
  const other = officialClient(emulator.url, OTHER_KEY);
  expect(await failure(other.environments.create({ from_environment: origin.id }))).toMatchObject({ status: 404 });
  expect(await failure(ai.environments.create({ from_environment: "../etc" }))).toMatchObject({ status: 400, message: expect.stringContaining("from_environment:") });
});
