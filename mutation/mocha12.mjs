// Stryker 9's mocha runner (the last for Node 20) requires mocha's CLI helpers by extensionless path,
// which mocha 12 ships as .cjs; resolving .cjs like .js lets the runner load them (Stryker 10 needs Node 22).
import { createRequire } from "node:module";

const { extensions } = createRequire(import.meta.url);
extensions[".cjs"] ??= extensions[".js"];
