/**
 * What an operation is run with: the project and its stack, the cluster, the state file and the
 * listeners of what it does. Apart from engine.ts so that the deployment and its steps can read the
 * options without importing the engine that runs them.
 */
import type { Fixtures } from "../fixtures";
import type { Project } from "../project";
import type { Diagnostic, EngineEvent } from "./diagnostics";
import type { Registration } from "./monitor";

export interface EngineOptions {
  project: Project;
  kubeconfigPath: string;
  statePath?: string;
  fixtures: Fixtures;
  /** URNs or names of resources to replace even when nothing changed (`--replace`). */
  replace?: string[];
  onEvent?: (event: EngineEvent) => void;
  /** Every diagnostic, as the CLI receives them to print under each resource. */
  onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** Extra environment for the program and the dynamic-provider host. */
  env?: NodeJS.ProcessEnv;
  /** Every registration the program (or a component package's provider) made, as the engine received it. */
  onRegistration?: (registration: Registration) => void;
  /**
   * How the engine waits between Creation's tries and between a request's tries (default: the real
   * time); tests pass their own, as await.go's tests give Creation a clock.
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * A refresh drops the pending creates a killed operation left, which every other operation keeps
   * (`pulumi refresh --clear-pending-creates`, refresh.go): the user has checked what they made.
   */
  clearPendingCreates?: boolean;
}
