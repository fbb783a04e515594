/**
 * Each Construct's failures are its own. One plugin process serves a deployment's Constructs, several
 * at once, and the SDK's provider host answers every Construct in flight with any error that goes
 * unhandled in the process (its Server's uncaughtHandler, @pulumi/pulumi provider/server.ts). A
 * component reports bad input as a TypeScript program sees it: every output and every child fails
 * with the component's error, each an unhandled rejection, some after its own Construct was answered;
 * so another component's Construct would fail with that component's error. Node runs the handlers of
 * an unhandled rejection (and of an uncaught exception) in the async context of the promise (or the
 * callback) that failed, so the Construct that started it is known: its failure answers that Construct
 * alone, and the host's handlers keep the errors of no Construct.
 */
import * as pulumi from "@pulumi/pulumi";
import { AsyncLocalStorage } from "node:async_hooks";

interface Construct {
  fail(error: unknown): void;
}

const constructs = new AsyncLocalStorage<Construct>();

const EVENTS = ["unhandledRejection", "uncaughtException"] as const;

/**
 * Sends each error that goes unhandled to the Construct that started what failed; the handlers
 * installed before (the plugin runner's, the provider host's) get the others. Called on the process
 * once the provider host installed its handlers.
 */
export function routeFailures(emitter: NodeJS.EventEmitter): void {
  for (const event of EVENTS) {
    const others = emitter.listeners(event) as Array<(...args: unknown[]) => void>;
    emitter.removeAllListeners(event);
    emitter.on(event, (error: unknown, ...rest: unknown[]) => {
      const construct = constructs.getStore();
      if (construct) construct.fail(error);
      else for (const listener of others) listener.call(emitter, error, ...rest);
    });
  }
}

/**
 * Runs one Construct. `body` gets `failed`, which rejects with the first error that goes unhandled in
 * anything the Construct started, to answer its call with. An error after the answer goes to `late`,
 * once, unless it echoes a failed answer: the answer's own error, or an input error (a component
 * gathers every problem of its inputs into its one error, which its other outputs fail with later).
 */
export async function oneConstruct<T>(
  body: (failed: Promise<never>) => Promise<T>,
  late: (error: unknown) => void,
): Promise<T> {
  let reject!: (error: unknown) => void;
  const failed = new Promise<never>((_resolve, r) => (reject = r));
  failed.catch(() => undefined);
  let answer: { failed: false } | { failed: true; error: unknown } | undefined;
  const reported = new Set<unknown>();
  const echoes = (error: unknown) =>
    answer?.failed === true &&
    (error === answer.error ||
      pulumi.InputPropertyError.isInstance(error) ||
      pulumi.InputPropertiesError.isInstance(error));
  const construct: Construct = {
    fail: (error) => {
      if (answer === undefined) return reject(error);
      if (echoes(error) || reported.has(error)) return;
      reported.add(error);
      late(error);
    },
  };
  try {
    const result = await constructs.run(construct, () => body(failed));
    answer = { failed: false };
    return result;
  } catch (error) {
    answer = { failed: true, error };
    throw error;
  }
}
