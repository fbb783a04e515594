// Required into every Node process the tests start (test/setup.ts puts it in NODE_OPTIONS): Pulumi
// programs, dynamic-provider hosts and component plugins all load @pulumi/pulumi, whose runtime loads
// @npmcli/arborist (with pacote, sigstore, tar and more) at import, only for computeCodePaths
// (runtime/closure/codePaths.js: the dependencies of a serverless function's package), which no program
// of the tests calls. Here that module loads at its first use instead: some 0.15 s of CPU less per process
// at no change of what the SDK does. CommonJS, as `--import` would make Node load ts-node's entries as ES
// modules.
"use strict";
/* global require */
const Module = require("node:module");
const path = require("node:path");

const LAZY = "@npmcli/arborist";
const IMPORTER = path.join("@pulumi", "pulumi", "runtime", "closure", "codePaths.js");
const PATCHED = Symbol.for("openshift-topology.lazy-sdk-deps");

if (!Module._load[PATCHED]) {
  const load = Module._load;
  const lazyLoad = function (request, parent, isMain) {
    if (request !== LAZY || !parent?.filename?.endsWith(IMPORTER)) return load.apply(this, arguments);
    let loaded;
    const real = () => (loaded ??= load.call(this, request, parent, isMain));
    // codePaths.js takes the module through TypeScript's __importStar, which copies every property
    // unless the module says it is an ES module: so it says so, and keeps the proxy.
    return new Proxy(
      {},
      {
        get: (_, key) => (key === "__esModule" ? true : real()[key]),
        has: (_, key) => key in real(),
        ownKeys: () => Reflect.ownKeys(real()),
        getOwnPropertyDescriptor: (_, key) => {
          const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
          return descriptor && { ...descriptor, configurable: true };
        },
      },
    );
  };
  lazyLoad[PATCHED] = true;
  Module._load = lazyLoad;
}
