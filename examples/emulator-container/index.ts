/**
 * emulator-container: a throwaway Environments API and an environment in it, in one program. The
 * emulator runs as a Docker container (`EmulatorContainer`, on @pulumi/docker); its `baseUrl` and
 * generated `apiKey` configure a `plugin.Provider`, and a `GuardedEnvironment` with a hook that blocks
 * deletes is created through it. `pulumi destroy` removes the environment, the container and its volume.
 * Config (all optional): `image`, `port`, `network` (Pulumi.yaml says what each is).
 */
import * as pulumi from "@pulumi/pulumi";
import { command, EmulatorContainer, group, HookBundle, NetworkPolicy, plugin, type EmulatorNetwork } from "pulumi-gemini-environments";

const config = new pulumi.Config();

const emulator = new EmulatorContainer("emulator", {
  image: config.get("image") || undefined, // "": the released image of the package's version
  port: config.getNumber("port"),
  network: config.get("network") as EmulatorNetwork | undefined,
});

// Environments of this program go to the container's emulator, with its key.
const provider = new plugin.Provider("emulator", { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });

const hooks = new HookBundle({
  hooks: {
    "no-deletes": group().before("code_execution", command("python3 /.agents/hooks-scripts/no-deletes.py", { timeout: 10 })),
  },
  scripts: { "no-deletes.py": { file: "hooks-scripts/no-deletes.py" } },
  baseDir: __dirname,
});

const env = new plugin.GuardedEnvironment(
  "agent",
  {
    hooks,
    network: NetworkPolicy.disabled(),
    sources: [{ type: "inline", target: "workspace/notes.txt", content: "keep me\n" }],
  },
  { provider },
);

export const baseUrl = emulator.baseUrl;
export const apiKey = emulator.apiKey;
export const environmentId = env.environmentId;
