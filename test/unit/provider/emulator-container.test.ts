import * as fs from "node:fs";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as apiKeyProvider from "../../../provider/components/emulator-api-key-provider";
import { EmulatorContainer } from "../../../provider/components/emulator-container";
import { InvalidInputError } from "../../../provider/contracts/errors";

// What EmulatorContainer asks of @pulumi/docker, seen through Pulumi's mocks; the container itself runs
// in test/e2e/emulator-container.test.ts.
const created: pulumi.runtime.MockResourceArgs[] = [];

beforeAll(() => {
  pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        created.push(args);
        return { id: `${args.name}-id`, state: { ...args.inputs, name: args.inputs.name ?? `${args.name}-1234567`, imageId: "sha256:abc" } };
      },
      call: (args) => args.inputs,
    },
    "project",
    "stack",
    // A preview: no image is pulled (at `up` the component makes it present first; test/e2e/emulator-container.test.ts).
    true,
  );
});

const value = <T>(output: pulumi.Output<T>) => new Promise<T>((resolve) => output.apply(resolve));
const inputsOf = (type: string, name: string) => created.find((args) => args.type === type && args.name === name)?.inputs;

test("host network: genv serve on 127.0.0.1:port with the key, the volume at /data, the security options and a health check waited for", async () => {
  const emulator = new EmulatorContainer("host", { image: "genv-emulator:test", port: 9123, network: "host", apiKey: "k-1" });
  expect(await value(emulator.baseUrl)).toBe("http://127.0.0.1:9123");
  expect(await value(emulator.apiKey)).toBe("k-1");
  expect(await pulumi.isSecret(emulator.apiKey)).toBe(true);
  const container = inputsOf("docker:index/container:Container", "host");
  expect(container).toMatchObject({
    image: "sha256:abc",
    command: ["serve", "--host", "127.0.0.1", "--port", "9123"],
    // The key reaches the container only as a secret.
    envs: { [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig, value: ["GENV_API_KEY=k-1"] },
    networkMode: "host",
    volumes: [{ volumeName: "host-data-1234567", containerPath: "/data" }],
    securityOpts: ["seccomp=unconfined", "systempaths=unconfined"],
    healthcheck: { tests: ["CMD", "genv-healthcheck"] },
    wait: true,
  });
  expect(container?.ports).toBeUndefined();
  expect(inputsOf("docker:index/remoteImage:RemoteImage", "host-image")).toMatchObject({ name: "genv-emulator:test", keepLocally: true });
});

test("bridge network (default): the container's 8765 published on 127.0.0.1:port", async () => {
  const emulator = new EmulatorContainer("bridge", { port: 9124, apiKey: "k-2" });
  expect(await value(emulator.baseUrl)).toBe("http://127.0.0.1:9124");
  const container = inputsOf("docker:index/container:Container", "bridge");
  expect(container).toMatchObject({ command: ["serve", "--host", "0.0.0.0", "--port", "8765"], ports: [{ internal: 8765, external: 9124, ip: "127.0.0.1" }] });
  expect(container?.networkMode).toBeUndefined();
  // The default image is the released one of the package's own version.
  const { version } = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../../package.json"), "utf8")) as { version: string };
  expect(inputsOf("docker:index/remoteImage:RemoteImage", "bridge-image")).toMatchObject({ name: `ghcr.io/gemini-environments/pulumi-gemini-environments:${version}` });
});

test.each([
  [{ port: 0 }, "EmulatorContainer: port: 0 is not a TCP port: give an integer from 1 to 65535 (default 8765)"],
  [{ port: 8765.5 }, "EmulatorContainer: port: 8765.5 is not a TCP port: give an integer from 1 to 65535 (default 8765)"],
  [{ network: "overlay" as never }, 'EmulatorContainer: network: "overlay": give "bridge" (a published port) or "host" (the host\'s network)'],
])("a bad %j stops the program naming the field and the fix", (args, message) => {
  const attempt = () => new EmulatorContainer("bad", args);
  expect(attempt).toThrow(InvalidInputError);
  expect(attempt).toThrow(message);
});

test("the generated key: 256 random bits, made at create, never changed by a diff", async () => {
  const first = await apiKeyProvider.create();
  const second = await apiKeyProvider.create();
  expect(first.outs.value).toMatch(/^genv_[A-Za-z0-9_-]{43}$/);
  expect(second.outs.value).not.toBe(first.outs.value);
  expect(await apiKeyProvider.diff()).toEqual({ changes: false });
});
