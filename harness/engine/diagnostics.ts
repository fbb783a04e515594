/**
 * What an operation reports as it goes: step events (start, done, failed), the program's and
 * providers' log messages, and the errors the operation ends with, as the CLI shows them: a failed
 * step names its resource, a program error is not repeated when it only echoes a step's failure.
 */
import { nameOf } from "./checkpoint";
import type { StepOp } from "./plan";
import { qualifiedType, STACK_TYPE } from "./monitor";
import { Redactor } from "../secrets";

export interface EngineEvent {
  phase: "start" | "done" | "failed";
  operation: StepOp;
  type: string;
  name: string;
  message?: string;
  id?: string;
  /** The URN of the resource's parent (its component), when it has one. */
  parent?: string;
}

/** A message logged by the program or a provider (`pulumi.log`), with the resource it is about. */
export interface Diagnostic {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  /** The resource's URN; empty when the logger named none. */
  urn: string;
  /**
   * A status message (a provider's LogStatus, the SDK's `ephemeral`): the CLI shows it on the
   * resource's line while its step runs, not among the diagnostics after it.
   */
  ephemeral?: boolean;
}

/** How a registration after a failure is refused (the engine starts nothing new after an error either). */
export const SKIPPED = "not deployed: an earlier resource failed";

export const short = (type: string) => type.split(":").pop()!;

/** The message the program logged, as the CLI shows it: no colours, no stack, no runner preamble. */
function programError(message: string): string {
  const plain = message
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
    .replace(/^Running program '[^']*' failed with an unhandled exception:\n/, "")
    .replace(/^<ref \*\d+> /, "");
  const lines = plain.split("\n");
  const stackAt = lines.findIndex((l) => /^\s+at /.test(l));
  return (stackAt > 0 ? lines.slice(0, stackAt) : lines).join("\n").trim();
}

export class Diagnostics {
  /** Failed steps, each naming its resource. */
  readonly failures: string[] = [];
  /** Errors the program logged (or raised through a failed invoke). */
  private readonly logged: string[] = [];
  /** Every message reported goes through it: the deployment tells it each secret it sees. */
  readonly secrets = new Redactor();

  constructor(
    private readonly onEvent?: (event: EngineEvent) => void,
    private readonly onDiagnostic?: (diagnostic: Diagnostic) => void,
  ) {}

  emit(event: EngineEvent): void {
    this.onEvent?.(event);
  }

  /** Records a failed step and reports it; returns the error to raise. */
  fail(what: { type: string; name: string; parent?: string }, operation: StepOp, error: unknown): Error {
    const reason = this.secrets.text(error instanceof Error ? error.message : String(error));
    const message = `${short(what.type)} ${what.name}: ${reason}`;
    this.failures.push(message);
    const parent = what.parent ? { parent: what.parent } : {};
    this.emit({ phase: "failed", operation, type: what.type, name: what.name, message, ...parent });
    return new Error(message);
  }

  /** An invoke the program made failed: the program sees the error, and so does the operation. */
  invokeFailed(message: string): void {
    this.logged.push(this.secrets.text(message));
  }

  log(severity: Diagnostic["severity"], said: string, urn: string, ephemeral = false): void {
    const message = this.secrets.text(said);
    this.onDiagnostic?.({ severity, message, urn, ...(ephemeral ? { ephemeral } : {}) });
    if (severity !== "error" || ephemeral) return;
    const error = programError(message);
    // Logged against a resource, the error names it (as the CLI shows it under that resource), unless
    // it already names its component or is the stack's.
    const type = urn ? (qualifiedType(urn).split("$").pop() ?? "") : "";
    const of = type && type !== STACK_TYPE ? `${short(type)} ${nameOf(urn)}` : undefined;
    this.logged.push(
      of && !error.startsWith(`${of}`) && !/^\w+ "[^"]+": /.test(error) ? `${of}: ${error}` : error,
    );
  }

  /** Program errors that are not echoes of a resource failure or refusals after one. */
  programErrors(): string[] {
    const seen = new Set<string>();
    return this.logged.filter((m) => {
      if (m.includes(SKIPPED) || this.failures.some((f) => m.includes(f)) || seen.has(m)) return false;
      seen.add(m);
      return true;
    });
  }
}
