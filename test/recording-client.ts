/**
 * An API client that records what a wait asks for: the path of every request and the size of every
 * list answer, so that tests and benchmarks can show which objects a wait reads.
 */
import { ApiClient, createApiClient, ListResult } from "../provider/waiting/api";
import type { Clock } from "../provider/waiting/clock";

export interface ListAnswer {
  /** The resource's plural, e.g. `nodes`. */
  kind: string;
  /** The label and field selectors sent, space-separated. */
  query: string;
  objects: number;
  bytes: number;
}

export type RecordingClient = ApiClient & { sent: string[]; lists: ListAnswer[] };

/** `clock`: the one a request pauses on before it is sent again (a test's fake clock). */
export function recordingClient(kubeconfig: string, clock?: Clock): RecordingClient {
  const sent: string[] = [];
  const lists: ListAnswer[] = [];
  const inner = createApiClient(kubeconfig, { onRequest: (_m, path) => sent.push(path), clock });
  return {
    sent,
    lists,
    get requests() {
      return inner.requests;
    },
    async list(resource, selectors, signal): Promise<ListResult> {
      const answer = await inner.list(resource, selectors, signal);
      lists.push({
        kind: resource.plural,
        query: [selectors.labelSelector, selectors.fieldSelector].filter(Boolean).join(" "),
        objects: answer.items.length,
        bytes: JSON.stringify(answer).length,
      });
      return answer;
    },
    get: (...args) => inner.get(...args),
    mergePatch: (...args) => inner.mergePatch(...args),
    delete: (...args) => inner.delete(...args),
    watch: (...args) => inner.watch(...args),
  };
}
