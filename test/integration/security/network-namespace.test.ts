/**
 * The sandbox's network namespace holds nothing of another call. As root, calls join namespaces that
 * the emulator made ahead (emulator/sandbox/_netns.ts); each must be used by one call only, and the
 * sandbox must hold no capability over it.
 *
 * - A call leaves listeners behind in every way it can: a TCP listener on 127.0.0.1 and an abstract unix
 *   socket, held by a process started with setsid/nohup, and the same two held by no process at all —
 *   their descriptors in flight in a unix socket that only its own queue references (SCM_RIGHTS in a
 *   cycle), which outlives the call's processes until the kernel's unix garbage collector runs. In a
 *   namespace kept for the environment the next call connected to those. The next call of the same
 *   environment, and a call of another, must connect to none of them; the kept ones must listen in
 *   the leaving call, or the test proves nothing.
 * - A call cannot change its namespace: no new link, loopback stays up, no per-namespace sysctl.
 * - Two calls never see the same namespace. A namespace is told by its cookie (SO_NETNS_COOKIE, Linux
 *   5.14+), which the kernel never gives twice; its inode number (/proc/self/ns/net) is reused as soon as
 *   the namespace is freed, so two calls one after the other may show the same one.
 */
import { describeNeeding } from "../../support/prerequisites";
import { createEnvironment, executeTool, inlineFiles, python, startAttackEmulator, type AttackEmulator } from "./_attack";

const TCP_KEPT = 47001; // held by a background process
const TCP_IN_FLIGHT = 47002; // held by no process
const UNIX_KEPT = "genv-attack-kept";
const UNIX_IN_FLIGHT = "genv-attack-in-flight";

const PROBE = `
import errno, json, socket
def reach(family, address):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(address)
        return "CONNECTED"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e))
    finally:
        s.close()
# In this order: the first unix socket this call releases would run the collector that takes the ones in flight.
results = {}
results["tcp kept"] = reach(socket.AF_INET, ("127.0.0.1", ${TCP_KEPT}))
results["tcp in flight"] = reach(socket.AF_INET, ("127.0.0.1", ${TCP_IN_FLIGHT}))
results["unix in flight"] = reach(socket.AF_UNIX, "\\0${UNIX_IN_FLIGHT}")
results["unix kept"] = reach(socket.AF_UNIX, "\\0${UNIX_KEPT}")
print(json.dumps(results))
`;

const KEEPER = `
import socket, time
t = socket.socket(); t.bind(("127.0.0.1", ${TCP_KEPT})); t.listen(16)
u = socket.socket(socket.AF_UNIX); u.bind("\\0${UNIX_KEPT}"); u.listen(16)
time.sleep(120)
`;

// Leaves the four listeners and answers which of them listen: the ones in flight right after their
// last descriptor is closed, the kept ones once their process is up. It looks in /proc/net rather than
// connecting: releasing a unix socket (any, anywhere on the host) runs the garbage collector that takes
// the ones in flight.
const LEAVE = `
import array, json, socket, subprocess, sys, time
def listening():
    tcp = {int(line.split()[1].split(":")[1], 16) for line in open("/proc/net/tcp").readlines()[1:] if line.split()[3] == "0A"}
    unix = {line.split()[-1] for line in open("/proc/net/unix").readlines()[1:] if len(line.split()) > 7}
    return lambda port, name: "LISTENING" if port in tcp and "@" + name in unix else "absent"
subprocess.Popen(["setsid", "nohup", sys.executable, "-c", ${JSON.stringify(KEEPER)}], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
t = socket.socket(); t.bind(("127.0.0.1", ${TCP_IN_FLIGHT})); t.listen(16)
u = socket.socket(socket.AF_UNIX); u.bind("\\0${UNIX_IN_FLIGHT}"); u.listen(16)
a, b = socket.socketpair()
# b's own descriptor in b's queue, with the listeners: once b's last descriptor is closed, no process reaches them.
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno(), t.fileno(), u.fileno()]))])
for s in (t, u, a, b):
    s.close()
results = {"in flight": listening()(${TCP_IN_FLIGHT}, "${UNIX_IN_FLIGHT}")}
for _ in range(500):
    results["kept"] = listening()(${TCP_KEPT}, "${UNIX_KEPT}")
    if results["kept"] == "LISTENING":
        break
    time.sleep(0.01)
print(json.dumps(results))
`;

const NONE_CONNECTED = { "tcp kept": "ECONNREFUSED", "tcp in flight": "ECONNREFUSED", "unix kept": "ECONNREFUSED", "unix in flight": "ECONNREFUSED" };

// Changes a call might make to its namespace; each answers what happened.
const CHANGE = `
import json, os, socket, struct, subprocess
SO_NETNS_COOKIE = 71
results = {}
for name in ("net/core/somaxconn", "net/ipv4/ip_unprivileged_port_start", "net/ipv4/ping_group_range"):
    path = "/proc/sys/" + name
    try:
        current = open(path).read()
        with open(path, "w") as f:
            f.write(current)
        results[name] = "WRITTEN"
    except OSError as e:
        results[name] = "refused"
ip = next((p for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip") if os.path.exists(p)), None)
if ip:
    for step, args in (("link add", ["link", "add", "genv0", "type", "dummy"]), ("lo down", ["link", "set", "lo", "down"])):
        results[step] = "DONE" if subprocess.run([ip, *args], capture_output=True).returncode == 0 else "refused"
try:
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    results["packet socket"] = "OPENED"
except OSError:
    results["packet socket"] = "refused"
s = socket.socket()
try:
    s.connect(("127.0.0.1", 9))
    results["loopback"] = "connected"
except OSError as e:
    results["loopback"] = "up" if e.errno == 111 else os.strerror(e.errno)
print(json.dumps({"namespace": struct.unpack("Q", s.getsockopt(socket.SOL_SOCKET, SO_NETNS_COOKIE, 8))[0], "results": results}))
`;

describeNeeding({ "root (uid 0), as CI runs the tests": process.getuid?.() === 0 })("the network namespace of a call", () => {
  let emulator: AttackEmulator;

  beforeAll(async () => {
    emulator = await startAttackEmulator();
  });

  const run = async (id: string, code: string): Promise<any> => {
    const { status, body } = await executeTool(emulator, id, python(code));
    expect({ status, exit: body.exit_code, error: body.error }).toEqual({ status: 200, exit: 0, error: body.error });
    return JSON.parse(body.output.trim().split("\n").pop()!);
  };

  test("holds no listener of an earlier call, of the same environment or another", async () => {
    const first = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
    const other = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
    // Warm: the namespaces made ahead are there from the second call on.
    await run(first, PROBE);
    for (let round = 0; round < 3; round++) {
      const left = await run(first, LEAVE);
      expect({ round, keptInTheLeavingCall: left.kept }).toEqual({ round, keptInTheLeavingCall: "LISTENING" });
      expect({ round, nextCallSameEnvironment: await run(first, PROBE) }).toEqual({ round, nextCallSameEnvironment: NONE_CONNECTED });
      expect({ round, callOfAnotherEnvironment: await run(other, PROBE) }).toEqual({ round, callOfAnotherEnvironment: NONE_CONNECTED });
    }
    // The ones in flight are not required in the leaving call: any unix socket released on the host
    // between their last close and the look runs the collector that takes them (under a parallel test
    // run, every time). Whether a namespace is ever another call's is the next test's.
  });

  test("cannot be changed from inside, has its loopback up, and is never another call's", async () => {
    const id = await createEnvironment(emulator, { sources: inlineFiles({ "workspace/a.txt": "a" }) });
    const seen: number[] = [];
    for (let call = 0; call < 4; call++) {
      const { namespace, results } = await run(id, CHANGE);
      seen.push(namespace);
      const refused = Object.fromEntries(Object.keys(results).filter((key) => key !== "loopback").map((key) => [key, "refused"]));
      expect({ call, results }).toEqual({ call, results: { ...refused, loopback: "up" } });
    }
    expect(new Set(seen).size).toBe(seen.length);
  });
});
