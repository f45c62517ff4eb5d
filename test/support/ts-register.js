// `node -r ./test/support/ts-register.js cli/main.ts …`: runs the TypeScript sources in a child process
// without a build, each file transpiled on load (no type check; jest's ts-jest does that for the tests).
"use strict";
const fs = require("node:fs");
const ts = require("typescript");

require.extensions[".ts"] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, "utf8"), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true },
  });
  module._compile(outputText, filename);
};
