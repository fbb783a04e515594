// Stryker ignorer: skips the mutants listed in equivalents.json, each with why it cannot change behaviour.
// An entry names the file, a piece of the source line, and the expression (`code`, its exact source
// text) starting on that line: every mutant of that expression is skipped, and of the expressions within
// it (Stryker's ignorers skip a node's children with it), so an entry names the smallest expression.
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { PluginKind, declareValuePlugin } from "@stryker-mutator/api/plugin";

const root = path.resolve(import.meta.dirname, "..");
const equivalents = JSON.parse(readFileSync(path.join(root, "mutation", "equivalents.json"), "utf8"));

const ignorer = {
  shouldIgnore(nodePath) {
    const file = nodePath.hub?.file;
    const node = nodePath.node;
    if (!file?.opts?.filename || node.start == null || !node.loc) return undefined;
    const relative = path.relative(root, file.opts.filename);
    const code = file.code.slice(node.start, node.end);
    const line = file.code.split("\n")[node.loc.start.line - 1];
    const entry = equivalents.find((e) => e.file === relative && e.code === code && line.includes(e.line));
    return entry && `equivalent: ${entry.reason}`;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, "equivalents", ignorer)];
