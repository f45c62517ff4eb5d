/**
 * `EmulatorContainer`: the emulator (`genv serve`) as a Docker container that the program creates and
 * destroys, for a throwaway Environments API in a pull request's stack, a demo or a CI job.
 *
 * ```ts
 * const emulator = new EmulatorContainer("emulator"); // the released image of this package's version
 * const provider = new plugin.Provider("emulator", { baseUrl: emulator.baseUrl, apiKey: emulator.apiKey });
 * new plugin.GuardedEnvironment("agent", { hooks: bundle, network: NetworkPolicy.unrestricted() }, { provider });
 * ```
 *
 * Its children, on `@pulumi/docker` (an optional peer dependency, loaded here only): the image by name
 * (`RemoteImage`, kept in the engine at destroy), a data `Volume` for the emulator's database and trees,
 * a `Container` running `genv serve` with the sandbox's security options and a health check that
 * creation waits for, and the API key (a dynamic resource: emulator-api-key-provider.ts). Destroy
 * removes the container and the volume.
 */
import * as pulumi from "../contracts/pulumi-sdk";
import { issueAt } from "../../client/issues";
import { InvalidInputError } from "../contracts/errors";
import { requireOptionalPeer } from "../contracts/optional-peer";
import { releasedEmulatorImage } from "../contracts/package-identity";
import { ensureEmulatorImage } from "./_emulator-image";
import * as apiKeyProvider from "./emulator-api-key-provider";
import type { EmulatorApiKeyOutputs } from "./emulator-api-key-provider";

export const EMULATOR_CONTAINER_TYPE = "gemini-environments:index:EmulatorContainer";

const DEFAULT_PORT = 8765;
/** Where the image's `genv serve` keeps its data (GENV_DATA_DIR, the Dockerfile's VOLUME). */
const DATA_DIR = "/data";
/**
 * What bubblewrap needs in a container (docs/emulator.md, "The emulator in a container"): the default
 * seccomp profile refuses its namespaces, and the masked /proc paths stop it mounting the sandbox's own.
 */
const SECURITY_OPTS = ["seccomp=unconfined", "systempaths=unconfined"];

export type EmulatorNetwork = "bridge" | "host";

export interface EmulatorContainerArgs {
  /**
   * The emulator's image: a name the Docker engine has or can pull, or the `ref` of a
   * `@pulumi/docker-build` Image. Default: the released image of this package's version,
   * `ghcr.io/gemini-environments/pulumi-gemini-environments:<version>` (linux/amd64 and linux/arm64).
   * From a clone, `scripts/emulator-image` builds `genv-emulator:local` (the examples' config sets it).
   */
  image?: pulumi.Input<string>;
  /** The port on the host's loopback, 127.0.0.1 (default 8765). */
  port?: number;
  /**
   * `bridge` (default): the container's port 8765 published on 127.0.0.1:`port`. `host`: the
   * container shares the host's network and `genv serve` listens on 127.0.0.1:`port` itself, for an
   * engine without a bridge network (`dockerd --bridge=none`).
   */
  network?: EmulatorNetwork;
  /** The API key the emulator accepts; default one made at the first `up` and kept in the state (secret). */
  apiKey?: pulumi.Input<string>;
}

export class EmulatorContainer extends pulumi.ComponentResource {
  /** `http://127.0.0.1:<port>`, known once the container is healthy: the `baseUrl` of a `plugin.Provider`. */
  readonly baseUrl: pulumi.Output<string>;
  /** The API key the emulator accepts (secret): the `apiKey` of a `plugin.Provider`. */
  readonly apiKey: pulumi.Output<string>;
  /** The Docker volume holding the emulator's data. */
  readonly volumeName: pulumi.Output<string>;
  /** The container's name in the Docker engine. */
  readonly containerName: pulumi.Output<string>;
  /** The children, a `@pulumi/docker` Container and Volume. */
  readonly container: pulumi.CustomResource;
  readonly volume: pulumi.CustomResource;

  constructor(name: string, args: EmulatorContainerArgs = {}, opts?: pulumi.ComponentResourceOptions) {
    const port = checkedPort(args.port);
    const network = checkedNetwork(args.network);
    const docker = requireOptionalPeer<typeof import("@pulumi/docker")>("@pulumi/docker", { neededBy: "EmulatorContainer", version: "5.0.0" });
    super(EMULATOR_CONTAINER_TYPE, name, {}, opts);

    const apiKey = args.apiKey !== undefined ? pulumi.secret(args.apiKey) : new EmulatorApiKey(`${name}-api-key`, { parent: this }).value;
    // At `up`, the image made present first, so that one that cannot be had is named with the ways to have it (_emulator-image.ts).
    const { isDryRun } = require("@pulumi/pulumi/runtime/settings") as { isDryRun(): boolean };
    const imageName = pulumi.output(args.image ?? releasedEmulatorImage()).apply((image) => (isDryRun() ? Promise.resolve(image) : ensureEmulatorImage(image, releasedEmulatorImage())));
    const image = new docker.RemoteImage(`${name}-image`, { name: imageName, keepLocally: true }, { parent: this });
    const volume = new docker.Volume(`${name}-data`, {}, { parent: this });
    const listen = network === "host" ? { host: "127.0.0.1", port } : { host: "0.0.0.0", port: DEFAULT_PORT };
    const container = new docker.Container(
      name,
      {
        image: image.imageId,
        command: ["serve", "--host", listen.host, "--port", String(listen.port)],
        envs: [pulumi.interpolate`GENV_API_KEY=${apiKey}`],
        volumes: [{ volumeName: volume.name, containerPath: DATA_DIR }],
        ...(network === "host" ? { networkMode: "host" } : { ports: [{ internal: DEFAULT_PORT, external: port, ip: "127.0.0.1" }] }),
        securityOpts: SECURITY_OPTS,
        // The image's own check (scripts/container-healthcheck), probed often so that creation, which
        // waits for `healthy`, returns within seconds of the server answering.
        healthcheck: { tests: ["CMD", "genv-healthcheck"], interval: "2s", timeout: "5s", startPeriod: "30s", retries: 3 },
        wait: true,
        waitTimeout: 90,
        restart: "unless-stopped",
      },
      {
        parent: this,
        // The provider reads back the daemon's security options, where `systempaths=unconfined` (which
        // the client turns into empty masked and read-only path lists) is not; without this every
        // preview would replace the container.
        ignoreChanges: ["securityOpts"],
      },
    );

    this.apiKey = pulumi.secret(apiKey);
    // Through the container's id: a Provider fed with it waits for the healthy container.
    this.baseUrl = container.id.apply(() => `http://127.0.0.1:${port}`);
    this.volumeName = volume.name;
    this.containerName = container.name;
    this.container = container;
    this.volume = volume;
    this.registerOutputs({ baseUrl: this.baseUrl, apiKey: this.apiKey, volumeName: this.volumeName, containerName: this.containerName });
  }
}

/** The generated API key: a dynamic resource, so that it is made once and kept (emulator-api-key-provider.ts). */
class EmulatorApiKey extends pulumi.dynamic.Resource {
  declare readonly value: pulumi.Output<string>;

  constructor(name: string, opts: pulumi.CustomResourceOptions) {
    const provider: pulumi.dynamic.ResourceProvider<Record<string, never>, EmulatorApiKeyOutputs> = apiKeyProvider;
    super(provider, name, { value: undefined }, { ...opts, additionalSecretOutputs: ["value"] }, "gemini-environments", "EmulatorApiKey");
  }
}

function checkedPort(port: number | undefined): number {
  if (port === undefined) return DEFAULT_PORT;
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return port;
  throw new InvalidInputError([issueAt(["port"], "invalid-port", `${String(port)} is not a TCP port: give an integer from 1 to 65535 (default ${DEFAULT_PORT})`)], {
    what: "EmulatorContainer",
  });
}

function checkedNetwork(network: string | undefined): EmulatorNetwork {
  if (network === undefined || network === "bridge" || network === "host") return network ?? "bridge";
  throw new InvalidInputError([issueAt(["network"], "invalid-network", `${JSON.stringify(network)}: give "bridge" (a published port) or "host" (the host's network)`)], {
    what: "EmulatorContainer",
  });
}
