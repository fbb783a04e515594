import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { oneConstruct, routeFailures } from "../plugin/construct-failures";

/** The next turn of the event loop, after the callbacks already scheduled. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * How the component package's process routes errors that go unhandled: the provider host's handlers
 * (here the emitter's first listener) get only the errors of no Construct; a Construct's own answer
 * its call, or later, when they are not that answer's echoes, go where the package reports them. That
 * Node gives the handlers the async context of what failed is shown in harness/languages.test.ts,
 * where the plugin's own process serves concurrent Constructs.
 */
describe("the component package's routing of unhandled errors", () => {
  const host: unknown[] = [];
  const emitter = new EventEmitter();
  emitter.on("unhandledRejection", (error: unknown) => host.push(error));
  emitter.on("uncaughtException", (error: unknown) => host.push(error));
  routeFailures(emitter);
  beforeEach(() => (host.length = 0));

  it("answers a Construct with the first error of what it started, and gives the host none of them", async () => {
    const own = new Error("the component's");
    const late: unknown[] = [];
    const answer = await oneConstruct(
      async (failed) => {
        setImmediate(() => {
          emitter.emit("unhandledRejection", own, Promise.resolve());
          emitter.emit("uncaughtException", new Error("second"), "uncaughtException");
        });
        await failed;
      },
      (error) => late.push(error),
    ).then(
      () => assert.fail("the Construct succeeded"),
      (error: unknown) => error,
    );
    assert.equal(answer, own);
    await nextTurn();
    // The second came before the answer: the call answers with the first, and the second is no later error.
    assert.deepEqual(late, []);
    assert.deepEqual(host, []);
  });

  it("after the answer, drops the echoes of a failed Construct's error (its own, an input error) and reports any other error once", async () => {
    const own = new Error("the component's");
    const input = new pulumi.InputPropertyError({ propertyPath: "provider", reason: "gathered in `own`" });
    const other = new Error("another");
    const late: unknown[] = [];
    await oneConstruct(
      async () => {
        setImmediate(() => {
          for (const error of [own, input, other, other]) {
            emitter.emit("unhandledRejection", error, Promise.resolve());
          }
        });
        throw own;
      },
      (error) => late.push(error),
    ).catch(() => undefined);
    await nextTurn();
    assert.deepEqual(late, [other]);
    assert.deepEqual(host, []);
  });

  it("reports an error after a successful answer, and gives the host the errors of no Construct", async () => {
    const after = new pulumi.InputPropertyError({ propertyPath: "kubeconfig", reason: "after the answer" });
    const late: unknown[] = [];
    const result = await oneConstruct(
      async () => {
        setImmediate(() => emitter.emit("unhandledRejection", after, Promise.resolve()));
        return "answered";
      },
      (error) => late.push(error),
    );
    assert.equal(result, "answered");
    const none = new Error("of no Construct");
    emitter.emit("unhandledRejection", none, Promise.resolve());
    await nextTurn();
    assert.deepEqual(late, [after]);
    assert.deepEqual(host, [none]);
  });
});
