// node patch-host.js MAIN_GO LANGUAGE: the edits scripts/pulumi-engine makes to the package main of
// an old sdk/v3's language host for LANGUAGE (nodejs or python: v3.68.0; go: v3.66.0) before building it.
//
// All three hosts: exit when the engine interrupts them, even when started with SIGINT ignored. The engine
// stops a plugin by sending SIGINT to its process group and waiting up to 5 s before SIGKILL
// (sdk/go/common/resource/plugin/plugin.go, v3.248). A Go program started with SIGINT ignored keeps
// ignoring it unless it asks for it (os/signal), and these hosts do not: started by a non-interactive
// shell in the background (`pulumi up &`, nohup, CI steps run that way), every pulumi command that runs
// a program waited the full 5 s. The hosts Pulumi ships since v3.80 (pulumi/pulumi#13809) make the
// same change: the serving context ends on SIGINT.
//
// The Go host's Run waits for the program it started and answers once, with no channel, so the
// Node.js host's race below has no counterpart there.
//
// nodejs only:
// - its RunPlugin (it answers "not supported") is taken out; run_plugin.go defines it.
// - Run's response channel gets room for each of its three senders (the gRPC server, the sync-invoke
//   pipes, the program) and is never closed. Run returns on the first answer and its defers close the
//   channel and the pipes; the pipes' goroutine could then report its error on the closed channel, and
//   the host panicked ("send on closed channel", main.go:535) after a successful run, its trace on the
//   engine's output. Pulumi fixed the same race in pulumi/pulumi#13689 (v3.80).
"use strict";
const fs = require("node:fs");

const [file, language] = process.argv.slice(2);
let text = fs.readFileSync(file, "utf8");
const edit = (what, pattern, replacement) => {
  const out = text.replace(pattern, replacement);
  if (out === text) {
    console.error(`patch-host: ${what} not found in ${file}`);
    process.exit(1);
  }
  text = out;
};
edit("the serving context", "ctx, cancel := context.WithCancel(context.Background())", "ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)");
edit("the import block", /^import \(\n/m, 'import (\n\t"os/signal"\n');
if (language === "nodejs") {
  edit("RunPlugin", /\nfunc \(host \*nodeLanguageHost\) RunPlugin\([\s\S]*?\n}\n/, "\n");
  edit("Run's response channel", "responseChannel := make(chan *pulumirpc.RunResponse)\n\tdefer close(responseChannel)\n", "responseChannel := make(chan *pulumirpc.RunResponse, 3)\n");
}
fs.writeFileSync(file, text);
