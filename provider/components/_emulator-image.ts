/**
 * The emulator's image, made present before `@pulumi/docker`'s RemoteImage asks for it, so that an
 * image the Docker engine has not and cannot pull stops `up` with an error that names it and the two
 * ways to have it, rather than the registry's answer alone. Through the Docker Engine API of the
 * engine the Docker provider reaches by default (`DOCKER_HOST`: a Unix socket or plain TCP; unset,
 * /var/run/docker.sock); elsewhere (TLS, SSH) the RemoteImage's own pull and error stand. At preview
 * nothing is pulled.
 */
import { Agent, request, type Dispatcher } from "undici";

const DEFAULT_SOCKET = "/var/run/docker.sock";

/** `image`, in the engine once this resolves; throws the explanation when it is not and cannot be pulled. */
export async function ensureEmulatorImage(image: string, released: string, environment: NodeJS.ProcessEnv = process.env): Promise<string> {
  const engine = dockerEngine(environment);
  if (!engine) return image;
  try {
    let inspected: Dispatcher.ResponseData;
    try {
      inspected = await request(`${engine.origin}/images/${encodeURIComponent(image)}/json`, { dispatcher: engine.dispatcher });
    } catch {
      return image; // no engine there to ask: the Docker provider reports its own connection error
    }
    await inspected.body.dump();
    if (inspected.statusCode === 200) return image;
    const reason = await pull(engine, image);
    if (reason === undefined) return image;
    throw new Error(missingImageMessage(image, released, reason));
  } finally {
    await engine.dispatcher.close();
  }
}

/** What to do when the Docker engine has no `image` and cannot pull it. */
export function missingImageMessage(image: string, released: string, reason: string): string {
  return [
    `the emulator's image ${image} is not in the Docker engine and could not be pulled (${reason}). Either`,
    `  - pull it where its registry is reachable: docker pull ${image} (the release pushes ${released}; docker save and docker load carry it to a machine with no route), or`,
    "  - build it from a clone of the repository: scripts/emulator-image (it prints genv-emulator:local), and give that name as EmulatorContainer's image.",
  ].join("\n");
}

interface DockerEngine {
  origin: string;
  dispatcher: Dispatcher;
}

function dockerEngine(environment: NodeJS.ProcessEnv): DockerEngine | undefined {
  const host = environment.DOCKER_HOST || `unix://${DEFAULT_SOCKET}`;
  if (host.startsWith("unix://")) return { origin: "http://docker", dispatcher: new Agent({ connect: { socketPath: host.slice("unix://".length) } }) };
  if (host.startsWith("tcp://") && !environment.DOCKER_TLS_VERIFY && !environment.DOCKER_CERT_PATH) return { origin: `http://${host.slice("tcp://".length)}`, dispatcher: new Agent() };
  return undefined;
}

/** Pulls `image` (the Engine API's create, which streams progress as JSON lines); the engine's reason when it fails. */
async function pull(engine: DockerEngine, image: string): Promise<string | undefined> {
  const response = await request(`${engine.origin}/images/create?fromImage=${encodeURIComponent(image)}`, { method: "POST", dispatcher: engine.dispatcher });
  const text = await response.body.text();
  if (response.statusCode !== 200) return messageOf(text) ?? `HTTP ${response.statusCode}`;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const error = (JSON.parse(line) as { error?: string }).error;
    if (error) return error;
  }
  return undefined;
}

function messageOf(text: string): string | undefined {
  try {
    return (JSON.parse(text) as { message?: string }).message;
  } catch {
    return text.trim() || undefined;
  }
}
