// The watchdog that ends a provider process once its engine is gone (provider/engine-watchdog.ts):
// the engine's address found among the arguments the engine passes, and a real listener on port 0
// standing in for the engine's gRPC server, closed to play the killed engine.
import * as net from "node:net";
import { engineAddressOf, exitWhenEngineGone } from "../../../provider/engine-watchdog";

describe("engineAddressOf", () => {
  test("is the first argument that is not a logging flag", () => {
    expect(engineAddressOf(["127.0.0.1:4321"])).toBe("127.0.0.1:4321");
    expect(engineAddressOf(["--logtostderr", "-v=9", "--tracing", "file:/tmp/t.json", "127.0.0.1:4321"])).toBe("127.0.0.1:4321");
    expect(engineAddressOf([])).toBeUndefined();
  });
});

describe("exitWhenEngineGone", () => {
  test("calls onGone once nothing listens any more at the engine's address it reached before", async () => {
    const engine = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve));
    const { port } = engine.address() as net.AddressInfo;
    const seen = new Promise<void>((resolve) => engine.once("connection", () => resolve()));
    const gone = new Promise<void>((resolve) => exitWhenEngineGone(`127.0.0.1:${port}`, resolve));
    await seen; // gone means seen, then refused
    await new Promise<void>((resolve) => engine.close(() => resolve()));
    await gone; // jest's timeout fails the test when it never comes
  });
});
